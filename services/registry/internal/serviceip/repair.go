package serviceip

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// RepairGrace is how old an IPAddress or a node port key without its
// Service must be before repair removes it: younger, it may belong to a
// create in flight on this or another replica, whose Service is not
// stored yet (kube's repair controller waits as long).
const RepairGrace = time.Minute

// Repair makes what is held match the Services, as kube's repair
// controllers do: a Service's cluster IP or node port without its
// IPAddress or key gets it recreated (one another Service holds is logged
// as a conflict, not taken), and an IPAddress this allocator manages or a
// node port key held for no Service that holds it, at least grace old, is
// removed. It runs on start, before or beside writes from any replica:
// every change is conditional, so it never takes from a Service what it
// holds.
func (a *Allocator) Repair(ctx context.Context, grace time.Duration) error {
	svcs, err := a.services(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, svc := range svcs {
		errs = append(errs, a.repairService(ctx, svc))
	}
	errs = append(errs, a.removeOrphanedIPs(ctx, grace, svcs), a.removeOrphanedPorts(ctx, grace, svcs))
	return errors.Join(errs...)
}

// RepairEvery repairs every interval until ctx ends, as kube's repair
// controllers keep running: what a replica that stopped mid-write left
// behind is removed without waiting for a restart. A default ServiceCIDR
// deleted meanwhile is written again, as kube's controller does.
func (a *Allocator) RepairEvery(ctx context.Context, interval, grace time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := errors.Join(a.EnsureDefaultServiceCIDR(ctx), a.Repair(ctx, grace))
		if err != nil && ctx.Err() == nil {
			slog.Warn("serviceip repair failed; retrying at the next interval", "err", err)
		}
	}
}

// services are every Service, read consistently, by namespace and name.
func (a *Allocator) services(ctx context.Context) (map[owner]*api.Service, error) {
	res, err := a.stores.Services.List(ctx, "", storage.ListOptions{})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	out := map[owner]*api.Service{}
	for _, item := range res.Items {
		if svc, err := toService(item.Decode()); err == nil {
			a.defaultOnRead(svc)
			out[owner{Namespace: svc.Namespace, Name: svc.Name}] = svc
		}
	}
	return out, nil
}

// holder is the Service named o, if it holds what has: from svcs, the
// Services read before, or read again when it did not hold it then (it
// may have been created or changed since).
func (a *Allocator) holder(ctx context.Context, svcs map[owner]*api.Service, o owner, has func(*api.Service) bool) (bool, error) {
	if svc := svcs[owner{Namespace: o.Namespace, Name: o.Name}]; svc != nil && has(svc) {
		return true, nil
	}
	svc, err := a.service(ctx, o)
	if err != nil || svc == nil {
		return false, err
	}
	return has(svc), nil
}

