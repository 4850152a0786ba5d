package connect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// Log options are read and validated as kube does before any pod is
// read: a value that does not parse is 400, one that parses but is
// invalid 422.
func TestLogOptionsRefused(t *testing.T) {
	h := &Handler{}
	for query, want := range map[string]int{
		"sinceSeconds=abc": http.StatusBadRequest,
		"tailLines=-1":     http.StatusUnprocessableEntity,
		"limitBytes=0":     http.StatusUnprocessableEntity,
		"sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z": http.StatusUnprocessableEntity,
		"sinceSeconds=0": http.StatusUnprocessableEntity,
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/ns/pods/p/log?"+query, nil)
		info := requestinfo.New(r)
		err := h.log(context.Background(), httptest.NewRecorder(), r, info)
		if got := statusCode(err); got != want {
			t.Errorf("%s: %v (%d), want %d", query, err, got, want)
		}
	}
}

func statusCode(err error) int {
	if s, ok := err.(apierrors.APIStatus); ok {
		return int(s.Status().Code)
	}
	return 0
}

// An error that is no Status (a kubelet that does not answer) is kube's
// 500 with the error's own text and no reason.
func TestAsStatus(t *testing.T) {
	err := AsStatus(errorString("dial tcp 127.0.0.1:1: connect: connection refused"))
	s := err.(apierrors.APIStatus).Status()
	if s.Code != 500 || s.Reason != "" || s.Message != "dial tcp 127.0.0.1:1: connect: connection refused" {
		t.Errorf("got %+v", s)
	}
	nf := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "p")
	if AsStatus(nf) != error(nf) {
		t.Error("a Status was rewritten")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// A kubelet's refusal becomes the Status kube makes of it.
func TestKubeletAnswer(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.WriteHeader(http.StatusBadRequest)
	_, _ = rec.WriteString("bad tail")
	err := checkKubeletAnswer(rec.Result(), "p")
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "bad tail") {
		t.Errorf("400 from the kubelet: %v", err)
	}
}

// A WebSocket exec (GET) is authorized for create too, as kube does; a
// POST was authorized for create already.
func TestExecNeedsCreate(t *testing.T) {
	var asked []string
	deny := authz.AuthorizerFunc(func(_ context.Context, a authz.Attributes) (authz.Result, error) {
		asked = append(asked, a.Verb+" "+a.Resource+"/"+a.Subresource)
		return authz.Result{Decision: authz.DecisionNoOpinion}, nil
	})
	h := &Handler{cfg: Config{Authorizer: deny}}
	get := requestinfo.Parse(http.MethodGet, "/api/v1/namespaces/ns/pods/p/exec", "")
	if err := h.authorizeCreate(context.Background(), get); !apierrors.IsForbidden(err) {
		t.Errorf("GET exec without create: %v, want 403", err)
	}
	post := requestinfo.Parse(http.MethodPost, "/api/v1/namespaces/ns/pods/p/exec", "")
	if err := h.authorizeCreate(context.Background(), post); err != nil {
		t.Errorf("POST exec: %v", err)
	}
	if len(asked) != 1 || asked[0] != "create pods/exec" {
		t.Errorf("asked %v, want one create pods/exec", asked)
	}
	if err := (&Handler{}).authorizeCreate(context.Background(), get); !apierrors.IsForbidden(err) {
		t.Errorf("no authorizer: %v, want 403", err)
	}
}
