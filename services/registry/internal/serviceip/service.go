package serviceip

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// This file is what a Service gets when, as kube's REST storage decides it
// (pkg/registry/core/service/storage/alloc.go): cluster IPs for every type
// but ExternalName unless headless, node ports for NodePort and
// LoadBalancer (unless allocateLoadBalancerNodePorts is false; a port asked
// for is honoured whatever the type), a health check node port for a
// LoadBalancer with externalTrafficPolicy Local; and what an update changing
// these takes and gives up. Kube's error messages are kept word for word.

// create is kube's allocateCreate.
func (al *allocation) create(ctx context.Context, svc *api.Service) error {
	normalizeClusterIPs(svc, nil)
	if err := al.a.initIPFamilies(svc, nil); err != nil {
		return err
	}
	if err := al.allocClusterIPs(ctx, svc); err != nil {
		return err
	}
	if svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer {
		if err := al.initNodePorts(ctx, svc); err != nil {
			return err
		}
	}
	if needsHealthCheckNodePort(svc) {
		if err := al.allocHealthCheckNodePort(ctx, svc); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	return nil
}

// update is kube's beginUpdate and allocateUpdate.
func (al *allocation) update(ctx context.Context, svc, old *api.Service) error {
	al.a.defaultOnRead(old)
	patchAllocatedValues(svc, old)
	normalizeClusterIPs(svc, old)
	if err := al.a.initIPFamilies(svc, old); err != nil {
		return err
	}
	if err := al.updateClusterIPs(ctx, svc, old); err != nil {
		return err
	}
	return al.updateNodePorts(ctx, svc, old)
}

// allocClusterIPs gives svc an address of each of its families it has
// none of, or takes the ones it names.
func (al *allocation) allocClusterIPs(ctx context.Context, svc *api.Service) error {
	if svc.Spec.Type == api.ServiceTypeExternalName || headless(svc) {
		return nil
	}
	if svc.Spec.ClusterIPs == nil {
		svc.Spec.ClusterIPs = make([]string, 0, len(svc.Spec.IPFamilies))
	}
	var want []int
	for i := range svc.Spec.IPFamilies {
		if i >= len(svc.Spec.ClusterIPs) {
			svc.Spec.ClusterIPs = append(svc.Spec.ClusterIPs, "")
		}
		want = append(want, i)
	}
	return al.allocIPs(ctx, svc, want)
}

// allocIPs allocates clusterIPs[i] (family ipFamilies[i]) for each i of
// want: a free address where it is empty, the one named otherwise.
func (al *allocation) allocIPs(ctx context.Context, svc *api.Service, want []int) error {
	invalid := func(msg string) error {
		return apierrors.NewInvalid(api.Kind("Service"), svc.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "clusterIPs"), svc.Spec.ClusterIPs, msg)})
	}
	for _, i := range want {
		family, s := svc.Spec.IPFamilies[i], svc.Spec.ClusterIPs[i]
		if s == "" {
			ip, err := al.allocateNextIP(ctx, family)
			switch {
			case errors.Is(err, errIPFull):
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: %w", svc.Name, err))
			case isStatus(err):
				return err
			case err != nil:
				return invalid(fmt.Sprintf("failed to allocate IP: %v", err))
			}
			svc.Spec.ClusterIPs[i] = ip.String()
			if i == 0 {
				svc.Spec.ClusterIP = ip.String()
			}
			continue
		}
		ip, ok := parseIP(s)
		if !ok {
			return apierrors.NewInternalError(fmt.Errorf("failed to parse service IP %q", s))
		}
		if err := al.allocateIP(ctx, ip); err != nil {
			if isStatus(err) {
				return err
			}
			return invalid(fmt.Sprintf("failed to allocate IP %v: %v", s, err))
		}
	}
	return nil
}

// isStatus reports an error that is already an API answer (etcd out of
// reach, a timeout), passed on as it is rather than as a 422.
func isStatus(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status)
}

func (al *allocation) allocateIP(ctx context.Context, ip netip.Addr) error {
	if al.dry {
		return al.a.dryRunCheckIP(ctx, ip)
	}
	if err := al.a.allocateIP(ctx, al.svc, ip); err != nil {
		return err
	}
	al.ips = append(al.ips, ip)
	return nil
}

