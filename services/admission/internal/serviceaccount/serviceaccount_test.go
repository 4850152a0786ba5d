package serviceaccount

import (
	"context"
	"errors"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

func sa(name string, pullSecrets ...string) *corev1.ServiceAccount {
	s := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	for _, p := range pullSecrets {
		s.ImagePullSecrets = append(s.ImagePullSecrets, corev1.LocalObjectReference{Name: p})
	}
	return s
}

func pod(edit func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if edit != nil {
		edit(p)
	}
	return p
}

// both runs the halves as the registry does (mutate, apply, validate) and
// returns the final pod, or the denial.
func both(t *testing.T, m, v admission.Admitter, attrs *admission.Attributes) (*corev1.Pod, *admission.Result) {
	t.Helper()
	res := plugintest.Admit(t, m, attrs)
	if !res.Allowed {
		return nil, res
	}
	out := &corev1.Pod{}
	plugintest.Patched(t, attrs, res, out)
	final := plugintest.Attrs(t, attrs.Operation, "", "v1", "Pod", "pods", "ns", out.Name, out, nil)
	if res := plugintest.Admit(t, v, final); !res.Allowed {
		return nil, res
	}
	return out, nil
}

func TestDefaultsServiceAccount(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	out, denial := both(t, m, v, plugintest.CreatePod(t, pod(nil)))
	if denial != nil {
		t.Fatalf("denied: %+v", denial.Status)
	}
	if out.Spec.ServiceAccountName != "default" {
		t.Fatalf("serviceAccountName %q", out.Spec.ServiceAccountName)
	}
}

func TestNamedAccount(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default"), sa("builder")})
	out, denial := both(t, m, v, plugintest.CreatePod(t, pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "builder" })))
	if denial != nil || out.Spec.ServiceAccountName != "builder" {
		t.Fatalf("got %+v, %+v", out, denial)
	}
}

func TestMissingAccountIsForbidden(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	_, denial := both(t, m, v, plugintest.CreatePod(t, pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "ghost" })))
	want := `pods "web" is forbidden: error looking up service account ns/ghost: serviceaccounts "ghost" not found`
	if denial == nil || denial.Status.Code != http.StatusForbidden || denial.Status.Message != want {
		t.Fatalf("got %+v", denial)
	}
}

// The default account is waited for a little (a controller creates it),
// as kube does: several lookups, then the denial.
func TestMissingDefaultAccountRetried(t *testing.T) {
	m, _, client := plugintest.Phases(t, NewPhases, nil)
	res := plugintest.Admit(t, m, plugintest.CreatePod(t, pod(nil)))
	want := `pods "web" is forbidden: error looking up service account ns/default: serviceaccounts "default" not found`
	if res.Allowed || res.Status.Message != want {
		t.Fatalf("got %+v", res.Status)
	}
	gets := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "serviceaccounts" {
			gets++
		}
	}
	if gets != defaultAttempts {
		t.Fatalf("%d live lookups, want %d", gets, defaultAttempts)
	}
}

// An account the informer has not seen yet is found in the API.
func TestLiveLookup(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, nil, sa("fresh"))
	out, denial := both(t, m, v, plugintest.CreatePod(t, pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "fresh" })))
	if denial != nil || out.Spec.ServiceAccountName != "fresh" {
		t.Fatalf("got %+v, %+v", out, denial)
	}
}

func TestLiveLookupError(t *testing.T) {
	m, _, client := plugintest.Phases(t, NewPhases, nil, sa("other"))
	client.PrependReactor("get", "serviceaccounts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	res, err := m.Admit(context.Background(), plugintest.CreatePod(t, pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "x" })))
	if err == nil || res != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestImagePullSecrets(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default", "regcred", "other")})
	out, denial := both(t, m, v, plugintest.CreatePod(t, pod(nil)))
	if denial != nil || len(out.Spec.ImagePullSecrets) != 2 || out.Spec.ImagePullSecrets[0].Name != "regcred" {
		t.Fatalf("got %+v, %+v", out, denial)
	}
	own := pod(func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "mine"}} })
	out, denial = both(t, m, v, plugintest.CreatePod(t, own))
	if denial != nil || len(out.Spec.ImagePullSecrets) != 1 || out.Spec.ImagePullSecrets[0].Name != "mine" {
		t.Fatalf("got %+v, %+v", out, denial)
	}
}

