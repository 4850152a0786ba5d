package serviceip

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/google/uuid"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// ManagedBy is the value of the networking.k8s.io managed-by label on the
// IPAddress objects that hold Services' cluster IPs (kube's
// ipallocator.ControllerName).
const ManagedBy = "ipallocator.k8s.io"

// kube's allocation errors, in the words its messages use.
var (
	errIPAllocated       = errors.New("provided IP is already allocated")
	errIPFull            = errors.New("range is full")
	errMismatchedNetwork = errors.New("the provided network does not match the current range")
	// errNotOwner stops the release of an address another Service holds.
	errNotOwner = errors.New("the address is held by another Service")
)

// notInRangeError is kube's answer to a dry run naming an address outside
// the range.
type notInRangeError struct {
	ip  netip.Addr
	rng netip.Prefix
}

func (e *notInRangeError) Error() string {
	return fmt.Sprintf("the provided IP (%v) is not in the valid range. The range of valid IPs is %s", e.ip, e.rng)
}

// owner names the Service an allocation is for.
type owner struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

func ownerOf(svc *api.Service) owner {
	return owner{Namespace: svc.Namespace, Name: svc.Name, UID: string(svc.UID)}
}

// reserved reports whether ip is kept from the Service o: the first
// address of the primary range belongs to the kubernetes Service
// (default/kubernetes), which kube-apiserver creates with it before any
// other Service can take it.
func (a *Allocator) reserved(ip netip.Addr, o owner) bool {
	return ip == a.configured[0].first && !(o.Namespace == "default" && o.Name == "kubernetes")
}

// allocateIP takes ip for the Service o by creating its IPAddress, which
// etcd creates only if absent: the address is the Service's alone. An
// address in no ready range is refused as kube refuses it.
func (a *Allocator) allocateIP(ctx context.Context, o owner, ip netip.Addr) error {
	if _, ok := a.rangeOf(ctx, ip); !ok {
		return errMismatchedNetwork
	}
	if a.reserved(ip, o) {
		return errIPAllocated
	}
	_, err := a.stores.IPAddresses.Create(ctx, a.ipAddress(ip, o), false)
	if apierrors.IsAlreadyExists(err) {
		return errIPAllocated
	}
	return err
}

// allocateNextIP takes a free address of family for the Service o: from
// each range in turn, at a random place of its upper band first, skipping
// the addresses the cache knows to be taken; one taken meanwhile by another
// request or replica (its IPAddress exists already) is skipped too. The
// cache may still hold an address released a moment ago, or lack a
// ServiceCIDR just made, so when the ranges it knows are full they are
// read and scanned again from etcd before the answer is "full".
func (a *Allocator) allocateNextIP(ctx context.Context, o owner, family api.IPFamily) (netip.Addr, error) {
	for _, rv := range []string{"0", ""} {
		for _, r := range a.ranges(ctx, family, rv) {
			got, err := a.scanForIP(ctx, r, o, rv)
			if err != nil || got.IsValid() {
				return got, err
			}
		}
	}
	return netip.Addr{}, errIPFull
}

// scanForIP takes the first free address of r that it finds for o, reading
// at resourceVersion rv ("0" from the cache, "" from etcd) to skip the
// taken ones; it returns the zero address when it finds none.
func (a *Allocator) scanForIP(ctx context.Context, r *ipRange, o owner, rv string) (netip.Addr, error) {
	var got netip.Addr
	_, err := scan(r.size, r.offset, func(i uint64) (bool, error) {
		ip := r.at(i)
		if a.reserved(ip, o) {
			return false, nil
		}
		if _, err := a.stores.IPAddresses.Get(ctx, "", ip.String(), storage.ReadOptions{ResourceVersion: rv}); err == nil {
			return false, nil
		}
		_, err := a.stores.IPAddresses.Create(ctx, a.ipAddress(ip, o), false)
		switch {
		case apierrors.IsAlreadyExists(err):
			return false, nil
		case err != nil:
			return false, err
		}
		got = ip
		return true, nil
	})
	return got, err
}

// dryRunIP is what kube answers a dry run with for an address it would
// allocate: the network address of the first range of family, taking
// nothing.
func (a *Allocator) dryRunIP(ctx context.Context, family api.IPFamily) (netip.Addr, error) {
	rs := a.ranges(ctx, family, "0")
	if len(rs) == 0 {
		return netip.Addr{}, errIPFull
	}
	return rs[0].prefix.Addr(), nil
}

// dryRunCheckIP is kube's check of a requested address in a dry run: in
// range, whether taken or not.
func (a *Allocator) dryRunCheckIP(ctx context.Context, ip netip.Addr) error {
	rs := a.ranges(ctx, familyOf(ip), "0")
	if len(rs) == 0 {
		return errMismatchedNetwork
	}
	if !rs[0].contains(ip) {
		return &notInRangeError{ip: ip, rng: rs[0].prefix}
	}
	return nil
}

// releaseIP deletes the IPAddress holding ip, if the Service o holds it.
func (a *Allocator) releaseIP(ctx context.Context, o owner, ip netip.Addr) {
	_, err := a.stores.IPAddresses.Delete(ctx, "", ip.String(), func(cur *storage.Object) error {
		if parentOf(cur.Decode()) != (owner{Namespace: o.Namespace, Name: o.Name}) {
			return errNotOwner
		}
		return nil
	}, false)
	switch {
	case err == nil, apierrors.IsNotFound(err):
	case errors.Is(err, errNotOwner):
		slog.Warn("serviceip: not releasing a cluster IP another Service holds", "ip", ip, "service", o.Namespace+"/"+o.Name)
	default:
		slog.Error("serviceip: releasing a cluster IP failed; repair removes it", "ip", ip, "service", o.Namespace+"/"+o.Name, "err", err)
	}
}

// parentOf is the Service an IPAddress names (its uid left empty: a
// parentRef has none), or the zero owner when it names something else.
func parentOf(obj *unstructured.Unstructured) owner {
	ref, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "parentRef")
	if ref["group"] != "" || ref["resource"] != "services" {
		return owner{}
	}
	return owner{Namespace: ref["namespace"], Name: ref["name"]}
}

// ipAddress is the IPAddress holding ip for the Service o, as kube's
// allocator writes it (its managed fields those kube-apiserver records).
func (a *Allocator) ipAddress(ip netip.Addr, o owner) *unstructured.Unstructured {
	now := a.now().UTC().Format(time.RFC3339)
	empty := map[string]any{}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
		"metadata": map[string]any{
			"name": ip.String(), "uid": uuid.NewString(), "creationTimestamp": now,
			"labels": map[string]any{
				networkingv1.LabelIPAddressFamily: string(familyOf(ip)),
				networkingv1.LabelManagedBy:       ManagedBy,
			},
			"managedFields": []any{map[string]any{
				"manager": "kube-apiserver", "operation": "Update", "apiVersion": "networking.k8s.io/v1",
				"time": now, "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{
					"f:metadata": map[string]any{"f:labels": map[string]any{".": empty,
						"f:" + networkingv1.LabelIPAddressFamily: empty, "f:" + networkingv1.LabelManagedBy: empty}},
					"f:spec": map[string]any{"f:parentRef": map[string]any{".": empty,
						"f:name": empty, "f:namespace": empty, "f:resource": empty}},
				},
			}},
		},
		"spec": map[string]any{"parentRef": map[string]any{"resource": "services", "namespace": o.Namespace, "name": o.Name}},
	}}
}
