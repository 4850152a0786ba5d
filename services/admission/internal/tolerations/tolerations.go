// Package tolerations is kube's DefaultTolerationSeconds admission plugin
// (plugin/pkg/admission/defaulttolerationseconds): a pod that does not
// tolerate its node becoming not-ready or unreachable is given tolerations
// of both for 300 seconds, so that it is evicted five minutes after its
// node is lost rather than at once.
package tolerations

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "DefaultTolerationSeconds"

// Seconds is kube's default for both tolerations
// (--default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds).
const Seconds = 300

// New returns the plugin; it needs nothing from deps.
func New(plugin.Deps) (admission.Admitter, error) {
	return admission.Mutating(admission.AdmitterFunc(admit)), nil
}

// Rules are what admit looks at: pods created and updated.
func Rules() admission.Rules {
	return admission.Rules{Mutating: []admission.Rule{
		plugin.Rule("", []string{"pods"}, admissionregistrationv1.Create, admissionregistrationv1.Update),
	}}
}

// admit adds the tolerations the pod lacks, as kube's plugin does on
// create and update of pods proper (not their subresources).
func admit(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
	if !plugin.IsResource(a, "", "pods") || a.SubResource != "" {
		return admission.Allow(), nil
	}
	pod := &corev1.Pod{}
	if ok, err := plugin.Decode(a.Object.Raw, pod); !ok || err != nil {
		return admission.Allow(), err
	}
	var patch plugin.Patch
	have := len(pod.Spec.Tolerations) > 0
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if tolerates(pod.Spec.Tolerations, key) {
			continue
		}
		t := toleration(key)
		if have {
			patch.Add("/spec/tolerations/-", t)
		} else {
			patch.Add("/spec/tolerations", []corev1.Toleration{t})
			have = true
		}
	}
	return patch.Result()
}

// tolerates reports whether one of ts tolerates the NoExecute taint key, as
// kube's plugin reads them: an empty key or effect matches any.
func tolerates(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
			return true
		}
	}
	return false
}

// toleration is the default toleration of the NoExecute taint key.
func toleration(key string) corev1.Toleration {
	s := int64(Seconds)
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s}
}
