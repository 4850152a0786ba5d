// Package endpointlease is the record by which each API server replica
// (each aggregator) says where clients reach it, and from which the
// registry builds the endpoints of the kubernetes Service.
//
// kube-apiserver's lease endpoint reconciler keeps such records as etcd
// keys with a TTL under /masterleases/<ip>. Only kubesplit's registry
// touches etcd, so here each record is a coordination.k8s.io/v1 Lease in
// kube-system, written through the API: labelled so that they can be
// selected, named after the address it advertises (one per address and
// port, as kube keys them per IP, so a restarted replica takes up its own
// record again), renewed periodically, and counted as gone once its
// renewTime plus leaseDurationSeconds has passed.
package endpointlease

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

const (
	// Namespace holds the leases, as kube-apiserver's identity leases.
	Namespace = metav1.NamespaceSystem
	// Label marks an endpoint lease; its value is the Service the
	// endpoint serves.
	Label = "endpoints.kubesplit.io/service-name"
	// ServiceName is the Service the API servers' leases are for.
	ServiceName = "kubernetes"
	// AddressAnnotation is the advertised IP address.
	AddressAnnotation = "endpoints.kubesplit.io/address"
	// PortAnnotation is the advertised (secure) port.
	PortAnnotation = "endpoints.kubesplit.io/port"
	// namePrefix begins every lease's name.
	namePrefix = "kubesplit-apiserver-"
)

// ErrMalformed is a lease whose address or port cannot be read.
var ErrMalformed = errors.New("endpointlease: malformed lease")

// Endpoint is where one API server replica is reached.
type Endpoint struct {
	Address netip.Addr
	Port    int32
}

// String is address:port.
func (e Endpoint) String() string {
	return netip.AddrPortFrom(e.Address, uint16(e.Port)).String()
}

// Name is the Lease of the endpoint: its address with ':' (IPv6) written
// as '-', then its port, a valid object name.
func Name(e Endpoint) string {
	addr := strings.ReplaceAll(e.Address.Unmap().String(), ":", "-")
	return namePrefix + addr + "-" + strconv.Itoa(int(e.Port))
}

// Selector selects the leases of the kubernetes Service.
func Selector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{Label: ServiceName})
}

// New is the Lease e's holder writes, renewed at now and valid for d.
func New(e Endpoint, holder string, d time.Duration, now time.Time) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: Name(e), Namespace: Namespace}}
	Renew(l, e, holder, d, now)
	return l
}

// Renew sets l to say e is served by holder from now for d, keeping the
// rest of its metadata, so an update keeps its resourceVersion.
func Renew(l *coordinationv1.Lease, e Endpoint, holder string, d time.Duration, now time.Time) {
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[Label] = ServiceName
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[AddressAnnotation] = e.Address.Unmap().String()
	l.Annotations[PortAnnotation] = strconv.Itoa(int(e.Port))
	seconds := int32(max(1, (d+time.Second-1)/time.Second))
	renew := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity = &holder
	l.Spec.LeaseDurationSeconds = &seconds
	l.Spec.RenewTime = &renew
	if l.Spec.AcquireTime == nil {
		l.Spec.AcquireTime = &renew
	}
}

// Parse reads the endpoint a lease advertises.
func Parse(l *coordinationv1.Lease) (Endpoint, error) {
	addr, err := netip.ParseAddr(l.Annotations[AddressAnnotation])
	if err != nil {
		return Endpoint{}, fmt.Errorf("%w %s: address: %w", ErrMalformed, l.Name, err)
	}
	port, err := strconv.ParseUint(l.Annotations[PortAnnotation], 10, 16)
	if err != nil || port == 0 {
		return Endpoint{}, fmt.Errorf("%w %s: port %q", ErrMalformed, l.Name, l.Annotations[PortAnnotation])
	}
	return Endpoint{Address: addr.Unmap(), Port: int32(port)}, nil
}

// Expiry is when the lease lapses unless renewed; zero when it has never
// been renewed or has no duration, which counts as expired.
func Expiry(l *coordinationv1.Lease) time.Time {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
}

// Live reports whether the lease is still held at now.
func Live(l *coordinationv1.Lease, now time.Time) bool {
	return now.Before(Expiry(l))
}
