package limitranger

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The three checks of a LimitRange item, with kube's messages (two spaces
// before "No" included). Quantities are compared in milli-units when
// that cannot overflow, as kube does, so 100m < 0.2 holds.

// minConstraint: a request is required and neither it nor the limit may be
// below min.
func minConstraint(limitType corev1.LimitType, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	r, l, e := values(req, lim, enforced)
	switch {
	case !reqOK:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, limitType, enforced.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	case limOK && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, limitType, enforced.String(), lim.String())
	}
	return nil
}

// maxConstraint: a limit is required and neither it nor the request may be
// above max.
func maxConstraint(limitType corev1.LimitType, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	r, l, e := values(req, lim, enforced)
	switch {
	case !limOK:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, limitType, enforced.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, limitType, enforced.String(), lim.String())
	case reqOK && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	}
	return nil
}

// maxRequestConstraint is max for claims, whose limits kube ignores: the
// request is required and may not be above max.
func maxRequestConstraint(limitType corev1.LimitType, name corev1.ResourceName, enforced resource.Quantity, requests corev1.ResourceList) error {
	req, reqOK := requests[name]
	r, _, e := values(req, resource.Quantity{}, enforced)
	switch {
	case !reqOK:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, limitType, enforced.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	}
	return nil
}

// ratioConstraint: both request and limit are required, non-zero, and
// limit/request may not exceed the ratio.
func ratioConstraint(limitType corev1.LimitType, name corev1.ResourceName, enforced resource.Quantity, requests, limits corev1.ResourceList) error {
	req, reqOK := requests[name]
	lim, limOK := limits[name]
	r, l, _ := values(req, lim, enforced)
	if !reqOK || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, limitType, enforced.String())
	}
	if !limOK || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, limitType, enforced.String())
	}
	observed := float64(l) / float64(r)
	shown := observed
	max := float64(enforced.Value())
	if enforced.Value() <= resource.MaxMilliValue {
		observed *= 1000
		max = float64(enforced.MilliValue())
	}
	if observed > max {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, limitType, enforced.String(), shown)
	}
	return nil
}

// values are the three quantities as comparable integers: milli-units when
// none overflows, units otherwise.
func values(req, lim, enforced resource.Quantity) (int64, int64, int64) {
	r, l, e := req.Value(), lim.Value(), enforced.Value()
	if r <= resource.MaxMilliValue && l <= resource.MaxMilliValue && e <= resource.MaxMilliValue {
		return req.MilliValue(), lim.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}
