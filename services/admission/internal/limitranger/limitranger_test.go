package limitranger

import (
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

func list(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func limitRange(name string, items ...corev1.LimitRangeItem) *corev1.LimitRange {
	return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.LimitRangeSpec{Limits: items}}
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "nginx", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func pod(containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.PodSpec{Containers: containers}}
}

// mutated is the pod after the mutating half.
func mutated(t *testing.T, m admission.Admitter, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	attrs := plugintest.CreatePod(t, p)
	res := plugintest.Admit(t, m, attrs)
	if !res.Allowed {
		t.Fatalf("mutating half denied: %+v", res.Status)
	}
	out := &corev1.Pod{}
	plugintest.Patched(t, attrs, res, out)
	return out
}

func equal(t *testing.T, what string, got, want corev1.ResourceList) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g.Cmp(w) != 0 {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
		Default: list("cpu", "500m", "memory", "256Mi"), DefaultRequest: list("cpu", "100m")})
	m, _, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	p := pod(container("bare", nil, nil), container("limited", nil, list("cpu", "1")), container("full", list("cpu", "1", "memory", "1Gi"), list("cpu", "1", "memory", "1Gi")))
	p.Spec.InitContainers = []corev1.Container{container("init", nil, nil)}
	out := mutated(t, m, p)
	equal(t, "bare requests", out.Spec.Containers[0].Resources.Requests, list("cpu", "100m", "memory", "256Mi"))
	equal(t, "bare limits", out.Spec.Containers[0].Resources.Limits, list("cpu", "500m", "memory", "256Mi"))
	// A limit without a request makes the request, as kube's defaulting
	// would before admission, not the range's default request.
	equal(t, "limited requests", out.Spec.Containers[1].Resources.Requests, list("cpu", "1", "memory", "256Mi"))
	equal(t, "limited limits", out.Spec.Containers[1].Resources.Limits, list("cpu", "1", "memory", "256Mi"))
	equal(t, "full requests", out.Spec.Containers[2].Resources.Requests, list("cpu", "1", "memory", "1Gi"))
	equal(t, "init limits", out.Spec.InitContainers[0].Resources.Limits, list("cpu", "500m", "memory", "256Mi"))
	want := "LimitRanger plugin set: cpu, memory request for container bare; cpu, memory limit for container bare; " +
		"cpu, memory request for container limited; memory limit for container limited; " +
		"cpu, memory request for init container init; cpu, memory limit for init container init"
	if got := out.Annotations[annotation]; got != want {
		t.Fatalf("annotation %q\nwant %q", got, want)
	}
}

// The annotation joins existing ones; a pod needing nothing is unchanged.
func TestDefaultsPatchShape(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Default: list("cpu", "1")})
	m, _, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	p := pod(container("c", nil, nil))
	p.Annotations = map[string]string{"keep": "me"}
	out := mutated(t, m, p)
	if out.Annotations["keep"] != "me" || out.Annotations[annotation] == "" {
		t.Fatalf("annotations %v", out.Annotations)
	}
	res := plugintest.Admit(t, m, plugintest.CreatePod(t, pod(container("c", list("cpu", "1"), list("cpu", "1")))))
	if !res.Allowed || len(res.Patch) != 0 {
		t.Fatalf("got %+v", res)
	}
}

// A range with only max gets kube's item defaults: the default limit and
// request are the max.
func TestItemDefaultsFromMax(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Max: list("cpu", "2")})
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	out := mutated(t, m, pod(container("c", nil, nil)))
	equal(t, "limits", out.Spec.Containers[0].Resources.Limits, list("cpu", "2"))
	equal(t, "requests", out.Spec.Containers[0].Resources.Requests, list("cpu", "2"))
	if res := plugintest.Admit(t, v, plugintest.CreatePod(t, out)); !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
}

