// Package plugin is the contract between the admission service and its
// built-in plugins, as kube-apiserver's admission plugin registry is: each
// plugin package exposes
//
//	func New(deps plugin.Deps) (admission.Admitter, error)
//
// and the service wires the constructors in one table by name. Keeping the
// contract in a package of its own lets plugins be written without
// importing the service (which imports them).
package plugin

import (
	"context"
	"log/slog"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// Deps is what a plugin may use. Everything is shared between the plugins
// of one service: one client, one informer factory, one logger.
type Deps struct {
	// Client reaches the API through the aggregator as system:masters, for
	// live reads when an informer may be stale.
	Client kubernetes.Interface

	// Informers is shared by all plugins. A plugin asks for its informers
	// in New (so that they are registered); the service starts the factory
	// after every plugin was constructed and reports ready once synced.
	Informers informers.SharedInformerFactory

	// MetadataClient reads objects' metadata only (PartialObjectMetadata),
	// for informers of what a plugin counts or looks up by name: their
	// contents then neither cross the network nor sit in memory (Secrets'
	// above all). Nil when the service has no REST configuration to make
	// one from; plugins then use typed informers.
	MetadataClient metadata.Interface

	// Dynamic reaches the API like Client, for objects of any kind (a
	// policy's params). Nil when the service has none; plugins then make
	// one from Client.
	Dynamic dynamic.Interface

	// Log is the plugin's logger, already tagged with its name.
	Log *slog.Logger

	// Run registers background work (a controller) that the service runs
	// after start, under a coordination.k8s.io Lease named
	// kubesplit-admission-<name> in kube-system, so that with several
	// replicas one runs it at a time. f must return when ctx is done (it is
	// cancelled when leadership is lost or the service closes). Nil when
	// the caller runs no background work (plugin unit tests); plugins that
	// need it must then fail in New.
	Run func(name string, f func(ctx context.Context))

	// Stopped is closed when the service closes, for work a plugin runs
	// as long as the service does (kube's plugins' drained notification,
	// which stops their own goroutines). Nil means never (unit tests).
	Stopped <-chan struct{}
}

// Constructor builds a plugin's admitter. Mark it admission.Mutating when it
// may patch; a plugin that mutates and validates returns
// admission.Chain(admission.Mutating(m), v).
type Constructor func(deps Deps) (admission.Admitter, error)

// PhasesConstructor builds a plugin that both mutates and validates as its
// two halves, so that the service can serve each on its own path: the
// registry calls the mutating path before its own defaulting and
// validation, the validating path on the object it will store. A plugin
// package with two halves exposes one (NewPhases) besides New; a plugin
// whose New returns an opaque chain of both would have its validating half
// run on the mutating path, before defaulting.
type PhasesConstructor func(deps Deps) (mutating, validating admission.Admitter, err error)

// Joined is the Constructor of a two-phase plugin: its halves chained as
// kube runs them, the mutating one marked Mutating.
func Joined(phases PhasesConstructor) Constructor {
	return func(deps Deps) (admission.Admitter, error) {
		m, v, err := phases(deps)
		if err != nil {
			return nil, err
		}
		return admission.Chain(admission.Mutating(m), v)
	}
}

// DynamicRules is implemented by the admitter of a plugin whose rules
// follow objects in the cluster (webhook configurations, admission
// policies): the service publishes what CurrentRules returns at each fetch
// of its rules, in place of the registration's static ones.
type DynamicRules interface {
	CurrentRules() admission.Rules
}
