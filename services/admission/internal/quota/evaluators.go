package quota

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubequota "k8s.io/apiserver/pkg/quota/v1"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	"k8s.io/utils/clock"
)

// The resources whose usage is more than an object count, and that an
// update can change.
var (
	podsResource     = schema.GroupResource{Resource: "pods"}
	servicesResource = schema.GroupResource{Resource: "services"}
	pvcsResource     = schema.GroupResource{Resource: "persistentvolumeclaims"}
	claimsResource   = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}
)

// updatable are the resources quota looks at on update too, as kube's
// evaluators of them handle updates; every other resource is only counted,
// on create.
var updatable = []schema.GroupResource{podsResource, servicesResource, pvcsResource, claimsResource}

// countPrefix starts the generic object counts (count/<resource>.<group>).
const countPrefix = "count/"

// evaluators are kube's own quota evaluators (pkg/quota/v1/evaluator/core):
// what an object uses, which quota resource names count it, which scopes
// take it in and what a pod must state. Admission and the recount share
// them, so a charge and a recount always agree.
type evaluators struct {
	kube map[schema.GroupResource]kubequota.Evaluator
}

// newEvaluators builds the evaluators. deviceClasses maps DeviceClasses to
// the extended resources they provide, for ResourceClaims; pods and claims
// reads what the claim evaluator needs of a pod's extended-resource claim.
func newEvaluators(client kubernetes.Interface, deviceClasses *extendedresourcecache.ExtendedResourceCache) evaluators {
	// With no resource enabled, kube's set is just the object counts that
	// quota also names without count/ (configmaps, secrets, …).
	legacy, _ := core.NewEvaluators(nil, nil, func(schema.GroupVersionResource) bool { return false })
	all := append(legacy,
		core.NewPodEvaluator(nil, clock.RealClock{}),
		core.NewServiceEvaluator(nil),
		core.NewPersistentVolumeClaimEvaluator(nil),
		core.NewResourceClaimEvaluator(nil, deviceClasses, livePods{client}, claimsOfPod(client)))
	e := evaluators{kube: map[schema.GroupResource]kubequota.Evaluator{}}
	for _, ev := range all {
		e.kube[ev.GroupResource()] = ev
	}
	return e
}

// of is the evaluator of gr's objects: kube's own where it has one, else
// an object count (count/<resource>.<group>), as kube's plugin makes for
// any other resource.
func (e evaluators) of(gr schema.GroupResource) kubequota.Evaluator {
	if ev, ok := e.kube[gr]; ok {
		return ev
	}
	return generic.NewObjectCountEvaluator(gr, nil, "")
}

// covering are the resources whose objects a quota resource name counts,
// as the evaluators' MatchingResources divide names between them (an
// extended resource may be used by pods and by ResourceClaims both); none
// for a name no evaluator knows, which quota then ignores.
func (e evaluators) covering(name corev1.ResourceName) []schema.GroupResource {
	var out []schema.GroupResource
	for gr, ev := range e.kube {
		if len(ev.MatchingResources([]corev1.ResourceName{name})) > 0 {
			out = append(out, gr)
		}
	}
	if len(out) == 0 {
		if gr, ok := countedResource(name); ok {
			out = append(out, gr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// countedResource parses the <resource>.<group> of count/<resource>.<group>;
// a core resource has no group.
func countedResource(name corev1.ResourceName) (schema.GroupResource, bool) {
	s, ok := strings.CutPrefix(string(name), countPrefix)
	if !ok || s == "" {
		return schema.GroupResource{}, false
	}
	resource, group, _ := strings.Cut(s, ".")
	return schema.GroupResource{Group: group, Resource: resource}, true
}
