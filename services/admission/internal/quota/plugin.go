// Package quota is the ResourceQuota admission plugin and the controller
// that keeps quotas' status, as kube-apiserver's ResourceQuota plugin and
// kube-controller-manager's resourcequota controller do together.
//
// Admission charges every covered create (and updates that grow usage) to
// status.used with an optimistic update of the quota before it allows the
// write, so concurrent writers, on any number of replicas, can never spend
// the same headroom twice. The controller sets status.hard from spec.hard
// and recounts status.used from the objects themselves: when a quota
// changes, when covered objects go away (so deleting frees quota at once),
// and periodically, to give back what admitted writes that then failed
// were charged.
package quota

import (
	"errors"
	"log/slog"

	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/klog/v2"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Name is the plugin's name, as kube-apiserver's.
const Name = "ResourceQuota"

// controllerName names the controller's Lease.
const controllerName = "resourcequota"

// Plugin is the ResourceQuota admitter.
type Plugin struct {
	client kubernetes.Interface
	evals  evaluators
	quotas *quotaSource
	locks  namespaceLocks
	log    *slog.Logger
}

var _ admission.Admitter = (*Plugin)(nil)

// New builds the admitter, registers the informers it and the controller
// read, and hands the controller to deps.Run.
func New(deps plugin.Deps) (admission.Admitter, error) {
	if deps.Client == nil || deps.Informers == nil || deps.Run == nil {
		return nil, errors.Join(admission.ErrInvalidConfig,
			errors.New("resourcequota: needs a client, informers and a way to run its controller"))
	}
	log := deps.Log
	if log == nil {
		log = slog.Default()
	}
	// Which extended resources DeviceClasses provide, for ResourceClaims'
	// usage: few objects, so every replica watches them, as kube does.
	deviceClasses := extendedresourcecache.NewExtendedResourceCache(klog.Background())
	if _, err := deps.Informers.Resource().V1().DeviceClasses().Informer().AddEventHandler(deviceClasses); err != nil {
		return nil, err
	}
	inf := deps.Informers.Core().V1().ResourceQuotas().Informer()
	p := &Plugin{client: deps.Client, evals: newEvaluators(deps.Client, deviceClasses),
		quotas: newQuotaSource(deps.Client, inf), log: log}
	c, err := newController(deps, p.evals, p.quotas, log)
	if err != nil {
		return nil, err
	}
	deps.Run(controllerName, c.run)
	return admission.Validating(p), nil
}
