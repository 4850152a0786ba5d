package limitranger

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// liveTTL is how long a live list of a namespace's LimitRanges stands in
// for an informer that has none there: kube's value.
const liveTTL = 30 * time.Second

// limitRanges are the namespace's LimitRanges, with kube's defaults for
// their items applied. When the informer has none, the API is listed (the
// informer may not have seen a range created just now), and that answer is
// kept for liveTTL so that pods in namespaces without ranges do not each
// cost a list.
func (l *limitRanger) limitRanges(ctx context.Context, namespace string) ([]corev1.LimitRange, error) {
	if err := plugin.WaitSynced(ctx, l.synced); err != nil {
		return nil, err
	}
	cached, err := l.ranges.LimitRanges(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []corev1.LimitRange
	for _, r := range cached {
		out = append(out, *r.DeepCopy())
	}
	if len(out) == 0 {
		if out, err = l.live.get(ctx, namespace, l.listLive); err != nil {
			return nil, err
		}
	}
	for i := range out {
		defaultItems(&out[i])
	}
	return out, nil
}

// listLive lists the namespace's ranges from the API.
func (l *limitRanger) listLive(ctx context.Context, namespace string) ([]corev1.LimitRange, error) {
	list, err := l.client.CoreV1().LimitRanges(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// liveCache keeps live lists per namespace for liveTTL.
type liveCache struct {
	mu      sync.Mutex
	entries map[string]liveEntry
}

type liveEntry struct {
	ranges []corev1.LimitRange
	expiry time.Time
}

func newLiveCache() *liveCache { return &liveCache{entries: map[string]liveEntry{}} }

// get returns the cached list, or lists and caches it. Items are deep
// copies, so callers may default them.
func (c *liveCache) get(ctx context.Context, namespace string, list func(context.Context, string) ([]corev1.LimitRange, error)) ([]corev1.LimitRange, error) {
	c.mu.Lock()
	e, ok := c.entries[namespace]
	c.mu.Unlock()
	if !ok || time.Now().After(e.expiry) {
		ranges, err := list(ctx, namespace)
		if err != nil {
			return nil, err
		}
		e = liveEntry{ranges: ranges, expiry: time.Now().Add(liveTTL)}
		c.mu.Lock()
		c.prune()
		c.entries[namespace] = e
		c.mu.Unlock()
	}
	out := make([]corev1.LimitRange, len(e.ranges))
	for i := range e.ranges {
		out[i] = *e.ranges[i].DeepCopy()
	}
	return out, nil
}

// prune drops expired entries; c.mu is held.
func (c *liveCache) prune() {
	now := time.Now()
	for ns, e := range c.entries {
		if now.After(e.expiry) {
			delete(c.entries, ns)
		}
	}
}

// defaultItems applies kube's defaulting of LimitRange items (the API
// server's SetDefaults_LimitRangeItem), in case the stored object was not
// defaulted: for a Container item, the default limit falls back to max,
// the default request to the default limit, then to min. On a defaulted
// object it changes nothing.
func defaultItems(r *corev1.LimitRange) {
	for i := range r.Spec.Limits {
		item := &r.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		item.Default = fill(item.Default, item.Max)
		item.DefaultRequest = fill(item.DefaultRequest, item.Default)
		item.DefaultRequest = fill(item.DefaultRequest, item.Min)
	}
}

// fill adds to dst the entries of src it lacks.
func fill(dst, src corev1.ResourceList) corev1.ResourceList {
	for k, v := range src {
		if _, ok := dst[k]; ok {
			continue
		}
		if dst == nil {
			dst = corev1.ResourceList{}
		}
		dst[k] = v.DeepCopy()
	}
	return dst
}
