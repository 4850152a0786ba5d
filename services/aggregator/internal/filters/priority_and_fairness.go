package filters

import (
	"context"
	"net/http"
	"time"

	flowcontrol "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	fcrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/kubeuser"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// maxQueueWait caps how long a request waits in its queue, as kube caps it.
const maxQueueWait = time.Minute

// FairnessConfig configures WithPriorityAndFairness.
type FairnessConfig struct {
	// Controller classifies, queues and dispatches requests by the
	// cluster's FlowSchemas and PriorityLevelConfigurations: kube's API
	// Priority and Fairness, k8s.io/apiserver/pkg/util/flowcontrol.
	Controller utilflowcontrol.Interface
	// QueueWait bounds the wait in a queue of a request whose context has
	// no deadline; kube uses a quarter of --request-timeout, and so does
	// zero (a quarter of DefaultRequestTimeout). A request with a deadline
	// waits a quarter of what is left of it.
	QueueWait time.Duration
}

// WithPriorityAndFairness serves each request when kube's API Priority and
// Fairness dispatches it, as kube-apiserver's filter of the same name
// does: classified by FlowSchema into a priority level, queued fairly
// among the flows of that level, and refused with 429 and Retry-After
// when its queue is full or its wait runs out. Every answer names the
// FlowSchema and priority level by UID in kube's X-Kubernetes-PF-*
// headers.
//
// It needs the user and the request info, so it runs after
// authentication and impersonation and before authorization, where kube
// has it. A watch holds its seats only until the upstream answers (its
// initialization), as in kube; other long-running requests are not
// queued.
func WithPriorityAndFairness(cfg FairnessConfig) func(http.Handler) http.Handler {
	if cfg.QueueWait == 0 {
		cfg.QueueWait = DefaultRequestTimeout / 4
	}
	f := &fairness{cfg: cfg, dropped: utilflowcontrol.NewDroppedRequestsTracker()}
	f.estimate = fcrequest.NewWorkEstimator(noObjectCounts, cfg.Controller.GetInterestedWatchCount,
		fcrequest.DefaultWorkEstimatorConfig(), cfg.Controller.GetMaxSeats)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.serve(next, w, r) })
	}
}

// noObjectCounts is the list estimator's object counts: the aggregator
// stores nothing, so it knows none, and a list costs the minimum seats, as
// kube charges a list it delegates to an aggregated server.
func noObjectCounts(string) (storage.Stats, error) {
	return storage.Stats{}, fcrequest.ObjectCountNotFoundErr
}

type fairness struct {
	cfg      FairnessConfig
	estimate fcrequest.WorkEstimatorFunc
	dropped  utilflowcontrol.DroppedRequestsTracker
}

// dispatch is one request on its way through the controller.
type dispatch struct {
	digest utilflowcontrol.RequestDigest
	// kr is the request with kube's request info in its context, where
	// kube's work estimator and watch tracker read it.
	kr *http.Request
	// The controller's classification, once it has made it.
	flowSchema, priorityLevel       string
	flowSchemaUID, priorityLevelUID types.UID
	classified                      bool
}

func (d *dispatch) note(fs *flowcontrol.FlowSchema, pl *flowcontrol.PriorityLevelConfiguration, _ string) {
	d.flowSchema, d.priorityLevel = fs.Name, pl.Name
	d.flowSchemaUID, d.priorityLevelUID = fs.UID, pl.UID
	d.classified = true
}

func (f *fairness) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	info, r := request.AttachInfo(r)
	watch := info.Verb == "watch"
	if requestinfo.IsLongRunning(info) && !watch {
		next.ServeHTTP(w, r)
		return
	}
	kinfo := kubeRequestInfo(info)
	d := &dispatch{digest: utilflowcontrol.RequestDigest{RequestInfo: kinfo},
		kr: r.WithContext(apirequest.WithRequestInfo(r.Context(), kinfo))}
	if u, ok := request.UserFrom(r.Context()); ok {
		d.digest.User = kubeuser.FromUserInfo(u)
	}
	var served bool
	if watch {
		served = f.serveWatch(next, w, r, d)
	} else {
		ctx, cancel := f.waitContext(r.Context())
		f.handle(ctx, d, func() {
			served = true
			d.setHeaders(w)
			next.ServeHTTP(w, r)
		})
		cancel()
	}
	if !served {
		f.refuse(w, d)
	}
}

