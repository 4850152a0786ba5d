package kubeplugin

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"
	clienttesting "k8s.io/client-go/testing"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

func pod(ns string, spec corev1.PodSpec) *corev1.Pod {
	if spec.Containers == nil {
		spec.Containers = []corev1.Container{{Name: "c", Image: "i"}}
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns}, Spec: spec}
}

// phases builds p over a fake API holding objs and starts its informers.
func phases(t *testing.T, p Plugin, objs ...runtime.Object) (m, v admission.Admitter) {
	t.Helper()
	m, v, _ = plugintest.Phases(t, p.NewPhases, objs)
	return m, v
}

// Priority's Admit resolves a pod's priority from its PriorityClass: the
// patch sets what the plugin set and nothing the defaulting added, and an
// unknown class is refused with kube's Status unchanged.
func TestPriorityPatchAndDenial(t *testing.T) {
	high := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	m, v := phases(t, Priority, high)
	if m == nil || v == nil {
		t.Fatalf("Priority's halves: %v, %v", m, v)
	}
	attrs := plugintest.CreatePod(t, pod("ns", corev1.PodSpec{PriorityClassName: "high"}))
	plugintest.Asked(t, Priority.Rules().Mutating, attrs)
	res := plugintest.Admit(t, m, attrs)
	if !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	var ops []map[string]any
	if err := json.Unmarshal(res.Patch, &ops); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, op := range ops {
		paths = append(paths, op["path"].(string))
	}
	// The preemptionPolicy the plugin also sets is the defaulting's already,
	// which the registry applies itself.
	if want := []string{"/spec/priority"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("patch %s touches %v, want only %v", res.Patch, paths, want)
	}
	got := &corev1.Pod{}
	plugintest.Patched(t, attrs, res, got)
	if got.Spec.Priority == nil || *got.Spec.Priority != 1000 {
		t.Errorf("patched spec %+v", got.Spec)
	}

	unknown := plugintest.CreatePod(t, pod("ns", corev1.PodSpec{PriorityClassName: "nope"}))
	res = plugintest.Admit(t, m, unknown)
	want := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: `pods "p" is forbidden: no PriorityClass with name nope was found`,
		Details: &metav1.StatusDetails{Name: "p", Kind: "pods"}}
	if res.Allowed || res.Status == nil || !reflect.DeepEqual(*res.Status, want) {
		t.Errorf("unknown class: %+v, want %+v", res.Status, want)
	}
}

// DefaultTolerationSeconds, kube's plugin through the adapter, adds the
// tolerations a pod lacks with the configured seconds, on create and
// update of pods proper; what the pod already tolerates (by key, or by an
// empty key or effect) is left alone.
func TestDefaultTolerations(t *testing.T) {
	if err := SetTolerationSeconds(300, 60); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = SetTolerationSeconds(300, 300) })
	m, _ := phases(t, DefaultTolerationSeconds)
	s300, s60 := int64(300), int64(60)
	notReady := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &s300}
	unreachable := corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &s60}
	own := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"}
	everything := corev1.Toleration{Operator: "Exists"}
	other := corev1.Toleration{Key: "dedicated", Operator: "Equal", Value: "x", Effect: "NoSchedule"}
	for _, c := range []struct {
		name     string
		in, want []corev1.Toleration
	}{
		{"none", nil, []corev1.Toleration{notReady, unreachable}},
		{"another", []corev1.Toleration{other}, []corev1.Toleration{other, notReady, unreachable}},
		{"its own not-ready", []corev1.Toleration{own}, []corev1.Toleration{own, unreachable}},
		{"every taint", []corev1.Toleration{everything}, []corev1.Toleration{everything}},
	} {
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
			p := pod("ns", corev1.PodSpec{Tolerations: c.in})
			attrs := plugintest.Attrs(t, op, "", "v1", "Pod", "pods", "ns", "p", p, pod("ns", corev1.PodSpec{}))
			plugintest.Asked(t, DefaultTolerationSeconds.Rules().Mutating, attrs)
			res := plugintest.Admit(t, m, attrs)
			got := p
			if len(res.Patch) > 0 {
				got = &corev1.Pod{}
				plugintest.Patched(t, attrs, res, got)
			}
			if !res.Allowed || !reflect.DeepEqual(got.Spec.Tolerations, c.want) {
				t.Errorf("%s, %s: tolerations %+v, want %+v", c.name, op, got.Spec.Tolerations, c.want)
			}
		}
	}
	status := plugintest.Attrs(t, admissionv1.Update, "", "v1", "Pod", "pods", "ns", "p", pod("ns", corev1.PodSpec{}), pod("ns", corev1.PodSpec{}))
	status.SubResource = "status"
	if res := plugintest.Admit(t, m, status); len(res.Patch) != 0 {
		t.Errorf("pods/status patched: %s", res.Patch)
	}
}

