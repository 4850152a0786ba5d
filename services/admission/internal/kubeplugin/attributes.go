package kubeplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeadmission "k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/kubeuser"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
)

// request is one admission request as kube's plugins see it: the
// attributes record on internal objects, and the object before the plugin
// ran, to tell what it changed.
type request struct {
	*annotated
	gv     schema.GroupVersion // the served version, to convert back to
	before runtime.Object      // a copy of the internal object; nil if none
	// reinvocation is the write's, shared with the chain's other plugins
	// (see admission.Reinvoking); nil outside a chain.
	reinvocation *admission.Reinvocation
}

// GetReinvocationContext is the write's reinvocation record, where kube's
// MutatingAdmissionPolicy notes which policies to run again; one of the
// request's own outside a chain.
func (r *request) GetReinvocationContext() kubeadmission.ReinvocationContext {
	if r.reinvocation == nil {
		return r.annotated.GetReinvocationContext()
	}
	return r.reinvocation
}

// newRequest translates our attributes into kube's.
func newRequest(ctx context.Context, a *admission.Attributes) (*request, error) {
	gvk := schema.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind}
	obj, err := kubeobject.Internal(a.Object.Raw, gvk)
	if err != nil {
		return nil, err
	}
	old, err := kubeobject.Internal(a.OldObject.Raw, gvk)
	if err != nil {
		return nil, err
	}
	opts, err := options(a.Operation, a.Options.Raw)
	if err != nil {
		return nil, err
	}
	r := &request{gv: gvk.GroupVersion(), reinvocation: admission.ReinvocationFrom(ctx)}
	if obj != nil {
		r.before = obj.DeepCopyObject()
	}
	gvr := schema.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource}
	r.annotated = &annotated{Attributes: kubeadmission.NewAttributesRecord(obj, old, gvk, a.Namespace, a.Name, gvr,
		a.SubResource, kubeadmission.Operation(a.Operation), opts, a.DryRun, kubeuser.FromUserInfo(a.UserInfo))}
	return r, nil
}

// options are the operation's options as kube passes them: the typed
// CreateOptions, UpdateOptions or DeleteOptions, zero when none were sent.
func options(op admissionv1.Operation, raw []byte) (runtime.Object, error) {
	var opts runtime.Object
	switch op {
	case admissionv1.Create:
		opts = &metav1.CreateOptions{}
	case admissionv1.Update:
		opts = &metav1.UpdateOptions{}
	case admissionv1.Delete:
		opts = &metav1.DeleteOptions{}
	default:
		return nil, nil
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, opts); err != nil {
			return nil, fmt.Errorf("decoding the %s options: %w", op, err)
		}
	}
	return opts, nil
}

// annotated keeps the audit annotations a plugin adds to the attributes,
// which kube's record keeps to itself for its audit filter.
type annotated struct {
	kubeadmission.Attributes
	mu          sync.Mutex
	annotations map[string]string
}

// AddAnnotation implements kube's admission.Attributes.
func (a *annotated) AddAnnotation(key, value string) error {
	return a.AddAnnotationWithLevel(key, value, auditinternal.LevelMetadata)
}

// AddAnnotationWithLevel implements kube's admission.Attributes, with the
// record's checks (key format, no overwriting).
func (a *annotated) AddAnnotationWithLevel(key, value string, level auditinternal.Level) error {
	if err := a.Attributes.AddAnnotationWithLevel(key, value, level); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.annotations == nil {
		a.annotations = map[string]string{}
	}
	a.annotations[key] = value
	return nil
}

// added are the annotations added so far.
func (a *annotated) added() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.annotations)
}
