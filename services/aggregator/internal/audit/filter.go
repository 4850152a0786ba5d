package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// TraceAnnotation is the event annotation holding the request's trace id.
const TraceAnnotation = "trace.kubesplit.io/id"

// Config configures the audit filters.
type Config struct {
	Policy  *Policy
	Backend *Backend
	// LongRunning tells the requests (watches) whose response is
	// recorded as it starts, at ResponseStarted, as well as at its end.
	LongRunning func(*requestinfo.Info) bool
	// Now is the clock; time.Now if nil.
	Now func() time.Time
}

// Filters are the three points of the handler chain audit needs: around
// everything after request info (so a request refused by authentication is
// audited too), after authentication (the user the policy is about), and
// after impersonation (the user the request acts as).
type Filters struct {
	Around, AfterAuthentication, AfterImpersonation func(http.Handler) http.Handler
}

// NewFilters checks cfg and returns its filters.
func NewFilters(cfg Config) (Filters, error) {
	if cfg.Policy == nil || cfg.Backend == nil || cfg.LongRunning == nil {
		return Filters{}, errors.New("audit: a policy, a backend and LongRunning are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &cfg
	return Filters{Around: c.around, AfterAuthentication: c.afterAuthentication, AfterImpersonation: c.afterImpersonation}, nil
}

// record is one request's audit state, shared by the three filters.
type record struct {
	decided  bool   // the policy was asked, with the authenticated user
	ev       *Event // nil when the request is not audited
	d        decision
	long     bool
	received metav1.MicroTime
	w        *recorder
}

type recordKey struct{}

func recordFrom(ctx context.Context) *record {
	rec, _ := ctx.Value(recordKey{}).(*record)
	return rec
}

// Annotate adds an annotation to the request's event (the authorization
// decision and its reason, as kube's); nothing when it is not audited.
func Annotate(ctx context.Context, key, value string) {
	if rec := recordFrom(ctx); rec != nil && rec.ev != nil {
		if rec.ev.Annotations == nil {
			rec.ev.Annotations = map[string]string{}
		}
		rec.ev.Annotations[key] = value
	}
}

func (c *Config) now() metav1.MicroTime { return metav1.NewMicroTime(c.Now()) }

func (c *Config) around(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &record{received: c.now(), w: &recorder{ResponseWriter: w}}
		rec.w.onStart = func(code int) {
			if rec.long && rec.ev != nil {
				c.emit(rec, rec.ev.withStatus(code, nil), StageResponseStarted)
			}
		}
		defer func() {
			if p := recover(); p != nil {
				c.finish(r, rec, fmt.Sprintf("APIServer panic'd on %v %v: %v", r.Method, r.RequestURI, p), StagePanic)
				panic(p)
			}
			c.finish(r, rec, "", StageResponseComplete)
		}()
		next.ServeHTTP(rec.w, r.WithContext(context.WithValue(r.Context(), recordKey{}, rec)))
	})
}

func (c *Config) afterAuthentication(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := recordFrom(r.Context()); rec != nil {
			user, _ := request.UserFrom(r.Context())
			c.begin(r, rec, user, true)
		}
		next.ServeHTTP(w, r)
	})
}

func (c *Config) afterImpersonation(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := recordFrom(r.Context()); rec != nil && rec.ev != nil {
			if user, ok := request.UserFrom(r.Context()); ok && user.Username != rec.ev.User.Username {
				rec.ev.ImpersonatedUser = &user
			}
		}
		next.ServeHTTP(w, r)
	})
}

// begin asks the policy about the request, as user, and records its
// arrival when arrived says so.
func (c *Config) begin(r *http.Request, rec *record, user authenticationv1.UserInfo, arrived bool) {
	info := request.InfoOf(r)
	rec.decided, rec.d, rec.long = true, c.Policy.decide(user, info), c.LongRunning(info)
	if sensitive(info) && rec.d.level.atLeast(LevelRequest) {
		rec.d.level = LevelMetadata
	}
	if rec.d.level == LevelNone {
		return
	}
	rec.ev = c.newEvent(r, info, user, rec)
	if rec.d.level.atLeast(LevelRequest) {
		rec.ev.RequestObject = c.requestObject(r, rec.d)
	}
	rec.w.captureAll = rec.d.level == LevelRequestResponse && !rec.long
	if arrived {
		c.emit(rec, rec.ev, StageRequestReceived)
	}
}