func TestValidation(t *testing.T) {
	lr := limitRange("lr",
		corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Min: list("memory", "64Mi"), Max: list("cpu", "1"), MaxLimitRequestRatio: list("cpu", "2")},
		corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: list("cpu", "1500m")})
	_, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	ok := func(name string) corev1.Container {
		return container(name, list("cpu", "500m", "memory", "64Mi"), list("cpu", "1", "memory", "64Mi"))
	}
	cases := []struct {
		name    string
		pod     *corev1.Pod
		message string
	}{
		{"within", pod(ok("a")), ""},
		{"above max", pod(container("a", list("cpu", "1500m", "memory", "64Mi"), list("cpu", "2", "memory", "64Mi"))),
			`pods "web" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, maximum cpu usage per Pod is 1500m, but limit is 2]`},
		{"no limit under max", pod(container("a", list("cpu", "500m", "memory", "64Mi"), nil)),
			`pods "web" is forbidden: [maximum cpu usage per Container is 1.  No limit is specified, cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0, maximum cpu usage per Pod is 1500m.  No limit is specified]`},
		{"below min", pod(container("a", list("cpu", "500m", "memory", "32Mi"), list("cpu", "1", "memory", "32Mi"))),
			`pods "web" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi`},
		{"ratio", pod(container("a", list("cpu", "100m", "memory", "64Mi"), list("cpu", "500m", "memory", "64Mi"))),
			`pods "web" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000`},
		{"pod total", pod(ok("a"), ok("b")),
			`pods "web" is forbidden: maximum cpu usage per Pod is 1500m, but limit is 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := plugintest.Admit(t, v, plugintest.CreatePod(t, c.pod))
			if c.message == "" {
				if !res.Allowed {
					t.Fatalf("denied: %+v", res.Status)
				}
				return
			}
			if res.Allowed || res.Status.Code != http.StatusForbidden || res.Status.Message != c.message {
				t.Fatalf("got %+v\nwant %q", res.Status, c.message)
			}
		})
	}
}

// Init containers count alone against the Pod total (they run before the
// others), and are checked as containers.
func TestPodTotalsWithInitContainers(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: list("cpu", "1")})
	_, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	p := pod(container("a", nil, list("cpu", "500m")), container("b", nil, list("cpu", "500m")))
	p.Spec.InitContainers = []corev1.Container{container("init", nil, list("cpu", "1"))}
	if res := plugintest.Admit(t, v, plugintest.CreatePod(t, p)); !res.Allowed {
		t.Fatalf("denied: %+v", res.Status)
	}
	p.Spec.InitContainers[0].Resources.Limits = list("cpu", "2")
	if res := plugintest.Admit(t, v, plugintest.CreatePod(t, p)); res.Allowed {
		t.Fatal("allowed an init container above the pod max")
	}
}

func claim(storage string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: list("storage", storage)}}}
}

func TestClaims(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim, Min: list("storage", "1Gi"), Max: list("storage", "10Gi")})
	_, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	attrs := func(op admissionv1.Operation, c, old *corev1.PersistentVolumeClaim) *admission.Attributes {
		var o any
		if old != nil {
			o = old
		}
		return plugintest.Attrs(t, op, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "ns", "data", c, o)
	}
	deleting := claim("5Gi")
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	cases := []struct {
		name    string
		attrs   *admission.Attributes
		message string
	}{
		{"within", attrs(admissionv1.Create, claim("5Gi"), nil), ""},
		{"above max", attrs(admissionv1.Create, claim("20Gi"), nil),
			`persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi`},
		{"below min", attrs(admissionv1.Create, claim("500Mi"), nil),
			`persistentvolumeclaims "data" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi`},
		{"resized above max", attrs(admissionv1.Update, claim("20Gi"), claim("5Gi")),
			`persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi`},
		{"being deleted", attrs(admissionv1.Update, claim("20Gi"), deleting), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := plugintest.Admit(t, v, c.attrs)
			if c.message == "" != res.Allowed || (c.message != "" && res.Status.Message != c.message) {
				t.Fatalf("got %+v\nwant %q", res, c.message)
			}
		})
	}
}

// Pod updates, subresources and other kinds are not checked.
func TestIgnored(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Max: list("cpu", "1")})
	m, v, _ := plugintest.Phases(t, NewPhases, []runtime.Object{lr})
	big := pod(container("a", list("cpu", "4"), list("cpu", "4")))
	sub := plugintest.CreatePod(t, big)
	sub.SubResource = "ephemeralcontainers"
	for _, attrs := range []*admission.Attributes{
		plugintest.Attrs(t, admissionv1.Update, "", "v1", "Pod", "pods", "ns", "web", big, big),
		plugintest.Attrs(t, admissionv1.Delete, "", "v1", "Pod", "pods", "ns", "web", nil, big),
		plugintest.Attrs(t, admissionv1.Create, "apps", "v1", "Deployment", "deployments", "ns", "d", map[string]any{}, nil),
		sub,
	} {
		for _, a := range []admission.Admitter{m, v} {
			if res := plugintest.Admit(t, a, attrs); !res.Allowed || len(res.Patch) > 0 {
				t.Fatalf("%s %s: %+v", attrs.Operation, attrs.Kind.Kind, res)
			}
		}
	}
}

// A range the informer has not seen yet is listed from the API, and the
// list is reused for a while.
func TestLiveLookup(t *testing.T) {
	lr := limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Max: list("cpu", "1")})
	_, v, client := plugintest.Phases(t, NewPhases, nil, lr)
	big := pod(container("a", list("cpu", "4"), list("cpu", "4")))
	for i := 0; i < 3; i++ {
		if res := plugintest.Admit(t, v, plugintest.CreatePod(t, big)); res.Allowed {
			t.Fatal("allowed a pod above a range only the API has")
		}
	}
	lists := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "limitranges" {
			lists++
		}
	}
	if lists != 1 {
		t.Fatalf("%d live lists, want 1", lists)
	}
}

func TestNew(t *testing.T) {
	deps, _ := plugintest.Deps(t, limitRange("lr", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Max: list("cpu", "1"), Default: list("cpu", "2")}))
	a, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Start(t, deps)
	// The default (2) is above the max (1): the chain defaults, then
	// refuses, as kube does with such a range.
	res := plugintest.Admit(t, a, plugintest.CreatePod(t, pod(container("c", nil, nil))))
	if res.Allowed || res.Status.Message != `pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2` {
		t.Fatalf("got %+v", res.Status)
	}
}
