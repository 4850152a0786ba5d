package policy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	admv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// paramSyncWait is how long a request waits for a new param kind's
// informer to sync, as kube waits (a second) before calling it a
// configuration error.
const paramSyncWait = time.Second

// errParamsDenied is a binding's parameterNotFoundAction Deny with no
// params found, kube's message.
var errParamsDenied = errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")

// params finds bindings' params: one informer per param kind, started the
// first time a binding needs it and kept while the service runs, as kube
// keeps one per policy's paramKind.
type params struct {
	dynamic dynamic.Interface
	err     error // why there is no dynamic client
	mapper  meta.ResettableRESTMapper
	stop    <-chan struct{}

	mu        sync.Mutex
	informers map[schema.GroupVersionResource]cache.SharedIndexInformer
}

// paramKindSource is the informer of a kind's objects and whether they are
// namespaced.
type paramKindSource struct {
	informer   cache.SharedIndexInformer
	gvr        schema.GroupVersionResource
	namespaced bool
}

// collect returns the params a binding evaluates its policy with, as
// kube's CollectParams does: a single nil when the policy or the binding
// takes none; else the objects paramRef names or selects, which may be
// none (the policy then does not apply, unless parameterNotFoundAction is
// Deny: an error). Errors are configuration errors.
func (p *params) collect(ctx context.Context, kind *admv1.ParamKind, ref *admv1.ParamRef, namespace string) ([]any, error) {
	if kind == nil || ref == nil {
		return []any{nil}, nil
	}
	if p.err != nil {
		return nil, p.err
	}
	src, err := p.source(kind)
	if err != nil {
		return nil, err
	}
	ns, err := paramNamespace(src, ref, namespace)
	if err != nil {
		return nil, err
	}
	var found []any
	switch {
	case ref.Name != "" && ref.Selector != nil:
		return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
	case ref.Name != "":
		found, err = p.byName(ctx, src, ns, ref.Name)
	case ref.Selector != nil:
		found, err = bySelector(src, ns, ref.Selector)
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if err != nil {
		return nil, err
	}
	if len(found) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admv1.DenyAction {
		return nil, errParamsDenied
	}
	return found, nil
}

// paramNamespace is where to look for params: paramRef's namespace, else
// the request's; none for a cluster-scoped kind.
func paramNamespace(src *paramKindSource, ref *admv1.ParamRef, namespace string) (string, error) {
	switch {
	case !src.namespaced && ref.Namespace != "":
		return "", errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	case !src.namespaced:
		return "", nil
	case ref.Namespace != "":
		return ref.Namespace, nil
	case namespace == "":
		return "", errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
	}
	return namespace, nil
}

// byName is the named param from the informer or, when it has not seen
// it yet (created just before the request), read live, as kube does.
func (p *params) byName(ctx context.Context, src *paramKindSource, ns, name string) ([]any, error) {
	key := name
	if ns != "" {
		key = ns + "/" + name
	}
	obj, ok, err := src.informer.GetIndexer().GetByKey(key)
	if err != nil {
		return nil, err
	}
	if ok {
		return []any{obj.(*unstructured.Unstructured).Object}, nil
	}
	live, err := p.dynamic.Resource(src.gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return []any{live.Object}, nil
}

// bySelector is every param in ns (or of a cluster-scoped kind) whose
// labels the selector matches.
func bySelector(src *paramKindSource, ns string, ls *metav1.LabelSelector) ([]any, error) {
	selector, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, err
	}
	var found []any
	for _, item := range src.informer.GetIndexer().List() {
		u := item.(*unstructured.Unstructured)
		if u.GetNamespace() == ns && selector.Matches(labels.Set(u.GetLabels())) {
			found = append(found, u.Object)
		}
	}
	return found, nil
}

// source is the informer of a param kind, started on first use.
func (p *params) source(kind *admv1.ParamKind) (*paramKindSource, error) {
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return nil, err
	}
	mapping, err := p.mapping(gv.WithKind(kind.Kind))
	if err != nil {
		return nil, fmt.Errorf("paramKind kind `%s` not known: %w", gv.WithKind(kind.Kind), err)
	}
	src := &paramKindSource{gvr: mapping.Resource, namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}
	src.informer = p.informer(mapping.Resource)
	ctx, cancel := context.WithTimeout(context.Background(), paramSyncWait)
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), src.informer.HasSynced) {
		return nil, fmt.Errorf("paramKind kind `%s` not yet synced to use for admission", gv.WithKind(kind.Kind))
	}
	return src, nil
}

// mapping finds a kind's resource, asking discovery again once when it is
// unknown: a custom resource may have been defined since.
func (p *params) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := p.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		p.mapper.Reset()
		m, err = p.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	return m, err
}

// informer is the running informer of gvr's objects in every namespace.
func (p *params) informer(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	p.mu.Lock()
	defer p.mu.Unlock()
	if inf, ok := p.informers[gvr]; ok {
		return inf
	}
	inf := dynamicinformer.NewFilteredDynamicInformer(p.dynamic, gvr, metav1.NamespaceAll, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
	if p.informers == nil {
		p.informers = map[schema.GroupVersionResource]cache.SharedIndexInformer{}
	}
	p.informers[gvr] = inf
	go inf.Run(p.stop)
	return inf
}
