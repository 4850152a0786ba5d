package validation

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DefaultPod fills in kube's v1 defaults for a Pod: those of any pod spec,
// the ones kube applies to Pods only (enableServiceLinks, requests copied
// from limits, host ports under hostNetwork), and the status a new pod
// starts with.
func DefaultPod(obj *unstructured.Unstructured) {
	spec := ensureMap(obj.Object, "spec")
	if spec == nil {
		return
	}
	defaultPodSpec(spec)
	setDefault(spec, "enableServiceLinks", true)
	for _, key := range []string{"initContainers", "containers"} {
		for _, ctr := range mapsAt(spec, key) {
			defaultRequestsFromLimits(mapAt(ctr, "resources"))
			if hostNetwork, _ := spec["hostNetwork"].(bool); hostNetwork {
				defaultHostPorts(ctr)
			}
		}
	}
	status := ensureMap(obj.Object, "status")
	setDefault(status, "phase", "Pending")
	if status != nil && isUnset(status, "qosClass") {
		if qos, ok := podQOSClass(obj); ok {
			status["qosClass"] = string(qos)
		}
	}
}

// defaultPodSpec applies the defaults of every pod spec, a Pod's or a
// template's.
func defaultPodSpec(spec map[string]any) {
	setDefault(spec, "dnsPolicy", "ClusterFirst")
	setDefault(spec, "restartPolicy", "Always")
	setDefault(spec, "schedulerName", "default-scheduler")
	setDefault(spec, "terminationGracePeriodSeconds", int64(30))
	setDefault(spec, "securityContext", map[string]any{})
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for _, ctr := range mapsAt(spec, key) {
			defaultContainer(ctr)
		}
	}
	for _, vol := range mapsAt(spec, "volumes") {
		defaultVolume(vol)
	}
}

// defaultContainer applies a container's defaults.
func defaultContainer(ctr map[string]any) {
	setDefault(ctr, "imagePullPolicy", pullPolicyFor(stringAt(ctr, "image")))
	setDefault(ctr, "terminationMessagePath", "/dev/termination-log")
	setDefault(ctr, "terminationMessagePolicy", "File")
	for _, port := range mapsAt(ctr, "ports") {
		setDefault(port, "protocol", "TCP")
	}
	for _, key := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		defaultProbe(mapAt(ctr, key))
	}
	lifecycle := mapAt(ctr, "lifecycle")
	defaultHTTPGet(mapAt(mapAt(lifecycle, "postStart"), "httpGet"))
	defaultHTTPGet(mapAt(mapAt(lifecycle, "preStop"), "httpGet"))
	for _, env := range mapsAt(ctr, "env") {
		setDefault(mapAt(mapAt(env, "valueFrom"), "fieldRef"), "apiVersion", "v1")
	}
}

// pullPolicyFor is kube's default pull policy: Always for an image tagged
// latest, or with neither tag nor digest (which means latest); IfNotPresent
// otherwise.
func pullPolicyFor(image string) string {
	if image == "" {
		return "IfNotPresent"
	}
	name, _, hasDigest := strings.Cut(image, "@")
	tag := imageTag(name)
	if tag == "latest" || (tag == "" && !hasDigest) {
		return "Always"
	}
	return "IfNotPresent"
}

// imageTag returns the tag of an image reference without digest. The tag is
// after a colon in the last path element; an earlier colon is a registry
// port (localhost:5000/app).
func imageTag(ref string) string {
	last := ref[strings.LastIndex(ref, "/")+1:]
	if _, tag, ok := strings.Cut(last, ":"); ok {
		return tag
	}
	return ""
}

// defaultProbe applies a probe's defaults. Kube tests these for zero, so
// an explicit 0 is defaulted too.
func defaultProbe(probe map[string]any) {
	if probe == nil {
		return
	}
	setDefaultNonZero(probe, "timeoutSeconds", 1)
	setDefaultNonZero(probe, "periodSeconds", 10)
	setDefaultNonZero(probe, "successThreshold", 1)
	setDefaultNonZero(probe, "failureThreshold", 3)
	defaultHTTPGet(mapAt(probe, "httpGet"))
}

// defaultHTTPGet applies the defaults of an HTTP probe or hook.
func defaultHTTPGet(get map[string]any) {
	setDefault(get, "path", "/")
	setDefault(get, "scheme", "HTTP")
}

// setDefaultNonZero is setDefault for int fields whose zero means unset.
func setDefaultNonZero(m map[string]any, key string, v int64) {
	if cur, ok := m[key]; !ok || cur == nil || isZeroNumber(cur) {
		m[key] = v
	}
}

// volumeModeDefaulted are the volume sources that carry a defaultMode.
var volumeModeDefaulted = []string{"secret", "configMap", "downwardAPI", "projected"}

// defaultVolume applies a volume's defaults: a volume with no source is an
// emptyDir, and file-projecting sources get mode 0644.
func defaultVolume(vol map[string]any) {
	hasSource := false
	for key, v := range vol {
		if key != "name" && v != nil {
			hasSource = true
		}
	}
	if !hasSource {
		vol["emptyDir"] = map[string]any{}
	}
	for _, key := range volumeModeDefaulted {
		setDefault(mapAt(vol, key), "defaultMode", int64(0o644))
	}
	setDefault(mapAt(vol, "hostPath"), "type", "")
}

// defaultRequestsFromLimits copies each limit to a missing request, so a
// container that only sets limits is scheduled by them.
func defaultRequestsFromLimits(resources map[string]any) {
	limits := mapAt(resources, "limits")
	if limits == nil {
		return
	}
	requests := ensureMap(resources, "requests")
	if requests == nil {
		return
	}
	for name, q := range limits {
		if _, ok := requests[name]; !ok {
			requests[name] = q
		}
	}
}

// defaultHostPorts sets each port's hostPort to its containerPort: with
// host networking the two are the same port.
func defaultHostPorts(ctr map[string]any) {
	for _, port := range mapsAt(ctr, "ports") {
		if hp, ok := port["hostPort"]; !ok || hp == nil || isZeroNumber(hp) {
			if cp, ok := port["containerPort"]; ok {
				port["hostPort"] = cp
			}
		}
	}
}
