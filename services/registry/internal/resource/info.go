// Package resource describes the resources the registry serves: where each
// lives in the URL space and in etcd, and the small strategy (defaulting,
// validation, status split, selectable fields, table columns) that gives it
// its type-specific behaviour. The generic store and handlers know nothing
// else about a type, so a custom resource is just another Info.
package resource

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
)

// Info is one served resource.
type Info struct {
	Group    string
	Version  string
	Resource string // plural, lower case: "configmaps"
	Kind     string
	Singular string

	Namespaced bool
	ShortNames []string
	Categories []string

	// StatusSubresource means the type's .status is written only through
	// the status subresource and ignored on the main resource.
	StatusSubresource bool
	// Generation means metadata.generation counts changes to everything but
	// metadata and status, as kube does for types with a spec.
	Generation bool
	// SelectableFields are the dotted paths, besides metadata.name and
	// metadata.namespace, that field selectors accept, for a resource
	// without a Strategy (whose field selection is kube's).
	SelectableFields []string
	// ConditionalUpdate means an update must name the resourceVersion it
	// replaces; without it a PUT with none overwrites unconditionally, as
	// kube allows for most built-in kinds.
	ConditionalUpdate bool
	// Scale, when set, serves the scale subresource (autoscaling/v1 Scale),
	// as kubectl scale and autoscalers use it.
	Scale *Scale
	// SpecFinalizers means spec.finalizers hold an object back from deletion
	// as metadata.finalizers do (Namespace's "kubernetes" finalizer).
	SpecFinalizers bool
	// Refuse, when set, may refuse a request by its verb and the name it
	// addresses before anything else runs (a custom resource whose
	// definition is being deleted takes no creates; a system PriorityClass
	// is not deleted).
	Refuse func(verb, name string) error
	// Deprecation, when set, is the warning kube sends with every request
	// for a kind its served release deprecates (v1 Endpoints).
	Deprecation string
	// MarkDeleted, when set, makes every delete wait for finalizers: it is
	// called on the object being marked for deletion to add what a delete
	// sets (a CRD's cleanup finalizer and Terminating condition).
	MarkDeleted func(obj *unstructured.Unstructured)
	// Subresources the registry serves beyond "status" (e.g. "finalize"):
	// the object itself, read and written through the subresource.
	Subresources []string
	// Actions are subresources that take an object of another kind and are
	// served by code of their own (pods/binding, pods/eviction).
	Actions []Action
	// ReturnDeletedObject answers a delete that removed the object with the
	// object, as kube's storage of the kind does, rather than a Status.
	ReturnDeletedObject bool
	// OrphanWarning, when set, is the warning a delete that orphans the
	// dependents by default sends (kube's, for Jobs).
	OrphanWarning string
	// ServedVerbs, when set, are the only verbs the resource takes (the
	// bindings resource only creates); nil means every verb.
	ServedVerbs []string

	// ValidateName checks metadata.name (and generateName, with prefix);
	// nil means a DNS subdomain, as for most kinds.
	ValidateName func(name string, prefix bool) []string

	// Default fills in server-side defaults; nil means none.
	Default func(obj *unstructured.Unstructured)
	// Validate checks an object before it is written; old is nil on create.
	// nil means only the generic ObjectMeta checks run.
	Validate func(obj, old *unstructured.Unstructured) field.ErrorList
	// ValidatesMeta means Validate checks ObjectMeta itself, as kube's
	// customresource strategy does, so the generic checks do not run.
	ValidatesMeta bool
	// Warnings, when set, are the warnings a valid write sends (old nil on
	// create; status for the status subresource), for a kind without a
	// Strategy (custom resources: kube's finalizer name warnings).
	Warnings func(obj, old *unstructured.Unstructured, status bool) []string
	// ValidateStatus, when set, replaces Validate for writes through the
	// status subresource (custom resources: kube checks only status).
	ValidateStatus func(obj, old *unstructured.Unstructured) field.ErrorList
	// OpenAPI, for custom resources, is what the OpenAPI documents publish
	// of the kind and its list (kubectl explain reads it); nil for
	// built-in kinds, whose definitions are generated.
	OpenAPI *CustomOpenAPI
	// ApplyTypes, for custom resources, is how server-side apply sees the
	// objects' fields (kube's, from the CRD's OpenAPI); nil for built-in
	// kinds, whose schemas client-go publishes.
	ApplyTypes managedfields.TypeConverter
	// Prune, for custom resources, removes the fields the schema does not
	// specify and returns their paths, which fieldValidation reports as
	// unknown fields; nil for kinds whose Go type drops them.
	Prune func(obj *unstructured.Unstructured) []string

	// Columns are the whole table kubectl prints for a resource without a
	// Strategy; nil means printers.Default (NAME, CREATED AT).
	Columns []printers.Column

	// StoredAs, when set, names the resource whose objects these are and
	// the version they are kept at, for a kind served in two versions or
	// groups over one storage (autoscaling/v1 HorizontalPodAutoscalers are
	// kept as autoscaling/v2's, events.k8s.io/v1 Events as core/v1's).
	StoredAs *schema.GroupVersionResource
	// Convert converts an object between the served and the stored
	// version when they differ (kube's conversion for built-in kinds).
	Convert func(obj map[string]any, apiVersion string) (map[string]any, error)

	// Custom marks a custom resource (a CRD's): aggregated discovery names
	// its group and version in responseKind, as kube's CRD handler does,
	// where a built-in kind's names only the kind.
	Custom bool
	// StorageVersionHash, when set, is what discovery lists as the
	// resource's storageVersionHash (a custom resource's, of its CRD's
	// storage version); built-in kinds get kube's from their storage
	// version.
	StorageVersionHash string

	// Strategy, for a built-in kind, is kube's own type code (package
	// kubetype): defaulting, what a write may set, validation, warnings and
	// the Table. When set, Default, Validate, Generation and
	// ConditionalUpdate are not used, and Columns, when set, replace the
	// Table (CRDs, printed by apiextensions' own convertor).
	Strategy Strategy

	// Allocator, when set, gives objects of the kind what they hold of a
	// pool all of them share (a Service's cluster IPs and node ports), as
	// kube's BeginCreate and BeginUpdate hooks do.
	Allocator Allocator
}

