package limitranger

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// annotation records on the pod what the plugin defaulted, as kube does.
const annotation = "kubernetes.io/limit-ranger"

// defaultPod is the patch giving each container of pod the Container
// defaults it lacks, and the annotation saying so.
func defaultPod(pod *corev1.Pod, ranges []corev1.LimitRange) plugin.Patch {
	def := containerDefaults(ranges)
	var patch plugin.Patch
	var notes []string
	groups := []struct {
		path, label string
		containers  []corev1.Container
	}{
		{"/spec/containers", "container", pod.Spec.Containers},
		{"/spec/initContainers", "init container", pod.Spec.InitContainers},
	}
	for _, g := range groups {
		for i := range g.containers {
			c := &g.containers[i]
			set := mergeResources(c, def, g.label)
			if len(set) > 0 {
				notes = append(notes, set...)
				patch.Add(fmt.Sprintf("%s/%d/resources", g.path, i), c.Resources)
			}
		}
	}
	if len(notes) > 0 {
		addAnnotation(&patch, pod, "LimitRanger plugin set: "+strings.Join(notes, "; "))
	}
	return patch
}

// containerDefaults gathers the default requests and limits of every
// Container item; a later range overrides an earlier one, as in kube.
func containerDefaults(ranges []corev1.LimitRange) corev1.ResourceRequirements {
	def := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, r := range ranges {
		for _, item := range r.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			for k, v := range item.DefaultRequest {
				def.Requests[k] = v.DeepCopy()
			}
			for k, v := range item.Default {
				def.Limits[k] = v.DeepCopy()
			}
		}
	}
	return def
}

// mergeResources sets the defaults c lacks and returns kube's notes on
// what it set. A limit without a request first gets the request equal to
// the limit: kube-apiserver's pod defaulting does that before admission,
// kubesplit's registry only after, and the defaults must not override it.
func mergeResources(c *corev1.Container, def corev1.ResourceRequirements, label string) []string {
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	var setRequests, setLimits []string
	for k, v := range def.Limits {
		if _, ok := c.Resources.Limits[k]; !ok {
			c.Resources.Limits[k] = v.DeepCopy()
			setLimits = append(setLimits, string(k))
		}
	}
	for k, v := range def.Requests {
		if _, ok := c.Resources.Requests[k]; ok {
			continue
		}
		if lim, ok := c.Resources.Limits[k]; ok && !contains(setLimits, string(k)) {
			v = lim // the user's limit, which defaulting makes the request
		}
		c.Resources.Requests[k] = v.DeepCopy()
		setRequests = append(setRequests, string(k))
	}
	var notes []string
	if len(setRequests) > 0 {
		sort.Strings(setRequests)
		notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(setRequests, ", "), label, c.Name))
	}
	if len(setLimits) > 0 {
		sort.Strings(setLimits)
		notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(setLimits, ", "), label, c.Name))
	}
	return notes
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// addAnnotation sets the limit-ranger annotation, creating the map when the
// pod has none (a JSON patch cannot add below a missing key).
func addAnnotation(patch *plugin.Patch, pod *corev1.Pod, value string) {
	if pod.Annotations == nil {
		patch.Add("/metadata/annotations", map[string]string{annotation: value})
		return
	}
	patch.Add("/metadata/annotations/"+plugin.Pointer(annotation), value)
}
