package apiservice

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The reasons of the Available condition, kube's aggregator's.
const (
	reasonLocal       = "Local"
	reasonPassed      = "Passed"
	reasonFailed      = "FailedDiscoveryCheck"
	reasonAccessError = "ServiceAccessError"
	messageLocal      = "Local APIServices are always available"
	messagePassed     = "all checks passed"
	statusTrue        = "True"
	statusFalse       = "False"
)

// statusWriteTimeout bounds one status update.
const statusWriteTimeout = 10 * time.Second

// availability is the Available condition s should have: always for a
// local one, else while some endpoint of its backend passes the discovery
// check. b is nil when the backend could not be built (buildErr says
// why). It is false, with no condition, while a new backend has not been
// checked yet.
func availability(s *apiService, b *backend, buildErr error) (condition, bool) {
	switch {
	case s.Spec.Service == nil:
		return condition{Type: conditionAvailable, Status: statusTrue, Reason: reasonLocal, Message: messageLocal}, true
	case b == nil:
		return condition{Type: conditionAvailable, Status: statusFalse, Reason: reasonAccessError, Message: buildErr.Error()}, true
	case !b.checked.Load():
		return condition{}, false
	}
	eps := b.up.Endpoints()
	for _, ep := range eps {
		if ep.Healthy {
			return condition{Type: conditionAvailable, Status: statusTrue, Reason: reasonPassed, Message: messagePassed}, true
		}
	}
	msg := "no address found for the backend"
	if len(eps) > 0 {
		msg = fmt.Sprintf("failing or missing response from %s%s: %v", eps[0].URL, "/apis/"+s.Spec.Group+"/"+s.Spec.Version, eps[0].Err)
	}
	return condition{Type: conditionAvailable, Status: statusFalse, Reason: reasonFailed, Message: msg}, true
}

// writeStatus sets s's Available condition to want through the status
// subresource, unless it is already so. The transition time moves only
// when the status does. A conflict is left for the next round, which
// reads the newer object.
func (c *Controller) writeStatus(ctx context.Context, u *unstructured.Unstructured, s *apiService, want condition) {
	have := s.available()
	if have != nil && have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
		return
	}
	want.LastTransitionTime = metav1.Now()
	if have != nil && have.Status == want.Status {
		want.LastTransitionTime = have.LastTransitionTime
	}
	obj, err := withAvailable(u, s, want)
	if err != nil {
		c.log.Warn("APIService status not written", "apiservice", s.Name, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, statusWriteTimeout)
	defer cancel()
	if _, err := c.client.Resource(GVR).UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			c.log.Warn("APIService status not written", "apiservice", s.Name, "err", err)
		}
		return
	}
	c.log.Info("APIService availability", "apiservice", s.Name, "available", want.Status, "reason", want.Reason, "message", want.Message)
}
