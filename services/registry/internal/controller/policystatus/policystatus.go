// Package policystatus runs kube-controller-manager's
// validatingadmissionpolicy-status-controller, kube's own code: it
// type-checks every ValidatingAdmissionPolicy's CEL against the schemas of
// the kinds the policy matches (built-in kinds from kube's OpenAPI
// definitions, custom resources from the API's published OpenAPI) and
// writes what it finds to status.typeChecking, so that `kubectl get vap -o
// yaml` shows a reference to a field the kind does not have.
package policystatus

import (
	"context"
	"log/slog"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	"k8s.io/kubernetes/pkg/controller/validatingadmissionpolicystatus"
	"k8s.io/kubernetes/pkg/generated/openapi"
)

// workers is kube-controller-manager's default
// --concurrent-validating-admission-policy-status-syncs.
const workers = 5

// Options configure the controller.
type Options struct {
	Client kubernetes.Interface
	Log    *slog.Logger
}

// Run type-checks policies until ctx ends.
func Run(ctx context.Context, o Options) error {
	disc := memory.NewMemCacheClient(o.Client.Discovery())
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(disc)
	schemas := resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme).
		Combine(&resolver.ClientDiscoveryResolver{Discovery: o.Client.Discovery()})
	factory := informers.NewSharedInformerFactory(o.Client, 0)
	c, err := validatingadmissionpolicystatus.NewController(
		factory.Admissionregistration().V1().ValidatingAdmissionPolicies(),
		o.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies(),
		&validating.TypeChecker{SchemaResolver: schemas, RestMapper: mapper},
	)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	o.Log.Info("type-checking ValidatingAdmissionPolicies")
	c.Run(ctx, workers)
	return nil
}
