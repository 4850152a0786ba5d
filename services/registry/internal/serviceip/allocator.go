// Package serviceip allocates Services' cluster IPs and node ports as
// kube-apiserver 1.37 does (MultiCIDRServiceAllocator): a cluster IP is
// held by an IPAddress object (networking.k8s.io/v1, named by the address)
// in the registry's own ipaddresses store, taken from the ranges of the
// ServiceCIDRs (the default one, "kubernetes", made from
// --service-cluster-ip-range); a node port, from --service-node-port-range,
// by a key of its own in etcd. Either is created only if absent, so etcd
// itself keeps an address or a port one Service's, with any number of
// registry replicas allocating at once.
//
// The handler calls Allocate on a Service's create or update, after
// mutating admission and before validation (kube's BeginCreate and
// BeginUpdate), and commits or reverts what it returns once the store has
// answered; Release on its delete. Repair, on start and every few minutes
// after, removes what no Service holds and recreates what a Service holds
// but lacks.
package serviceip

import (
	"context"
	"errors"
	"net/netip"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // Services' conversions and defaults

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// Config is the cluster's Service networking, kube-apiserver's flags.
type Config struct {
	// ServiceCIDRs are --service-cluster-ip-range: the primary range, and
	// for a dual-stack cluster one of the other family (ParseServiceCIDRs).
	ServiceCIDRs []netip.Prefix
	// NodePorts is --service-node-port-range (ParseNodePortRange).
	NodePorts utilnet.PortRange
}

// Stores are the registry's stores the allocator reads and writes.
type Stores struct {
	Services, IPAddresses, ServiceCIDRs *storage.Store
}

// Allocator allocates Services' cluster IPs and node ports.
type Allocator struct {
	client     *clientv3.Client
	stores     Stores
	configured []*ipRange     // the default ServiceCIDR's ranges, primary first
	families   []api.IPFamily // theirs, primary first
	nodePorts  utilnet.PortRange
	now        func() time.Time
}

var _ resource.Allocator = (*Allocator)(nil)

// New returns the allocator of a cluster configured as cfg, keeping node
// ports through client and IPAddresses in stores.
func New(client *clientv3.Client, stores Stores, cfg Config) (*Allocator, error) {
	if len(cfg.ServiceCIDRs) == 0 || cfg.NodePorts.Size == 0 {
		return nil, errors.New("serviceip: a service cluster IP range and a node port range are needed")
	}
	a := &Allocator{client: client, stores: stores, nodePorts: cfg.NodePorts, now: time.Now}
	for _, p := range cfg.ServiceCIDRs {
		r, err := newRange(p)
		if err != nil {
			return nil, err
		}
		a.configured = append(a.configured, r)
		a.families = append(a.families, r.family)
	}
	return a, nil
}

// releaseTimeout bounds what a commit, revert or release does in etcd.
const releaseTimeout = 30 * time.Second

// Allocate gives a Service, on its create (old nil) or an update of it,
// its IP families and what its type needs (cluster IPs, node ports, a
// health check node port), and holds them until the returned Allocation
// is committed (the write was stored: what the update gave up is
// released) or reverted (it was not: what it took is released). On error
// nothing is held. A dry run takes nothing and answers as kube does.
func (a *Allocator) Allocate(ctx context.Context, obj, old *unstructured.Unstructured, dryRun bool) (resource.Allocation, error) {
	svc, err := toService(obj)
	if err != nil {
		return nil, err
	}
	al := &allocation{a: a, ctx: context.WithoutCancel(ctx), svc: ownerOf(svc), dry: dryRun}
	if old == nil {
		err = al.create(ctx, svc)
	} else {
		var prev *api.Service
		if prev, err = toService(old); err != nil {
			return nil, err
		}
		err = al.update(ctx, svc, prev)
	}
	if err == nil {
		err = fromService(svc, obj)
	}
	if err != nil {
		al.Revert()
		return nil, err
	}
	return al, nil
}

// Release gives back what a deleted Service held.
func (a *Allocator) Release(ctx context.Context, obj *unstructured.Unstructured) {
	svc, err := toService(obj)
	if err != nil {
		return
	}
	a.defaultOnRead(svc)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	o := ownerOf(svc)
	for _, ip := range clusterIPs(svc) {
		a.releaseIP(ctx, o, ip)
	}
	for _, port := range nodePorts(svc) {
		a.releasePort(ctx, o, port)
	}
	if needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort > 0 {
		a.releasePort(ctx, o, int(svc.Spec.HealthCheckNodePort))
	}
}

// allocation is what one write of a Service took and would give up.
type allocation struct {
	a *Allocator
	// ctx outlives the request: a revert runs even when the client left.
	ctx context.Context
	svc owner
	dry bool

	ips, releaseIPs     []netip.Addr
	ports, releasePorts []int
	settled             bool
}

// Commit keeps what the write took and releases what it gave up.
func (al *allocation) Commit() {
	al.settle(al.releaseIPs, al.releasePorts)
}

// Revert releases what the write took and keeps what it would have given
// up.
func (al *allocation) Revert() {
	al.settle(al.ips, al.ports)
}

func (al *allocation) settle(ips []netip.Addr, ports []int) {
	if al.settled || al.dry {
		al.settled = true
		return
	}
	al.settled = true
	ctx, cancel := context.WithTimeout(al.ctx, releaseTimeout)
	defer cancel()
	for _, ip := range ips {
		al.a.releaseIP(ctx, al.svc, ip)
	}
	for _, port := range ports {
		al.a.releasePort(ctx, al.svc, port)
	}
}

// toService is a Service as kube's internal type.
func toService(u *unstructured.Unstructured) (*api.Service, error) {
	ext := &corev1.Service{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ext); err != nil {
		return nil, apierrors.NewBadRequest("the object is not a valid Service: " + err.Error())
	}
	legacyscheme.Scheme.Default(ext)
	svc := &api.Service{}
	if err := legacyscheme.Scheme.Convert(ext, svc, nil); err != nil {
		return nil, apierrors.NewBadRequest("the object is not a valid Service: " + err.Error())
	}
	return svc, nil
}

// fromService writes svc back into u as a v1 Service.
func fromService(svc *api.Service, u *unstructured.Unstructured) error {
	ext := &corev1.Service{}
	if err := legacyscheme.Scheme.Convert(svc, ext, nil); err != nil {
		return apierrors.NewInternalError(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ext)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	u.Object = m
	u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	return nil
}