// PodSecurity's warnings reach the result (kube sends them as Warning
// headers) and its enforcement is kube's 403.
func TestPodSecurityWarnsAndEnforces(t *testing.T) {
	ns := func(name, mode string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"pod-security.kubernetes.io/" + mode: "restricted"}}}
	}
	m, v := phases(t, PodSecurity, ns("warned", "warn"), ns("enforced", "enforce"))
	if m != nil {
		t.Fatal("PodSecurity has a mutating half")
	}
	privileged := func(namespace string) *corev1.Pod {
		yes := true
		return pod(namespace, corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i",
			SecurityContext: &corev1.SecurityContext{Privileged: &yes}}}})
	}
	res := plugintest.Admit(t, v, plugintest.CreatePod(t, privileged("warned")))
	if !res.Allowed || len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], `would violate PodSecurity "restricted:latest": privileged`) {
		t.Errorf("warn: %+v", res)
	}
	res = plugintest.Admit(t, v, plugintest.CreatePod(t, privileged("enforced")))
	if res.Allowed || res.Status.Code != http.StatusForbidden ||
		!strings.HasPrefix(res.Status.Message, `pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged`) {
		t.Errorf("enforce: %+v", res.Status)
	}
}

// CertificateApproval asks authz, by a SubjectAccessReview about the
// requester, whether they may approve for the signer.
func TestCertificateApprovalAsksAboutTheRequester(t *testing.T) {
	deps, client := plugintest.Deps(t)
	var asked []authorizationv1.SubjectAccessReviewSpec
	client.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sar := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		asked = append(asked, sar.Spec)
		sar.Status.Allowed = sar.Spec.User == "approver"
		return true, sar, nil
	})
	_, v, err := CertificateApproval.NewPhases(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "csr"},
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/s", Request: []byte("x"), Usages: []certificatesv1.KeyUsage{"digital signature"}}}
	approve := func(user string) *admission.Result {
		attrs := plugintest.Attrs(t, admissionv1.Update, "certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", "", "csr", csr, csr)
		attrs.SubResource = "approval"
		attrs.UserInfo = authenticationv1.UserInfo{Username: user, Groups: []string{"g"}}
		plugintest.Asked(t, CertificateApproval.Rules().Validating, attrs)
		return plugintest.Admit(t, v, attrs)
	}
	if res := approve("approver"); !res.Allowed {
		t.Errorf("approver refused: %+v", res.Status)
	}
	res := approve("someone")
	if res.Allowed || res.Status.Message != `certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "example.com/s"` {
		t.Errorf("someone: %+v", res.Status)
	}
	last := asked[len(asked)-1]
	if last.User != "someone" || !reflect.DeepEqual(last.Groups, []string{"g"}) || last.ResourceAttributes == nil ||
		last.ResourceAttributes.Verb != "approve" || last.ResourceAttributes.Resource != "signers" {
		t.Errorf("asked %+v", last)
	}
}

// recorder is a kube plugin keeping the attributes it was given, and
// leaving a warning and an audit annotation.
type recorder struct {
	*kubeadmission.Handler
	got kubeadmission.Attributes
}

func (r *recorder) Validate(ctx context.Context, a kubeadmission.Attributes, _ kubeadmission.ObjectInterfaces) error {
	r.got = a
	warning.AddWarning(ctx, "", "careful")
	return a.AddAnnotation("recorder.example.com/seen", "yes")
}

