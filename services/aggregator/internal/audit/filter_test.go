package audit

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

const everything = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: %s
`

func policyAt(t *testing.T, level string) *Policy {
	return writePolicy(t, strings.Replace(everything, "%s", level, 1))
}

const configMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"kubectl"}]},"data":{"k":"v"}}`

// At Metadata level a write is recorded as it arrives and as it completes,
// with who, what and the answer's code, and no body.
func TestMetadataLevel(t *testing.T) {
	s := newStack(t, policyAt(t, "Metadata"), echo)
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/configmaps", configMap)
	evs := s.flush(t)
	if len(evs) != 2 || evs[0].Stage != StageRequestReceived || evs[1].Stage != StageResponseComplete {
		t.Fatalf("events %+v, want RequestReceived then ResponseComplete", evs)
	}
	ev := evs[1]
	if ev.AuditID != "id-1" || ev.Verb != "create" || ev.User.Username != "alice" || ev.Level != LevelMetadata ||
		ev.ObjectRef == nil || ev.ObjectRef.Resource != "configmaps" || ev.ObjectRef.Namespace != "ns" ||
		ev.ResponseStatus == nil || ev.ResponseStatus.Code != http.StatusCreated || len(ev.SourceIPs) == 0 {
		t.Errorf("event %+v", ev)
	}
	if ev.RequestObject != nil || ev.ResponseObject != nil {
		t.Errorf("bodies recorded at Metadata level: %s %s", ev.RequestObject, ev.ResponseObject)
	}
}