// finish records the response. A request refused by authentication is
// asked about as the nobody it was, and recorded only as it completes, as
// kube records failed authentications.
func (c *Config) finish(r *http.Request, rec *record, panicked string, stage Stage) {
	if !rec.decided {
		c.begin(r, rec, authenticationv1.UserInfo{}, false)
	}
	if rec.ev == nil {
		return
	}
	code := rec.w.code()
	if stage == StagePanic {
		code = http.StatusInternalServerError
	}
	ev := rec.ev.withStatus(code, rec.w.captured())
	if panicked != "" {
		ev.ResponseStatus.Message = panicked
	}
	if rec.d.level == LevelRequestResponse && !rec.long && code < http.StatusBadRequest {
		ev.ResponseObject = jsonObject(rec.w.captured(), rec.d.omitManagedFields)
	}
	c.emit(rec, ev, stage)
}

// emit writes ev at stage unless the policy omits the stage.
func (c *Config) emit(rec *record, ev *Event, stage Stage) {
	for _, s := range rec.d.omitStages {
		if s == stage {
			return
		}
	}
	c.Backend.Record(ev.at(stage, c.now()))
}

func (c *Config) newEvent(r *http.Request, info *requestinfo.Info, user authenticationv1.UserInfo, rec *record) *Event {
	id, _ := request.AuditIDFrom(r.Context())
	ev := &Event{Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: rec.d.level, AuditID: id,
		RequestURI: r.RequestURI, Verb: info.Verb, User: user, SourceIPs: sourceIPs(r), UserAgent: r.UserAgent(),
		RequestReceivedTimestamp: rec.received}
	if id := tracing.TraceID(r.Context()); id != "" {
		// The trace of the request, to go from an event to its spans.
		ev.Annotations = map[string]string{TraceAnnotation: id}
	}
	if info.IsResourceRequest {
		ev.ObjectRef = &ObjectReference{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
			APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource}
	}
	return ev
}

// withStatus is a copy of ev with the response's status: the code, and the
// Status the server answered with, when it answered one.
func (ev *Event) withStatus(code int, body []byte) *Event {
	out := *ev
	out.ResponseStatus = &metav1.Status{Code: int32(code)}
	var st metav1.Status
	if code >= http.StatusBadRequest && json.Unmarshal(body, &st) == nil && st.Kind == "Status" {
		out.ResponseStatus = &metav1.Status{Code: int32(code), Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details}
	}
	return &out
}

// requestObject reads the request's body, when it is a JSON object small
// enough, and puts it back for the handlers after.
func (c *Config) requestObject(r *http.Request, d decision) json.RawMessage {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength > maxCapturedBytes {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCapturedBytes+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxCapturedBytes {
		return nil
	}
	return jsonObject(body, d.omitManagedFields)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// jsonObject is body as JSON, without metadata.managedFields when omit
// says so: as it is when it is JSON, converted when it is a built-in
// type's protobuf or YAML (client-go sends protobuf), nil otherwise.
func jsonObject(body []byte, omitManagedFields bool) json.RawMessage {
	if len(body) == 0 {
		return nil
	}
	if !json.Valid(body) {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
		if err != nil {
			return nil
		}
		if body, err = json.Marshal(obj); err != nil {
			return nil
		}
	}
	if !omitManagedFields {
		return append(json.RawMessage(nil), body...)
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return append(json.RawMessage(nil), body...)
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return out
}

// sensitive are the requests whose bodies carry secrets: Secrets,
// TokenReviews (a token to check) and service-account token requests (a
// token issued). Their events never hold a body.
func sensitive(info *requestinfo.Info) bool {
	switch {
	case info.APIGroup == "" && info.Resource == "secrets":
		return true
	case info.APIGroup == "" && info.Resource == "serviceaccounts" && info.Subresource == "token":
		return true
	case info.APIGroup == "authentication.k8s.io" && info.Resource == "tokenreviews":
		return true
	}
	return false
}

// sourceIPs are the addresses the request came through, as kube lists
// them: X-Forwarded-For, X-Real-Ip, then the peer.
func sourceIPs(r *http.Request) []string {
	var ips []string
	for _, ip := range strings.Split(r.Header.Get("X-Forwarded-For"), ",") {
		if ip = strings.TrimSpace(ip); net.ParseIP(ip) != nil {
			ips = append(ips, ip)
		}
	}
	if ip := strings.TrimSpace(r.Header.Get("X-Real-Ip")); net.ParseIP(ip) != nil {
		ips = append(ips, ip)
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil && net.ParseIP(host) != nil {
		ips = append(ips, host)
	}
	return ips
}
