package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateServicePorts checks a service's ports: required unless the
// service is headless or an ExternalName, named when there are several,
// and unique by name, by port and protocol, and by node port.
func validateServicePorts(spec *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	portsPath := path.Child("ports")
	headless := spec.ClusterIP == corev1.ClusterIPNone
	if len(spec.Ports) == 0 && !headless && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(portsPath, ""))
	}
	names, ports, nodePorts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i := range spec.Ports {
		sp, idx := &spec.Ports[i], portsPath.Index(i)
		errs = append(errs, validateServicePort(sp, len(spec.Ports) > 1, names, idx)...)
		key := fmt.Sprintf("%d/%s", sp.Port, sp.Protocol)
		if ports[key] {
			errs = append(errs, field.Duplicate(idx, key))
		}
		ports[key] = true
		errs = append(errs, validateNodePort(sp, spec.Type, nodePorts, idx.Child("nodePort"))...)
	}
	return errs
}

// validateServicePort checks one port's name, number, protocol and target.
func validateServicePort(sp *corev1.ServicePort, requireName bool, names map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	namePath := path.Child("name")
	switch {
	case sp.Name == "" && requireName:
		errs = append(errs, field.Required(namePath, ""))
	case sp.Name != "":
		errs = append(errs, dnsLabel(sp.Name, namePath)...)
		if names[sp.Name] {
			errs = append(errs, field.Duplicate(namePath, sp.Name))
		}
		names[sp.Name] = true
	}
	errs = append(errs, invalidEach(path.Child("port"), sp.Port, validation.IsValidPortNum(int(sp.Port)))...)
	errs = append(errs, validateProtocol(sp.Protocol, path.Child("protocol"))...)
	errs = append(errs, validatePortNumOrName(sp.TargetPort, path.Child("targetPort"))...)
	if sp.AppProtocol != nil {
		errs = append(errs, qualifiedName(*sp.AppProtocol, path.Child("appProtocol"))...)
	}
	return errs
}

// validatePortNumOrName checks a port given as a number or a port name.
func validatePortNumOrName(port intstr.IntOrString, path *field.Path) field.ErrorList {
	if port.Type == intstr.String {
		return invalidEach(path, port.StrVal, validation.IsValidPortName(port.StrVal))
	}
	return invalidEach(path, port.IntVal, validation.IsValidPortNum(int(port.IntVal)))
}

// validateNodePort checks a node port: only for types that open one, in
// range, and not used twice for the same protocol.
func validateNodePort(sp *corev1.ServicePort, t corev1.ServiceType, seen map[string]bool, path *field.Path) field.ErrorList {
	if sp.NodePort == 0 {
		return nil
	}
	if t == corev1.ServiceTypeClusterIP || t == corev1.ServiceTypeExternalName {
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("may not be used when `type` is '%s'", t))}
	}
	errs := invalidEach(path, sp.NodePort, validation.IsValidPortNum(int(sp.NodePort)))
	key := fmt.Sprintf("%d/%s", sp.NodePort, sp.Protocol)
	if seen[key] {
		errs = append(errs, field.Duplicate(path, key))
	}
	seen[key] = true
	return errs
}