func (al *allocation) allocateNextIP(ctx context.Context, family api.IPFamily) (netip.Addr, error) {
	if al.dry {
		return al.a.dryRunIP(ctx, family)
	}
	ip, err := al.a.allocateNextIP(ctx, al.svc, family)
	if err == nil {
		al.ips = append(al.ips, ip)
	}
	return ip, err
}

// updateClusterIPs is kube's: addresses for a Service leaving
// ExternalName or gaining a second family; addresses given up, once the
// update is stored, by one becoming ExternalName or losing its second
// family.
func (al *allocation) updateClusterIPs(ctx context.Context, svc, old *api.Service) error {
	if matchingPreferDualStack(svc, old) {
		return nil
	}
	if old.Spec.Type == api.ServiceTypeExternalName && svc.Spec.Type != api.ServiceTypeExternalName {
		return al.allocClusterIPs(ctx, svc)
	}
	if headless(old) {
		return nil
	}
	if old.Spec.Type != api.ServiceTypeExternalName && svc.Spec.Type == api.ServiceTypeExternalName {
		al.releaseIPs = append(al.releaseIPs, clusterIPs(old)...)
		return nil
	}
	switch {
	case len(old.Spec.IPFamilies) == 1 && len(svc.Spec.IPFamilies) == 2: // upgraded
		if len(svc.Spec.ClusterIPs) < 2 {
			svc.Spec.ClusterIPs = append(svc.Spec.ClusterIPs, "")
		}
		return al.allocIPs(ctx, svc, []int{1})
	case len(old.Spec.IPFamilies) == 2 && len(svc.Spec.IPFamilies) == 1: // downgraded
		if len(old.Spec.ClusterIPs) > 1 {
			if ip, ok := parseIP(old.Spec.ClusterIPs[1]); ok {
				al.releaseIPs = append(al.releaseIPs, ip)
			}
		}
	}
	return nil
}

// clusterIPs are the addresses a Service holds.
func clusterIPs(svc *api.Service) []netip.Addr {
	if svc.Spec.Type == api.ServiceTypeExternalName || headless(svc) {
		return nil
	}
	var out []netip.Addr
	for _, s := range svc.Spec.ClusterIPs {
		if ip, ok := parseIP(s); ok {
			out = append(out, ip)
		}
	}
	return out
}

// nodePorts are the node ports a Service's ports hold.
func nodePorts(svc *api.Service) []int {
	var out []int
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, int(p.NodePort))
		}
	}
	return out
}

func shouldAllocateNodePorts(svc *api.Service) bool {
	switch svc.Spec.Type {
	case api.ServiceTypeNodePort:
		return true
	case api.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts != nil && *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

// initNodePorts is kube's node ports of a new Service: one a service port
// number (the ports of one number, TCP and UDP, share it), the one asked
// for when a port names it.
func (al *allocation) initNodePorts(ctx context.Context, svc *api.Service) error {
	byPort := map[int32]int{}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if sp.NodePort == 0 && !shouldAllocateNodePorts(svc) {
			continue
		}
		allocated := byPort[sp.Port]
		switch {
		case allocated == 0:
			np := requestedNodePort(sp.Port, svc.Spec.Ports)
			if np != 0 {
				if err := al.allocatePort(ctx, np); err != nil {
					return invalidNodePort(svc, i, np, err)
				}
			} else {
				var err error
				if np, err = al.allocateNextPort(ctx); err != nil {
					return nodePortError(err)
				}
			}
			sp.NodePort = int32(np)
			byPort[sp.Port] = np
		case int(sp.NodePort) != allocated:
			if sp.NodePort == 0 {
				sp.NodePort = int32(allocated)
			} else if err := al.allocatePort(ctx, int(sp.NodePort)); err != nil {
				return invalidNodePort(svc, i, int(sp.NodePort), err)
			}
		}
	}
	return nil
}

// requestedNodePort is the node port the first port numbered port asks
// for, 0 if none does.
func requestedNodePort(port int32, ports []api.ServicePort) int {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return int(p.NodePort)
		}
	}
	return 0
}

func invalidNodePort(svc *api.Service, i, port int, err error) error {
	if isStatus(err) {
		return err
	}
	return apierrors.NewInvalid(api.Kind("Service"), svc.Name, field.ErrorList{
		field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), port, err.Error())})
}