// At Request level the request's object is recorded, and the handler still
// reads the whole body; at RequestResponse the answer's object too, without
// managed fields when the policy says so.
func TestRequestAndResponseLevels(t *testing.T) {
	s := newStack(t, policyAt(t, "Request"), echo)
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/configmaps", configMap)
	evs := s.flush(t)
	if got := string(evs[1].RequestObject); got != configMap {
		t.Errorf("request object %s", got)
	}
	if evs[1].ResponseObject != nil {
		t.Errorf("response recorded at Request level")
	}

	s = newStack(t, writePolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: true\nrules:\n- level: RequestResponse\n"), echo)
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/configmaps", configMap)
	evs = s.flush(t)
	var resp struct {
		Metadata map[string]any    `json:"metadata"`
		Data     map[string]string `json:"data"`
	}
	if err := json.Unmarshal(evs[1].ResponseObject, &resp); err != nil {
		t.Fatalf("response object %s: %v", evs[1].ResponseObject, err)
	}
	if resp.Metadata["name"] != "c" || resp.Metadata["managedFields"] != nil || resp.Data["k"] != "v" {
		t.Errorf("response object %s", evs[1].ResponseObject)
	}
}

// Secrets and tokens are never in the log, whatever the policy.
func TestSecretsStayOutOfTheLog(t *testing.T) {
	s := newStack(t, policyAt(t, "RequestResponse"), echo)
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/secrets", `{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}`)
	s.do(t, http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", `{"kind":"TokenReview","spec":{"token":"sekrit-token"}}`)
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/serviceaccounts/default/token", `{"kind":"TokenRequest","status":{"token":"issued-token"}}`)
	evs := s.flush(t)
	if len(evs) != 6 {
		t.Fatalf("%d events, want 6", len(evs))
	}
	for _, ev := range evs {
		if ev.Level != LevelMetadata {
			t.Errorf("%s audited at %s", ev.RequestURI, ev.Level)
		}
	}
	for _, secret := range []string{"aHVudGVyMg", "sekrit-token", "issued-token", "Bearer", "alice\"}"} {
		if strings.Contains(s.log.raw(), secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}

// A request refused by authentication is audited too, as nobody, with the
// Status it was refused with.
func TestFailedAuthentication(t *testing.T) {
	s := newStack(t, policyAt(t, "Metadata"), echo)
	s.do(t, http.MethodGet, "/api/v1/namespaces", "", "Authorization", "Bearer wrong")
	evs := s.flush(t)
	if len(evs) != 1 || evs[0].Stage != StageResponseComplete {
		t.Fatalf("events %+v, want one ResponseComplete", evs)
	}
	st := evs[0].ResponseStatus
	if evs[0].User.Username != "" || st.Code != http.StatusUnauthorized || st.Reason != "Unauthorized" {
		t.Errorf("event %+v, status %+v", evs[0], st)
	}
	if strings.Contains(s.log.raw(), "wrong") {
		t.Error("the log holds the rejected token")
	}
}

// The user acted as is recorded beside the authenticated one, and
// annotations (the authorization decision) reach the event.
func TestImpersonationAndAnnotations(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Annotate(r.Context(), "authorization.k8s.io/decision", "forbid")
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps is forbidden","reason":"Forbidden","code":403}`, http.StatusForbidden)
	})
	s := newStack(t, policyAt(t, "Metadata"), h)
	s.do(t, http.MethodGet, "/api/v1/namespaces/ns/configmaps", "", "Impersonate-User", "bob")
	evs := s.flush(t)
	ev := evs[len(evs)-1]
	if ev.User.Username != "alice" || ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != "bob" {
		t.Errorf("users %+v %+v", ev.User, ev.ImpersonatedUser)
	}
	if ev.Annotations["authorization.k8s.io/decision"] != "forbid" || ev.ResponseStatus.Reason != "Forbidden" ||
		ev.ResponseStatus.Message != "configmaps is forbidden" {
		t.Errorf("event %+v status %+v", ev, ev.ResponseStatus)
	}
}

// A handler that panics is recorded at the Panic stage, and the panic goes
// on to the recovery filter.
func TestPanicStage(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	s := newStack(t, policyAt(t, "Metadata"), h)
	s.do(t, http.MethodGet, "/api/v1/namespaces", "")
	evs := s.flush(t)
	last := evs[len(evs)-1]
	if last.Stage != StagePanic || last.ResponseStatus.Code != http.StatusInternalServerError || !strings.Contains(last.ResponseStatus.Message, "boom") {
		t.Errorf("last event %+v", last)
	}
}

// A watch is recorded when its response starts and when it ends.
func TestLongRunningStages(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"type":"ADDED"}`))
	})
	s := newStack(t, policyAt(t, "RequestResponse"), h)
	s.do(t, http.MethodGet, "/api/v1/namespaces/ns/configmaps?watch=1", "")
	evs := s.flush(t)
	var stages []Stage
	for _, ev := range evs {
		stages = append(stages, ev.Stage)
		if ev.ResponseObject != nil {
			t.Errorf("a watch's stream was recorded: %s", ev.ResponseObject)
		}
	}
	want := []Stage{StageRequestReceived, StageResponseStarted, StageResponseComplete}
	if len(stages) != 3 || stages[0] != want[0] || stages[1] != want[1] || stages[2] != want[2] {
		t.Errorf("stages %v, want %v", stages, want)
	}
}

// The first matching rule decides; None means nothing is written, and
// omitted stages are not written.
func TestPolicyRules(t *testing.T) {
	p := writePolicy(t, `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: [alice]
  verbs: [get]
- level: Metadata
  resources:
  - group: ""
    resources: ["configmaps"]
`)
	s := newStack(t, p, echo)
	s.do(t, http.MethodGet, "/api/v1/namespaces/ns/configmaps/c", "")
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/configmaps", configMap)
	s.do(t, http.MethodPost, "/api/v1/namespaces/ns/secrets", "{}")
	evs := s.flush(t)
	if len(evs) != 1 || evs[0].Verb != "create" || evs[0].ObjectRef.Resource != "configmaps" || evs[0].Stage != StageResponseComplete {
		t.Fatalf("events %+v, want only the config map create's completion", evs)
	}
}

// An event names the trace of its request, when it has one.
func TestEventCarriesTraceID(t *testing.T) {
	tid := trace.TraceID{0xab, 1, 2, 3}
	traced := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{9}, TraceFlags: trace.FlagsSampled})
			next.ServeHTTP(w, r.WithContext(trace.ContextWithSpanContext(r.Context(), sc)))
		})
	}
	s := newStack(t, policyAt(t, "Metadata"), echo)
	s.server.Config.Handler = traced(s.server.Config.Handler)
	s.do(t, http.MethodGet, "/api/v1/namespaces", "")
	evs := s.flush(t)
	if len(evs) == 0 || evs[0].Annotations[TraceAnnotation] != tid.String() {
		t.Errorf("events %+v, want the trace id %s", evs, tid)
	}
}