// handle asks the controller to run execute for d, when and if it
// dispatches it.
func (f *fairness) handle(ctx context.Context, d *dispatch, execute func()) {
	estimate := func() fcrequest.WorkEstimate { return f.estimate(d.kr, d.flowSchema, d.priorityLevel) }
	f.cfg.Controller.Handle(ctx, d.digest, d.note, estimate, func(bool) {}, execute)
}

// serveWatch dispatches a watch: it holds its seats from dispatch until
// the upstream answers, then goes on outside the controller's accounting
// for as long as it lasts.
func (f *fairness) serveWatch(next http.Handler, w http.ResponseWriter, r *http.Request, d *dispatch) bool {
	start := make(chan struct{})
	initialized := make(chan struct{})
	handled := make(chan struct{})
	var forget utilflowcontrol.ForgetWatchFunc
	go func() {
		defer close(handled)
		ctx, cancel := f.waitContext(r.Context())
		defer cancel()
		f.handle(ctx, d, func() {
			d.setHeaders(w)
			forget = f.cfg.Controller.RegisterWatch(d.kr)
			close(start)
			<-initialized
		})
	}()
	select {
	case <-handled:
		return false // refused: execute never ran
	case <-start:
	}
	sw := &initSignal{ResponseWriter: w, done: initialized}
	defer func() {
		sw.signal() // the watch may end without writing a byte
		<-handled
		if forget != nil {
			forget()
		}
	}()
	next.ServeHTTP(sw, r)
	return true
}

// waitContext bounds a request's wait in its queue: a quarter of what is
// left of its deadline, else QueueWait, and never more than a minute.
func (f *fairness) waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	wait := f.cfg.QueueWait
	if d, ok := ctx.Deadline(); ok {
		wait = time.Until(d) / 4
	}
	return context.WithTimeout(ctx, min(wait, maxQueueWait))
}

// refuse answers a request the controller rejected: 429 with the
// Retry-After its priority level's recent rejections call for.
func (f *fairness) refuse(w http.ResponseWriter, d *dispatch) {
	retry := int64(1)
	if d.classified {
		d.setHeaders(w)
		retry = f.dropped.GetRetryAfter(d.priorityLevel)
		f.dropped.RecordDroppedRequest(d.priorityLevel)
	}
	apierror.Write(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", int(retry)))
}

// setHeaders names the request's FlowSchema and priority level by UID,
// not by name, as kube does: the names an administrator chose stay
// private.
func (d *dispatch) setHeaders(w http.ResponseWriter) {
	if !d.classified {
		return
	}
	w.Header().Set(flowcontrol.ResponseHeaderMatchedPriorityLevelConfigurationUID, string(d.priorityLevelUID))
	w.Header().Set(flowcontrol.ResponseHeaderMatchedFlowSchemaUID, string(d.flowSchemaUID))
}

// kubeRequestInfo is info as kube's RequestInfo, which FlowSchemas match.
func kubeRequestInfo(info *requestinfo.Info) *apirequest.RequestInfo {
	return &apirequest.RequestInfo{
		IsResourceRequest: info.IsResourceRequest, Path: info.Path, Verb: info.Verb,
		APIPrefix: info.APIPrefix, APIGroup: info.APIGroup, APIVersion: info.APIVersion,
		Namespace: info.Namespace, Resource: info.Resource, Subresource: info.Subresource,
		Name: info.Name, Parts: info.Parts,
	}
}
