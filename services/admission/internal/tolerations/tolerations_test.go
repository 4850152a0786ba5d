package tolerations

import (
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

func podWith(ts ...corev1.Toleration) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}, Tolerations: ts}}
}

// The tolerations a pod lacks are added, as kube-apiserver v1.37.2 adds
// them; what it already tolerates (by key, or by an empty key or effect)
// is left alone.
func TestDefaultTolerations(t *testing.T) {
	a, err := New(plugin.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	s := int64(300)
	notReady := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &s}
	unreachable := corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &s}
	own := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"}
	everything := corev1.Toleration{Operator: "Exists"}
	other := corev1.Toleration{Key: "dedicated", Operator: "Equal", Value: "x", Effect: "NoSchedule"}
	for _, c := range []struct {
		name string
		in   []corev1.Toleration
		want []corev1.Toleration
	}{
		{"none", nil, []corev1.Toleration{notReady, unreachable}},
		{"another", []corev1.Toleration{other}, []corev1.Toleration{other, notReady, unreachable}},
		{"its own not-ready", []corev1.Toleration{own}, []corev1.Toleration{own, unreachable}},
		{"every taint", []corev1.Toleration{everything}, []corev1.Toleration{everything}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				p := podWith(c.in...)
				attrs := plugintest.Attrs(t, op, "", "v1", "Pod", "pods", "ns", "p", p, podWith())
				plugintest.Asked(t, Rules().Mutating, attrs)
				res := plugintest.Admit(t, a, attrs)
				got := &corev1.Pod{}
				if len(res.Patch) == 0 {
					got = p
				} else {
					plugintest.Patched(t, attrs, res, got)
				}
				if !res.Allowed || !reflect.DeepEqual(got.Spec.Tolerations, c.want) {
					t.Errorf("%s: tolerations %+v, want %+v", op, got.Spec.Tolerations, c.want)
				}
			}
		})
	}
	// Subresources (a pod's status) are left alone.
	status := plugintest.Attrs(t, admissionv1.Update, "", "v1", "Pod", "pods", "ns", "p", podWith(), podWith())
	status.SubResource = "status"
	if res := plugintest.Admit(t, a, status); len(res.Patch) != 0 {
		t.Errorf("pods/status patched: %s", res.Patch)
	}
}
