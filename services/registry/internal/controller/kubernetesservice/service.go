package kubernetesservice

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// portName names the Service's and the endpoints' port, as kube does.
const portName = "https"

// ensureService creates the Service if it is missing, once there is a port
// to target, and puts its ports and type back if they were changed
// (kube's CreateOrUpdateMasterServiceIfNeeded). Its cluster IP is never
// changed: a Service's cluster IP cannot be.
func (c *Controller) ensureService(ctx context.Context, targetPort int32) error {
	services := c.client.CoreV1().Services(metav1.NamespaceDefault)
	cur, err := services.Get(ctx, key, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if targetPort == 0 {
		// No API server is live: keep the Service as it is.
		return nil
	}
	ports := []corev1.ServicePort{{
		Name: portName, Protocol: corev1.ProtocolTCP, Port: c.opts.ServicePort, TargetPort: intstr.FromInt32(targetPort),
	}}
	if err == nil {
		if formatCorrect(cur, ports) {
			return nil
		}
		cur = cur.DeepCopy()
		cur.Spec.Ports, cur.Spec.Type = ports, corev1.ServiceTypeClusterIP
		c.log.Warn("resetting the kubernetes service's ports", "ports", ports)
		_, err = services.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	singleStack := corev1.IPFamilyPolicySingleStack
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: key, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"provider": "kubernetes", "component": "apiserver"},
		},
		Spec: corev1.ServiceSpec{
			Ports: ports,
			// No selector: the endpoints are written here, not picked
			// from pods.
			ClusterIP:       c.opts.ServiceIP.String(),
			IPFamilyPolicy:  &singleStack,
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
	_, err = services.Create(ctx, svc, metav1.CreateOptions{})
	if err == nil {
		c.log.Info("created the kubernetes service", "clusterIP", svc.Spec.ClusterIP, "targetPort", targetPort)
	}
	return err
}

// formatCorrect is kube's checkServiceFormat: the type, and the ports
// exactly.
func formatCorrect(s *corev1.Service, ports []corev1.ServicePort) bool {
	if s.Spec.Type != corev1.ServiceTypeClusterIP || len(s.Spec.Ports) != len(ports) {
		return false
	}
	for i := range ports {
		if ports[i] != s.Spec.Ports[i] {
			return false
		}
	}
	return true
}