func nodePortError(err error) error {
	if isStatus(err) {
		return err
	}
	return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
}

// allocHealthCheckNodePort takes the health check node port asked for, or
// a free one.
func (al *allocation) allocHealthCheckNodePort(ctx context.Context, svc *api.Service) error {
	if port := int(svc.Spec.HealthCheckNodePort); port != 0 {
		if err := al.allocatePort(ctx, port); err != nil {
			return fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", port, err)
		}
		return nil
	}
	port, err := al.allocateNextPort(ctx)
	if err != nil {
		return fmt.Errorf("failed to allocate a HealthCheck NodePort %v: %v", port, err)
	}
	svc.Spec.HealthCheckNodePort = int32(port)
	return nil
}

// updateNodePorts is kube's txnUpdateNodePorts: ports given up by a
// Service leaving NodePort or LoadBalancer, ports taken and given up by
// one that keeps or gains such a type, and its health check node port.
func (al *allocation) updateNodePorts(ctx context.Context, svc, old *api.Service) error {
	oldPorts := nodePorts(old)
	wasNodePort := old.Spec.Type == api.ServiceTypeNodePort || old.Spec.Type == api.ServiceTypeLoadBalancer
	if wasNodePort && (svc.Spec.Type == api.ServiceTypeExternalName || svc.Spec.Type == api.ServiceTypeClusterIP) {
		al.releasePorts = append(al.releasePorts, oldPorts...)
	}
	if svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer {
		taken := map[int]bool{}
		type nodePort struct {
			protocol api.Protocol
			port     int32
		}
		var seen []nodePort
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if sp.NodePort == 0 && !shouldAllocateNodePorts(svc) {
				continue
			}
			np := nodePort{protocol: sp.Protocol, port: sp.NodePort}
			if np.port != 0 {
				if !slices.Contains(oldPorts, int(np.port)) && !taken[int(np.port)] {
					if err := al.allocatePort(ctx, int(np.port)); err != nil {
						return invalidNodePort(svc, i, int(np.port), err)
					}
					taken[int(np.port)] = true
				}
			} else {
				port, err := al.allocateNextPort(ctx)
				if err != nil {
					return nodePortError(err)
				}
				sp.NodePort, np.port = int32(port), int32(port)
			}
			if slices.Contains(seen, np) {
				return fmt.Errorf("duplicate nodePort: %v", np)
			}
			seen = append(seen, np)
		}
		newPorts := nodePorts(svc)
		for _, p := range oldPorts {
			if !slices.Contains(newPorts, p) {
				al.releasePorts = append(al.releasePorts, p)
			}
		}
	}
	needed, needs := needsHealthCheckNodePort(old), needsHealthCheckNodePort(svc)
	switch {
	case !needed && needs:
		if err := al.allocHealthCheckNodePort(ctx, svc); err != nil {
			return apierrors.NewInternalError(err)
		}
	case needed && !needs:
		al.releasePorts = append(al.releasePorts, int(old.Spec.HealthCheckNodePort))
	}
	return nil
}

// allocatePort takes port (a dry run checks it is free, as kube's does).
func (al *allocation) allocatePort(ctx context.Context, port int) error {
	if al.dry {
		taken, err := al.a.portTaken(ctx, port)
		switch {
		case err != nil:
			return err
		case taken || slices.Contains(al.ports, port):
			return errPortAllocated
		}
		al.ports = append(al.ports, port)
		return nil
	}
	if err := al.a.allocatePort(ctx, al.svc, port); err != nil {
		return err
	}
	al.ports = append(al.ports, port)
	return nil
}

// allocateNextPort takes a free port. A dry run takes none and answers
// what kube's does: one above the highest it named so far, starting at
// 32769.
func (al *allocation) allocateNextPort(ctx context.Context) (int, error) {
	if al.dry {
		last := 32768
		if len(al.ports) > 0 {
			last = slices.Max(al.ports)
		}
		al.ports = append(al.ports, last+1)
		return last + 1, nil
	}
	port, err := al.a.allocateNextPort(ctx, al.svc)
	if err != nil {
		return 0, err
	}
	al.ports = append(al.ports, port)
	return port, nil
}