// Allocator gives objects what they hold of a shared pool.
type Allocator interface {
	// Allocate, on a create (old nil) or an update of the object itself,
	// after mutating admission and before validation, sets in obj what it
	// is given and holds it until the Allocation is committed or reverted.
	Allocate(ctx context.Context, obj, old *unstructured.Unstructured, dryRun bool) (Allocation, error)
	// Release gives back what a deleted object held.
	Release(ctx context.Context, obj *unstructured.Unstructured)
}

// Allocation is what one write was given.
type Allocation interface {
	// Commit, once the write is stored, keeps it and releases what the
	// write gave up.
	Commit()
	// Revert, when the write is not stored, releases it.
	Revert()
}

// Strategy is a kind's type-specific behaviour on writes, as kube's
// strategies define it.
type Strategy interface {
	printers.Table
	// Default fills in server-side defaults.
	Default(obj *unstructured.Unstructured)
	// PrepareForCreate defaults a new object, clears what a client may not
	// set and sets what the server owns (status, generation).
	PrepareForCreate(ctx context.Context, obj *unstructured.Unstructured) error
	// PrepareForUpdate defaults obj and carries over from old what a write
	// to subresource ("" for the object) may not change.
	PrepareForUpdate(ctx context.Context, subresource string, obj, old *unstructured.Unstructured) error
	// Validate checks a create (old nil) or an update of subresource, and
	// returns the warnings kube sends; a valid obj is left canonical.
	Validate(ctx context.Context, subresource string, obj, old *unstructured.Unstructured) (field.ErrorList, []string, error)
	// AllowUnconditionalUpdate reports whether a PUT may omit the
	// resourceVersion.
	AllowUnconditionalUpdate(ctx context.Context) bool
	// BeforeDelete sets a graceful deletion on obj (graceful) or reports
	// one already running that this delete leaves alone (pending).
	BeforeDelete(ctx context.Context, obj *unstructured.Unstructured, opts *metav1.DeleteOptions) (graceful, pending bool, err error)
	// Graceful reports whether the kind is deleted gracefully at all.
	Graceful() bool
	// OrphansByDefault reports whether a delete naming no propagation
	// policy orphans the dependents.
	OrphansByDefault(ctx context.Context) bool
	// ConvertFieldLabel maps a field selector's field to FieldSet's name
	// for it, or refuses a field the kind cannot select on.
	ConvertFieldLabel(label, value string) (string, string, error)
	// FieldSet is an object's selectable fields.
	FieldSet(obj *unstructured.Unstructured) (fields.Set, error)
}

