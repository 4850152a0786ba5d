package serviceip

import (
	"context"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// DefaultServiceCIDRName is the ServiceCIDR kube-apiserver makes from
// --service-cluster-ip-range.
const DefaultServiceCIDRName = "kubernetes"

// serviceCIDRManager is the field manager kube's default ServiceCIDR
// controller applies the object's status with.
const serviceCIDRManager = "kubernetes-service-cidr-controller"

// ranges are the ranges of family a cluster IP may come from: the
// configured ones (the default ServiceCIDR's) first, then those of every
// other ServiceCIDR that is ready and not being deleted, as kube's
// MetaAllocator keeps one allocator per ready ServiceCIDR. The configured
// ranges count even before their object is written, so a Service created
// while the registry starts gets an address. rv is the resourceVersion
// the ServiceCIDRs are read at: "0" from the cache, "" from etcd.
func (a *Allocator) ranges(ctx context.Context, family api.IPFamily, rv string) []*ipRange {
	var out []*ipRange
	seen := map[netip.Prefix]bool{}
	add := func(r *ipRange) {
		if r.family == family && !seen[r.prefix] {
			seen[r.prefix] = true
			out = append(out, r)
		}
	}
	for _, r := range a.configured {
		add(r)
	}
	res, err := a.stores.ServiceCIDRs.List(ctx, "", storage.ListOptions{ReadOptions: storage.ReadOptions{ResourceVersion: rv}})
	if err != nil {
		slog.Warn("serviceip: cannot list ServiceCIDRs, using the configured ranges only", "err", err)
		return out
	}
	defer res.Release()
	for _, item := range res.Items {
		cidr := &networkingv1.ServiceCIDR{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Decode().Object, cidr); err != nil || !ready(cidr) {
			continue
		}
		for _, c := range cidr.Spec.CIDRs {
			if p, err := netip.ParsePrefix(c); err == nil {
				if r, err := newRange(p); err == nil {
					add(r)
				}
			}
		}
	}
	return out
}

// ready is kube's test of a ServiceCIDR addresses may be taken from: not
// being deleted, and Ready unless its status says otherwise (no
// kube-controller-manager may be running to set it).
func ready(c *networkingv1.ServiceCIDR) bool {
	if c.DeletionTimestamp != nil {
		return false
	}
	for _, cond := range c.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady {
			return cond.Status == metav1.ConditionTrue
		}
	}
	return true
}

// rangeOf is a range holding ip, as kube looks for an allocator of a
// requested address; read from etcd, so that a ServiceCIDR made or deleted
// a moment ago counts (requested addresses are rare, so this costs little).
func (a *Allocator) rangeOf(ctx context.Context, ip netip.Addr) (*ipRange, bool) {
	for _, r := range a.ranges(ctx, familyOf(ip), "") {
		if r.contains(ip) {
			return r, true
		}
	}
	return nil, false
}

// EnsureDefaultServiceCIDR writes the ServiceCIDR "kubernetes" of the
// configured ranges, Ready, as kube-apiserver's default ServiceCIDR
// controller does: created when missing, its status set Ready when it has
// none, upgraded from single- to dual-stack when the flag gained a second
// range. One that differs otherwise is kept and logged, as kube does.
func (a *Allocator) EnsureDefaultServiceCIDR(ctx context.Context) error {
	store := a.stores.ServiceCIDRs
	want := make([]string, len(a.configured))
	for i, r := range a.configured {
		want[i] = r.prefix.String()
	}
	obj, err := store.Get(ctx, "", DefaultServiceCIDRName, storage.ReadOptions{})
	if apierrors.IsNotFound(err) {
		_, err = store.Create(ctx, a.defaultServiceCIDR(want), false)
		if apierrors.IsAlreadyExists(err) {
			return nil // another replica did
		}
		return err
	}
	if err != nil {
		return err
	}
	cur := &networkingv1.ServiceCIDR{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Decode().Object, cur); err != nil {
		return err
	}
	upgrade := len(want) == 2 && len(cur.Spec.CIDRs) == 1 && cur.Spec.CIDRs[0] == want[0]
	unready := !slices.ContainsFunc(cur.Status.Conditions, func(c metav1.Condition) bool {
		return c.Type == networkingv1.ServiceCIDRConditionReady
	})
	switch {
	case upgrade:
		slog.Info("serviceip: updating the default ServiceCIDR from single-stack to dual-stack", "from", cur.Spec.CIDRs, "to", want)
	case !slices.Equal(cur.Spec.CIDRs, want):
		slog.Warn("serviceip: the default ServiceCIDR does not match --service-cluster-ip-range", "serviceCIDR", cur.Spec.CIDRs, "flag", want)
		return nil
	case !unready:
		return nil
	}
	_, err = store.Update(ctx, "", DefaultServiceCIDRName, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		next := cur.Decode()
		if upgrade {
			if err := unstructured.SetNestedStringSlice(next.Object, want, "spec", "cidrs"); err != nil {
				return nil, err
			}
		}
		if unready {
			if err := unstructured.SetNestedSlice(next.Object, []any{a.readyCondition()}, "status", "conditions"); err != nil {
				return nil, err
			}
		}
		return next, nil
	}, false)
	return err
}

// defaultServiceCIDR is the object kube-apiserver writes, managed fields
// included.
func (a *Allocator) defaultServiceCIDR(cidrs []string) *unstructured.Unstructured {
	now := a.now().UTC().Format(time.RFC3339)
	managed := []any{
		map[string]any{"manager": serviceCIDRManager, "operation": "Apply", "apiVersion": "networking.k8s.io/v1",
			"time": now, "fieldsType": "FieldsV1", "subresource": "status",
			"fieldsV1": map[string]any{"f:status": map[string]any{"f:conditions": map[string]any{`k:{"type":"Ready"}`: map[string]any{
				".": map[string]any{}, "f:lastTransitionTime": map[string]any{}, "f:message": map[string]any{},
				"f:status": map[string]any{}, "f:type": map[string]any{}}}}}},
		map[string]any{"manager": "kube-apiserver", "operation": "Update", "apiVersion": "networking.k8s.io/v1",
			"time": now, "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:cidrs": map[string]any{}}}},
	}
	specCIDRs := make([]any, len(cidrs))
	for i, c := range cidrs {
		specCIDRs[i] = c
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
		"metadata": map[string]any{"name": DefaultServiceCIDRName, "uid": uuid.NewString(),
			"creationTimestamp": now, "managedFields": managed},
		"spec":   map[string]any{"cidrs": specCIDRs},
		"status": map[string]any{"conditions": []any{a.readyCondition()}},
	}}
}

func (a *Allocator) readyCondition() map[string]any {
	return map[string]any{"type": networkingv1.ServiceCIDRConditionReady, "status": string(metav1.ConditionTrue),
		"lastTransitionTime": a.now().UTC().Format(time.RFC3339), "reason": "",
		"message": "Kubernetes default Service CIDR is ready"}
}
