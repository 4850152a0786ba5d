package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateContainers checks that a pod has containers and each one of every
// kind. Names are unique across all kinds; regular containers come first so
// that a clash is reported on the init or ephemeral container, as kube does.
func validateContainers(spec *corev1.PodSpec, volumes map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), ""))
	}
	names := map[string]bool{}
	for i := range spec.Containers {
		errs = append(errs, validateContainer(&spec.Containers[i], volumes, names, path.Child("containers").Index(i))...)
	}
	for i := range spec.InitContainers {
		errs = append(errs, validateContainer(&spec.InitContainers[i], volumes, names, path.Child("initContainers").Index(i))...)
	}
	for i := range spec.EphemeralContainers {
		ctr := (*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon)
		errs = append(errs, validateContainer(ctr, volumes, names, path.Child("ephemeralContainers").Index(i))...)
	}
	return errs
}

// validateContainer checks one container; names collects the names seen so
// far in the pod.
func validateContainer(ctr *corev1.Container, volumes, names map[string]bool, path *field.Path) field.ErrorList {
	errs := validateContainerName(ctr.Name, names, path.Child("name"))
	switch {
	case ctr.Image == "":
		errs = append(errs, field.Required(path.Child("image"), ""))
	case ctr.Image != strings.TrimSpace(ctr.Image):
		errs = append(errs, field.Invalid(path.Child("image"), ctr.Image, "must not have leading or trailing whitespace"))
	}
	errs = append(errs, oneOf(ctr.ImagePullPolicy, path.Child("imagePullPolicy"),
		corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever)...)
	errs = append(errs, oneOf(ctr.TerminationMessagePolicy, path.Child("terminationMessagePolicy"),
		corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError)...)
	errs = append(errs, validateContainerPorts(ctr.Ports, path.Child("ports"))...)
	errs = append(errs, validateEnv(ctr.Env, path.Child("env"))...)
	errs = append(errs, validateVolumeMounts(ctr.VolumeMounts, volumes, path.Child("volumeMounts"))...)
	errs = append(errs, validateResourceRequirements(&ctr.Resources, path.Child("resources"))...)
	errs = append(errs, validateProbe(ctr.LivenessProbe, true, path.Child("livenessProbe"))...)
	errs = append(errs, validateProbe(ctr.ReadinessProbe, false, path.Child("readinessProbe"))...)
	return append(errs, validateProbe(ctr.StartupProbe, true, path.Child("startupProbe"))...)
}

// validateContainerName checks a container name: required, a DNS label,
// and unique in the pod.
func validateContainerName(name string, names map[string]bool, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	errs := dnsLabel(name, path)
	if names[name] {
		errs = append(errs, field.Duplicate(path, name))
	}
	names[name] = true
	return errs
}

// validateContainerPorts checks port names (unique), numbers and protocols.
func validateContainerPorts(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		idx := path.Index(i)
		if port.Name != "" {
			errs = append(errs, invalidEach(idx.Child("name"), port.Name, validation.IsValidPortName(port.Name))...)
			if names[port.Name] {
				errs = append(errs, field.Duplicate(idx.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(idx.Child("containerPort"), ""))
		} else {
			errs = append(errs, invalidEach(idx.Child("containerPort"), port.ContainerPort, validation.IsValidPortNum(int(port.ContainerPort)))...)
		}
		if port.HostPort != 0 {
			errs = append(errs, invalidEach(idx.Child("hostPort"), port.HostPort, validation.IsValidPortNum(int(port.HostPort)))...)
		}
		errs = append(errs, validateProtocol(port.Protocol, idx.Child("protocol"))...)
	}
	return errs
}

// validateProtocol checks a port protocol, for containers and services.
func validateProtocol(protocol corev1.Protocol, path *field.Path) field.ErrorList {
	return oneOf(protocol, path, corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP)
}

// validateEnv checks environment variable names. Kube accepts any printable
// ASCII but "=" since relaxed names became the default.
func validateEnv(vars []corev1.EnvVar, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range vars {
		namePath := path.Index(i).Child("name")
		if ev.Name == "" {
			errs = append(errs, field.Required(namePath, ""))
			continue
		}
		errs = append(errs, invalidEach(namePath, ev.Name, validation.IsRelaxedEnvVarName(ev.Name))...)
	}
	return errs
}

// validateVolumeMounts checks that each mount names a volume of the pod and
// has a unique mount path.
func validateVolumeMounts(mounts []corev1.VolumeMount, volumes map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range mounts {
		idx := path.Index(i)
		switch {
		case m.Name == "":
			errs = append(errs, field.Required(idx.Child("name"), ""))
		case !volumes[m.Name]:
			errs = append(errs, field.NotFound(idx.Child("name"), m.Name))
		}
		switch {
		case m.MountPath == "":
			errs = append(errs, field.Required(idx.Child("mountPath"), ""))
		case paths[m.MountPath]:
			errs = append(errs, field.Invalid(idx.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths[m.MountPath] = true
	}
	return errs
}

// validateProbe checks that a probe has exactly one handler and sane
// numbers. Liveness and startup probes must succeed once to count.
func validateProbe(probe *corev1.Probe, successMustBeOne bool, path *field.Path) field.ErrorList {
	if probe == nil {
		return nil
	}
	var errs field.ErrorList
	h := probe.ProbeHandler
	handlers := 0
	for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.GRPC != nil} {
		if set {
			handlers++
		}
	}
	switch {
	case handlers == 0:
		errs = append(errs, field.Required(path, "must specify a handler type"))
	case handlers > 1:
		errs = append(errs, field.Forbidden(path, "may not specify more than 1 handler type"))
	}
	numbers := []struct {
		name  string
		value int32
	}{
		{"initialDelaySeconds", probe.InitialDelaySeconds}, {"timeoutSeconds", probe.TimeoutSeconds},
		{"periodSeconds", probe.PeriodSeconds}, {"successThreshold", probe.SuccessThreshold},
		{"failureThreshold", probe.FailureThreshold},
	}
	for _, n := range numbers {
		if n.value < 0 {
			errs = append(errs, field.Invalid(path.Child(n.name), int64(n.value), "must be greater than or equal to 0"))
		}
	}
	if successMustBeOne && probe.SuccessThreshold != 1 {
		errs = append(errs, field.Invalid(path.Child("successThreshold"), probe.SuccessThreshold, "must be 1"))
	}
	return errs
}
