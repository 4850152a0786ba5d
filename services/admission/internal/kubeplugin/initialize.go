package kubeplugin

import (
	"fmt"

	kubeadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"k8s.io/component-base/compatibility"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// effectiveVersion is the release whose behaviour the plugins give
// (PodSecurity's "latest" policy version among others): the one whose
// code this is.
var effectiveVersion = compatibility.NewEffectiveVersionFromString("1.37", "", "")

// initialized is kube's plugin name, made by its package's Register and
// initialized as kube-apiserver initializes it: the shared informer
// factory (which the service starts once every plugin asked for its
// informers), the clients, a REST mapper, the feature gates and an
// authorizer, then its own ValidateInitialization.
func initialized(name string, register func(*kubeadmission.Plugins), deps plugin.Deps) (kubeadmission.Interface, error) {
	if deps.Client == nil || deps.Informers == nil {
		return nil, fmt.Errorf("%s needs a client and an informer factory", name)
	}
	plugins := kubeadmission.NewPlugins()
	register(plugins)
	// The drained notification tells plugins that the server is shutting
	// down, and stops their background work (MutatingAdmissionPolicy's
	// policy source and OpenAPI polling): the service's closing.
	stopped := deps.Stopped
	if stopped == nil {
		stopped = make(chan struct{})
	}
	// The REST mapper finds a policy's paramKind's resource; discovery
	// is read when first needed, and again for a kind it did not list.
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(deps.Client.Discovery()))
	init := initializer.New(deps.Client, deps.Dynamic, deps.Informers, reviewAuthorizer(plugin.NewReviews(deps.Client)),
		utilfeature.DefaultFeatureGate, effectiveVersion, stopped, mapper)
	p, err := plugins.InitPlugin(name, nil, init)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("%s is not registered by its package", name)
	}
	return p, nil
}