// Table is how the resource prints as a meta.k8s.io Table.
func (i *Info) Table() printers.Table {
	switch {
	case i.Columns != nil:
		return printers.Columns(i.Columns)
	case i.Strategy != nil:
		return i.Strategy
	}
	return printers.Columns(printers.Default)
}

// GroupVersion returns the resource's API group and version.
func (i *Info) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: i.Group, Version: i.Version}
}

// GroupVersionKind returns the kind of a single object.
func (i *Info) GroupVersionKind() schema.GroupVersionKind {
	return i.GroupVersion().WithKind(i.Kind)
}

// GroupVersionResource returns the resource's full name.
func (i *Info) GroupVersionResource() schema.GroupVersionResource {
	return i.GroupVersion().WithResource(i.Resource)
}

// ListKind is the kind of a list of these objects.
func (i *Info) ListKind() string { return i.Kind + "List" }

// APIVersion is the apiVersion field of objects of this resource.
func (i *Info) APIVersion() string { return i.GroupVersion().String() }

// KeyPrefix is the etcd prefix under which every object of the resource is
// stored: /registry/<group>/<resource>/. The core group is spelled "core" so
// that no key holds an empty segment.
func (i *Info) KeyPrefix() string {
	group, res := i.Group, i.Resource
	if i.StoredAs != nil {
		group, res = i.StoredAs.Group, i.StoredAs.Resource
	}
	if group == "" {
		group = "core"
	}
	return "/registry/" + group + "/" + res + "/"
}

// Key is the etcd key of one object; namespace is ignored for cluster-scoped
// resources.
func (i *Info) Key(namespace, name string) string {
	if i.Namespaced {
		return i.KeyPrefix() + namespace + "/" + name
	}
	return i.KeyPrefix() + name
}

// NamespacePrefix is the etcd prefix of the objects in one namespace, or of
// all objects when namespace is empty or the resource is cluster-scoped.
func (i *Info) NamespacePrefix(namespace string) string {
	if !i.Namespaced || namespace == "" {
		return i.KeyPrefix()
	}
	return i.KeyPrefix() + namespace + "/"
}

// HasSubresource reports whether the resource serves the named subresource.
func (i *Info) HasSubresource(name string) bool {
	switch name {
	case "status":
		return i.StatusSubresource
	case "scale":
		return i.Scale != nil
	}
	for _, s := range i.Subresources {
		if s == name {
			return true
		}
	}
	_, ok := i.Action(name)
	return ok
}

// Action returns the action served as subresource name.
func (i *Info) Action(name string) (Action, bool) {
	for _, a := range i.Actions {
		if a.Name == name {
			return a, true
		}
	}
	return Action{}, false
}

// Action is a subresource taking an object of another kind, as discovery
// describes it.
type Action struct {
	Name    string
	Group   string // of the kind it takes
	Version string
	Kind    string
	Verbs   []string
}

// Scale says where a resource keeps what its scale subresource shows, as
// dotted paths (a CRD's scale subresource names the same three).
type Scale struct {
	SpecReplicasPath   string // ".spec.replicas"
	StatusReplicasPath string // ".status.replicas"
	// LabelSelectorPath holds the pods' selector: a string, or a
	// LabelSelector (Deployment's spec.selector) that is shown formatted.
	LabelSelectorPath string
}

// Verbs lists what the resource supports, for discovery.
func (i *Info) Verbs() []string {
	if i.ServedVerbs != nil {
		return i.ServedVerbs
	}
	return []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// Matches reports whether name names this resource: its plural, singular,
// kind (case-insensitive) or a short name, as kubectl resolves them.
func (i *Info) Matches(name string) bool {
	n := strings.ToLower(name)
	if n == i.Resource || n == i.Singular || n == strings.ToLower(i.Kind) {
		return true
	}
	for _, s := range i.ShortNames {
		if n == s {
			return true
		}
	}
	return false
}

// StorageVersion is the apiVersion objects are kept at in etcd.
func (i *Info) StorageVersion() string {
	if i.StoredAs != nil {
		return i.StoredAs.GroupVersion().String()
	}
	return i.APIVersion()
}