// The validating half checks the final pod: another mutating plugin may
// have emptied or changed the account.
func TestValidateFinalPod(t *testing.T) {
	_, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	res := plugintest.Admit(t, v, plugintest.CreatePod(t, pod(nil)))
	if res.Allowed || res.Status.Message != `pods "web" is forbidden: no service account specified for pod ns/web` {
		t.Fatalf("got %+v", res.Status)
	}
	res = plugintest.Admit(t, v, plugintest.CreatePod(t, pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "ghost" })))
	if res.Allowed {
		t.Fatal("allowed a pod naming a missing account")
	}
}

func TestMirrorPods(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{sa("default")})
	mirror := func(edit func(*corev1.Pod)) *corev1.Pod {
		return pod(func(p *corev1.Pod) {
			p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
			if edit != nil {
				edit(p)
			}
		})
	}
	cases := []struct {
		name    string
		pod     *corev1.Pod
		message string
	}{
		{"plain", mirror(nil), ""},
		{"account", mirror(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "default" }), `pods "web" is forbidden: a mirror pod may not reference service accounts`},
		{"secret volume", mirror(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}}
		}), `pods "web" is forbidden: a mirror pod may not reference secrets`},
		{"secret env", mirror(func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}}}
		}), `pods "web" is forbidden: a mirror pod may not reference secrets`},
		{"token projection", mirror(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}}}
		}), `pods "web" is forbidden: a mirror pod may not use ServiceAccountToken volume projections`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, denial := both(t, m, v, plugintest.CreatePod(t, c.pod))
			switch {
			case c.message == "" && denial != nil:
				t.Fatalf("denied: %+v", denial.Status)
			case c.message == "" && out.Spec.ServiceAccountName != "":
				t.Fatalf("mirror pod got account %q", out.Spec.ServiceAccountName)
			case c.message != "" && (denial == nil || denial.Status.Message != c.message):
				t.Fatalf("got %+v, want %q", denial, c.message)
			}
		})
	}
}

// Other resources, subresources and updates are not the plugin's business.
func TestIgnored(t *testing.T) {
	m, v, _ := plugintest.Phases(t, NewPhases, nil)
	p := pod(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "ghost" })
	status := plugintest.Attrs(t, admissionv1.Create, "", "v1", "Pod", "pods", "ns", "web", p, nil)
	status.SubResource = "binding"
	for _, attrs := range []*admission.Attributes{
		plugintest.Attrs(t, admissionv1.Update, "", "v1", "Pod", "pods", "ns", "web", p, p),
		plugintest.Attrs(t, admissionv1.Delete, "", "v1", "Pod", "pods", "ns", "web", nil, p),
		plugintest.Attrs(t, admissionv1.Create, "", "v1", "ConfigMap", "configmaps", "ns", "c", map[string]any{}, nil),
		status,
	} {
		for _, a := range []admission.Admitter{m, v} {
			if res := plugintest.Admit(t, a, attrs); !res.Allowed || len(res.Patch) > 0 {
				t.Fatalf("%s %s/%s: %+v", attrs.Operation, attrs.Resource.Resource, attrs.SubResource, res)
			}
		}
	}
}

// A pod that is not JSON is no answer, not an allow.
func TestMalformedPod(t *testing.T) {
	m, _, _ := plugintest.Phases(t, NewPhases, nil)
	attrs := plugintest.CreatePod(t, pod(nil))
	attrs.Object.Raw = []byte(`{"spec": [}`)
	if res, err := m.Admit(context.Background(), attrs); err == nil {
		t.Fatalf("got %+v", res)
	}
}

// New chains both halves: a pod gets its account and is checked.
func TestNew(t *testing.T) {
	deps, _ := plugintest.Deps(t, sa("default"))
	a, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	if admission.PhaseOf(a) != admission.PhaseMutating {
		t.Fatal("New is not mutating")
	}
	attrs := plugintest.CreatePod(t, pod(nil))
	out := &corev1.Pod{}
	plugintest.Patched(t, attrs, plugintest.Admit(t, a, attrs), out)
	if out.Spec.ServiceAccountName != "default" {
		t.Fatalf("got %q", out.Spec.ServiceAccountName)
	}
}
