package quota

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// add is a+b, resource by resource.
func add(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range a {
		out[name] = q.DeepCopy()
	}
	for name, q := range b {
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	return out
}

// increase is what b holds beyond a, resource by resource: an update is
// charged for what it adds and never credited for what it gives back (the
// controller's recount does that).
func increase(b, a corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range b {
		d := q.DeepCopy()
		d.Sub(a[name])
		if d.Sign() > 0 {
			out[name] = d
		}
	}
	return out
}

// mask keeps the resources of l that are named in names.
func mask(l corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, name := range names {
		if q, ok := l[name]; ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// names lists l's resource names, sorted so that messages are stable.
func names(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for name := range l {
		out = append(out, name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// exceeded lists the resources of used that are above hard; a resource
// hard does not name is unlimited.
func exceeded(used, hard corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range names(used) {
		limit, ok := hard[name]
		if !ok {
			continue
		}
		q := used[name]
		if q.Cmp(limit) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// equal says whether a and b name the same resources with equal
// quantities ("1" and "1000m" are equal).
func equal(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

// prettyPrint writes l as kube's quota messages do: name=quantity, sorted,
// comma separated.
func prettyPrint(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for _, name := range names(l) {
		q := l[name]
		parts = append(parts, string(name)+"="+q.String())
	}
	return strings.Join(parts, ",")
}

// prettyPrintNames writes resource names sorted and comma separated.
func prettyPrintNames(ns []corev1.ResourceName) string {
	parts := make([]string, 0, len(ns))
	for _, n := range ns {
		parts = append(parts, string(n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