// service is the Service o names as it is now, nil when there is none.
func (a *Allocator) service(ctx context.Context, o owner) (*api.Service, error) {
	obj, err := a.stores.Services.Get(ctx, o.Namespace, o.Name, storage.ReadOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	svc, err := toService(obj.Decode())
	if err != nil {
		return nil, err
	}
	a.defaultOnRead(svc)
	return svc, nil
}

// repairService recreates the IPAddresses and node port keys svc lacks.
func (a *Allocator) repairService(ctx context.Context, svc *api.Service) error {
	o := ownerOf(svc)
	log := slog.With("service", svc.Namespace+"/"+svc.Name)
	var errs []error
	for _, ip := range clusterIPs(svc) {
		if _, ok := a.rangeOf(ctx, ip); !ok {
			log.Warn("serviceip repair: the cluster IP is not within any service CIDR; please recreate the Service", "ip", ip)
			continue
		}
		cur, err := a.stores.IPAddresses.Get(ctx, "", ip.String(), storage.ReadOptions{})
		switch {
		case apierrors.IsNotFound(err):
			log.Warn("serviceip repair: the cluster IP is not allocated; repairing", "ip", ip)
			_, err = a.stores.IPAddresses.Create(ctx, a.ipAddress(ip, o), false)
			if apierrors.IsAlreadyExists(err) {
				log.Warn("serviceip repair: the cluster IP was allocated meanwhile to another Service; please recreate the Service", "ip", ip)
				err = nil
			}
			errs = append(errs, err)
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		}
		holder := parentOf(cur.Decode())
		if holder == (owner{Namespace: o.Namespace, Name: o.Name}) {
			continue
		}
		if other, err := a.service(ctx, holder); err != nil {
			errs = append(errs, err)
		} else if other != nil && slices.Contains(clusterIPs(other), ip) {
			log.Error("serviceip repair: the cluster IP is assigned to several Services; please recreate one", "ip", ip,
				"other", holder.Namespace+"/"+holder.Name)
		} else {
			log.Warn("serviceip repair: the cluster IP's IPAddress names a Service that does not hold it; repairing", "ip", ip)
			errs = append(errs, a.retakeIP(ctx, cur, ip, o))
		}
	}
	ports := nodePorts(svc)
	if needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort > 0 {
		ports = append(ports, int(svc.Spec.HealthCheckNodePort))
	}
	for _, port := range ports {
		errs = append(errs, a.repairPort(ctx, svc, o, port))
	}
	return errors.Join(errs...)
}

// retakeIP gives the IPAddress cur, which names a Service that does not
// hold its address, to o, unless it changed meanwhile.
func (a *Allocator) retakeIP(ctx context.Context, cur *storage.Object, ip netip.Addr, o owner) error {
	_, err := a.stores.IPAddresses.Delete(ctx, "", ip.String(), func(now *storage.Object) error {
		if now.Rev != cur.Rev {
			return errNotOwner
		}
		return nil
	}, false)
	if errors.Is(err, errNotOwner) || apierrors.IsNotFound(err) {
		return nil // changed meanwhile: the next repair looks again
	}
	if err != nil {
		return err
	}
	_, err = a.stores.IPAddresses.Create(ctx, a.ipAddress(ip, o), false)
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// repairPort recreates port's key for svc, or reports who else holds it.
func (a *Allocator) repairPort(ctx context.Context, svc *api.Service, o owner, port int) error {
	log := slog.With("service", svc.Namespace+"/"+svc.Name, "port", port)
	if !a.nodePorts.Contains(port) {
		log.Warn("serviceip repair: the node port is not within the node port range; please recreate the Service", "range", a.nodePorts.String())
		return nil
	}
	key := portKey(port)
	resp, err := a.client.Get(ctx, key)
	if err != nil {
		return err
	}
	if len(resp.Kvs) == 0 {
		log.Warn("serviceip repair: the node port is not allocated; repairing")
		ok, err := a.createPortKey(ctx, o, port)
		if err == nil && !ok {
			log.Warn("serviceip repair: the node port was allocated meanwhile to another Service; please recreate the Service")
		}
		return err
	}
	var h portHolder
	if json.Unmarshal(resp.Kvs[0].Value, &h) == nil && h.owner == o {
		return nil
	}
	other, err := a.service(ctx, h.owner)
	if err != nil {
		return err
	}
	if other != nil && string(other.UID) == h.UID && holdsPort(other, port) {
		log.Error("serviceip repair: the node port is assigned to several Services; please recreate one",
			"other", h.Namespace+"/"+h.Name)
		return nil
	}
	log.Warn("serviceip repair: the node port's key names a Service that does not hold it; repairing")
	value, err := json.Marshal(portHolder{owner: o, Created: a.now().UTC()})
	if err != nil {
		return err
	}
	_, err = a.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", resp.Kvs[0].ModRevision)).
		Then(clientv3.OpPut(key, string(value))).Commit()
	return err
}

func holdsPort(svc *api.Service, port int) bool {
	return slices.Contains(nodePorts(svc), port) ||
		(needsHealthCheckNodePort(svc) && int(svc.Spec.HealthCheckNodePort) == port)
}

// removeOrphanedIPs deletes the IPAddresses this allocator manages that no
// Service holds, once grace old; one that names no Service is deleted at
// once, as kube's repair does.
func (a *Allocator) removeOrphanedIPs(ctx context.Context, grace time.Duration, svcs map[owner]*api.Service) error {
	res, err := a.stores.IPAddresses.List(ctx, "", storage.ListOptions{})
	if err != nil {
		return err
	}
	items := slices.Clone(res.Items)
	res.Release()
	var errs []error
	for _, item := range items {
		obj := item.Decode()
		if obj.GetLabels()[networkingv1.LabelManagedBy] != ManagedBy {
			continue
		}
		holder := parentOf(obj)
		if holder != (owner{}) {
			if !a.now().After(obj.GetCreationTimestamp().Add(grace)) {
				continue
			}
			held, err := a.holder(ctx, svcs, holder, func(svc *api.Service) bool {
				return slices.ContainsFunc(clusterIPs(svc), func(ip netip.Addr) bool { return ip.String() == obj.GetName() })
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if held {
				continue
			}
		}
		slog.Warn("serviceip repair: the IPAddress is held by no Service; removing it", "ip", obj.GetName(),
			"service", holder.Namespace+"/"+holder.Name)
		errs = append(errs, a.deleteIfUnchanged(ctx, item))
	}
	return errors.Join(errs...)
}

// deleteIfUnchanged deletes an IPAddress as it was read.
func (a *Allocator) deleteIfUnchanged(ctx context.Context, read *storage.Object) error {
	_, err := a.stores.IPAddresses.Delete(ctx, "", read.Name(), func(cur *storage.Object) error {
		if cur.Rev != read.Rev {
			return errNotOwner
		}
		return nil
	}, false)
	if err == nil || apierrors.IsNotFound(err) || errors.Is(err, errNotOwner) {
		return nil
	}
	return err
}

// removeOrphanedPorts deletes the node port keys no Service holds, once
// grace old.
func (a *Allocator) removeOrphanedPorts(ctx context.Context, grace time.Duration, svcs map[owner]*api.Service) error {
	resp, err := a.client.Get(ctx, NodePortPrefix, clientv3.WithPrefix())
	if err != nil {
		return err
	}
	var errs []error
	for _, kv := range resp.Kvs {
		port, err := strconv.Atoi(strings.TrimPrefix(string(kv.Key), NodePortPrefix))
		if err != nil {
			continue
		}
		var h portHolder
		if json.Unmarshal(kv.Value, &h) == nil {
			if !a.now().After(h.Created.Add(grace)) {
				continue
			}
			held, err := a.holder(ctx, svcs, h.owner, func(svc *api.Service) bool {
				return string(svc.UID) == h.UID && holdsPort(svc, port)
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if held {
				continue
			}
		}
		slog.Warn("serviceip repair: the node port is held by no Service; releasing it", "port", port,
			"service", h.Namespace+"/"+h.Name)
		_, err = a.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(string(kv.Key)), "=", kv.ModRevision)).
			Then(clientv3.OpDelete(string(kv.Key))).Commit()
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