// What kube's plugins are told about a request is what the registry asked
// about: who, dry run, options, names, and the object as kube's internal
// type; what they leave (warnings, audit annotations) comes back.
func TestAttributesPassThrough(t *testing.T) {
	rec := &recorder{Handler: kubeadmission.NewHandler(kubeadmission.Create)}
	p := Plugin{Name: "Recorder", validating: Priority.validating, register: func(ps *kubeadmission.Plugins) {
		ps.Register("Recorder", func(io.Reader) (kubeadmission.Interface, error) { return rec, nil })
	}}
	_, v := phases(t, p)
	attrs := plugintest.CreatePod(t, pod("ns", corev1.PodSpec{}))
	attrs.DryRun = true
	attrs.Options.Raw = []byte(`{"fieldManager":"me"}`)
	attrs.UserInfo = authenticationv1.UserInfo{Username: "u", UID: "1", Groups: []string{"g"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}}
	res := plugintest.Admit(t, v, attrs)
	if !res.Allowed || !reflect.DeepEqual(res.Warnings, []string{"careful"}) ||
		!reflect.DeepEqual(res.AuditAnnotations, map[string]string{"recorder.example.com/seen": "yes"}) {
		t.Errorf("result %+v", res)
	}
	got := rec.got
	u := got.GetUserInfo()
	if !got.IsDryRun() || u.GetName() != "u" || u.GetUID() != "1" || !reflect.DeepEqual(u.GetGroups(), []string{"g"}) ||
		!reflect.DeepEqual(u.GetExtra(), map[string][]string{"k": {"v"}}) {
		t.Errorf("dry run %t, user %+v", got.IsDryRun(), u)
	}
	if o, ok := got.GetOperationOptions().(*metav1.CreateOptions); !ok || o.FieldManager != "me" {
		t.Errorf("options %#v", got.GetOperationOptions())
	}
	if got.GetNamespace() != "ns" || got.GetName() != "p" || got.GetResource().Resource != "pods" || got.GetKind().Kind != "Pod" {
		t.Errorf("request %s %s/%s %v", got.GetOperation(), got.GetNamespace(), got.GetName(), got.GetResource())
	}
	if obj, ok := got.GetObject().(*api.Pod); !ok || obj.Spec.RestartPolicy != api.RestartPolicyAlways {
		t.Errorf("object %T, not kube's defaulted internal Pod", got.GetObject())
	}
	// An operation the plugin does not handle is not passed on.
	rec.got = nil
	del := plugintest.Attrs(t, admissionv1.Delete, "", "v1", "Pod", "pods", "ns", "p", nil, pod("ns", corev1.PodSpec{}))
	if res := plugintest.Admit(t, v, del); !res.Allowed || rec.got != nil {
		t.Errorf("delete: %+v, plugin called: %t", res, rec.got != nil)
	}
}

// A kind kube has no type for (a custom resource) reaches kube's plugins
// unstructured, in its served version, as in kube, and what a plugin
// changes in it comes back as a patch.
func TestCustomObject(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "e2e.example.com", Version: "v1", Kind: "Widget"}
	raw := []byte(`{"apiVersion":"e2e.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"n":1}}`)
	obj, err := kubeobject.Internal(raw, gvk)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GroupVersionKind() != gvk || u.GetName() != "w" {
		t.Fatalf("got %T %v", obj, obj)
	}
	before, err := kubeobject.ExternalJSON(u.DeepCopy(), gvk.GroupVersion())
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, "M", "spec", "size"); err != nil {
		t.Fatal(err)
	}
	after, err := kubeobject.ExternalJSON(u, gvk.GroupVersion())
	if err != nil {
		t.Fatal(err)
	}
	patch, err := plugin.PatchFor(raw, before, after)
	if err != nil {
		t.Fatal(err)
	}
	res, err := patch.Result()
	if err != nil || string(res.Patch) != `[{"op":"add","path":"/spec/size","value":"M"}]` {
		t.Errorf("patch %s, %v", res.Patch, err)
	}
}
