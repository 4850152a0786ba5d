package namespace

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// wantConditions are the deletion conditions kube's namespace controller
// reports, computed from one pass over the content. Every type is always
// present, False when all is well, so a client can tell "fine" from "not
// looked at yet".
func wantConditions(c content) []corev1.NamespaceCondition {
	cond := func(t corev1.NamespaceConditionType, bad bool, badReason, goodReason, msg string) corev1.NamespaceCondition {
		if bad {
			return corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: badReason, Message: msg}
		}
		return corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: goodReason}
	}
	discoveryMsg := ""
	if c.discoveryErr != nil {
		discoveryMsg = "Discovery failed for some groups: " + c.discoveryErr.Error()
	}
	deleteMsg := ""
	if len(c.deleteErrs) > 0 {
		deleteMsg = "Failed to delete all resource types: " + joinErrs(c.deleteErrs)
	}
	return []corev1.NamespaceCondition{
		cond(corev1.NamespaceDeletionDiscoveryFailure, c.discoveryErr != nil,
			"DiscoveryFailed", "ResourcesDiscovered", discoveryMsg),
		// Discovery here parses every group version or skips it, so this
		// one is never true; kube reports it, so it is reported.
		cond(corev1.NamespaceDeletionGVParsingFailure, false, "GroupVersionParsingFailed", "ParsedGroupVersions", ""),
		cond(corev1.NamespaceDeletionContentFailure, len(c.deleteErrs) > 0,
			"ContentDeletionFailed", "ContentDeleted", deleteMsg),
		cond(corev1.NamespaceContentRemaining, len(c.remaining) > 0,
			"SomeResourcesRemain", "ContentRemoved", "Some resources are remaining: "+countList(c.remaining)),
		cond(corev1.NamespaceFinalizersRemaining, len(c.finalizers) > 0,
			"SomeFinalizersRemain", "ContentHasNoFinalizers",
			"Some content in the namespace has finalizers remaining: "+countList(c.finalizers)),
	}
}

// mergeConditions sets want into have, keeping the transition time of a
// condition whose status did not change, and any condition types it does
// not own. It reports whether anything changed.
func mergeConditions(have, want []corev1.NamespaceCondition, now metav1.Time) ([]corev1.NamespaceCondition, bool) {
	out := make([]corev1.NamespaceCondition, 0, len(have)+len(want))
	changed := false
	owned := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}
	for _, w := range want {
		owned[w.Type] = w
	}
	seen := map[corev1.NamespaceConditionType]bool{}
	for _, h := range have {
		w, ok := owned[h.Type]
		if !ok {
			out = append(out, h)
			continue
		}
		seen[h.Type] = true
		w.LastTransitionTime = h.LastTransitionTime
		if w.Status != h.Status {
			w.LastTransitionTime = now
		}
		if w != h {
			changed = true
		}
		out = append(out, w)
	}
	for _, w := range want {
		if !seen[w.Type] {
			w.LastTransitionTime = now
			out = append(out, w)
			changed = true
		}
	}
	return out, changed
}

// updateStatus records the conditions (and the Terminating phase, which
// the registry sets on delete but a namespace restored from an older
// backup may lack) if they changed, and returns the namespace to finalize.
func (c *Controller) updateStatus(ctx context.Context, ns *corev1.Namespace, cont content) (*corev1.Namespace, error) {
	conds, changed := mergeConditions(ns.Status.Conditions, wantConditions(cont), c.now())
	if !changed && ns.Status.Phase == corev1.NamespaceTerminating {
		return ns, nil
	}
	ns = ns.DeepCopy()
	ns.Status.Conditions = conds
	ns.Status.Phase = corev1.NamespaceTerminating
	return c.client.CoreV1().Namespaces().UpdateStatus(ctx, ns, metav1.UpdateOptions{})
}

// joinErrs renders errors on one line.
func joinErrs(errs []error) string {
	s := ""
	for i, e := range errs {
		if i > 0 {
			s += "; "
		}
		s += e.Error()
	}
	return s
}
