package quota

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// one is the usage of one object.
var one = *resource.NewQuantity(1, resource.DecimalSI)

// decode reads an object of gr from JSON: typed for the resources whose
// usage looks inside the object, only its metadata for the others.
func decode(gr schema.GroupResource, raw []byte) (runtime.Object, error) {
	var obj runtime.Object
	switch gr {
	case podsResource:
		obj = &corev1.Pod{}
	case servicesResource:
		obj = &corev1.Service{}
	case pvcsResource:
		obj = &corev1.PersistentVolumeClaim{}
	default:
		obj = &metav1.PartialObjectMetadata{}
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gr, err)
	}
	return obj, nil
}

// usage is what one object of gr uses, under every resource name that may
// count it: the generic count/<resource>.<group>, and for the resources
// kube evaluates specially their legacy count and what they hold.
func usage(gr schema.GroupResource, obj runtime.Object, now time.Time) corev1.ResourceList {
	out := corev1.ResourceList{countName(gr): one}
	switch o := obj.(type) {
	case *corev1.Pod:
		return add(out, podUsage(o, now))
	case *corev1.Service:
		return add(out, serviceUsage(o))
	case *corev1.PersistentVolumeClaim:
		return add(out, pvcUsage(o))
	}
	for name, counted := range legacyCounts {
		if counted == gr {
			out[name] = one
		}
	}
	return out
}

// serviceUsage counts a service, its load balancer and the node ports it
// will be given, as kube's service evaluator does: node ports are counted
// by intent, since they are not allocated yet at admission.
func serviceUsage(s *corev1.Service) corev1.ResourceList {
	zero := *resource.NewQuantity(0, resource.DecimalSI)
	out := corev1.ResourceList{
		corev1.ResourceServices:              one,
		corev1.ResourceServicesLoadBalancers: zero,
		corev1.ResourceServicesNodePorts:     zero,
	}
	ports := int64(len(s.Spec.Ports))
	switch s.Spec.Type {
	case corev1.ServiceTypeNodePort:
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
	case corev1.ServiceTypeLoadBalancer:
		out[corev1.ResourceServicesLoadBalancers] = one
		if a := s.Spec.AllocateLoadBalancerNodePorts; a != nil && !*a {
			ports = 0
			for _, p := range s.Spec.Ports {
				if p.NodePort != 0 {
					ports++
				}
			}
		}
		out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
	}
	return out
}

// pvcUsage counts a claim and the storage it requests, in total and per
// storage class.
func pvcUsage(c *corev1.PersistentVolumeClaim) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePersistentVolumeClaims: one}
	storage, hasStorage := c.Spec.Resources.Requests[corev1.ResourceStorage]
	if hasStorage {
		out[corev1.ResourceRequestsStorage] = storage
	}
	class := ""
	if c.Spec.StorageClassName != nil {
		class = *c.Spec.StorageClassName
	}
	if class != "" {
		prefix := class + storageClassSuffix
		out[corev1.ResourceName(prefix+string(corev1.ResourcePersistentVolumeClaims))] = one
		if hasStorage {
			out[corev1.ResourceName(prefix+string(corev1.ResourceRequestsStorage))] = storage
		}
	}
	return out
}
