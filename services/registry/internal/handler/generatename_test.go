package handler

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// suffixes makes e's handler generate names from the given suffixes, the
// last one repeated, and counts the names it made.
func suffixes(e *env, list ...string) *atomic.Int32 {
	var n atomic.Int32
	e.h.suffix = func() string {
		i := int(n.Add(1)) - 1
		return list[min(i, len(list)-1)]
	}
	return &n
}

// A generated name that collides with an existing object is generated
// again, as kube's RetryGenerateName does, so a create with generateName
// succeeds while it has attempts left.
func TestGenerateNameRetriesCollisions(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"gen-taken"}}`, http.StatusCreated)
	for _, collisions := range []int{1, maxNameGenerationAttempts - 1} {
		list := slices.Repeat([]string{"taken"}, collisions)
		fresh := "free" + string(rune('a'+collisions))
		made := suffixes(e, append(list, fresh)...)
		got := e.mustDo("POST", cmPath, `{"metadata":{"generateName":"gen-"},"data":{"k":"v"}}`, http.StatusCreated)
		if name := str(got, "metadata.name"); name != "gen-"+fresh {
			t.Errorf("after %d collisions created %q, want gen-%s", collisions, name, fresh)
		}
		if int(made.Load()) != collisions+1 {
			t.Errorf("%d names generated for %d collisions", made.Load(), collisions)
		}
		e.mustDo("GET", cmPath+"/gen-"+fresh, "", http.StatusOK)
	}
}

// A name that collides on every attempt gets kube's answer after
// maxNameGenerationAttempts: 409 AlreadyExists saying no unique name could
// be found, with a retry hint, and nothing stored. A name the client chose
// is never retried.
func TestGenerateNameGivesUp(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"gen-taken"}}`, http.StatusCreated)
	made := suffixes(e, "taken")
	before := e.etcdState()
	resp, data := e.do("POST", cmPath, `{"metadata":{"generateName":"gen-"}}`)
	s := status(t, resp, data, http.StatusConflict, metav1.StatusReasonAlreadyExists)
	if !strings.Contains(s.Message, "not able to generate a unique name") || s.Details == nil || s.Details.RetryAfterSeconds != 1 {
		t.Errorf("Status %+v, want kube's generate-name conflict", s)
	}
	if made.Load() != maxNameGenerationAttempts {
		t.Errorf("%d attempts, want %d", made.Load(), maxNameGenerationAttempts)
	}
	made.Store(0)
	resp, data = e.do("POST", cmPath, `{"metadata":{"name":"gen-taken","generateName":"gen-"}}`)
	if s := status(t, resp, data, http.StatusConflict, metav1.StatusReasonAlreadyExists); strings.Contains(s.Message, "unique name") || made.Load() != 0 {
		t.Errorf("a chosen name was treated as generated (%d names made): %s", made.Load(), s.Message)
	}
	e.untouched(before, "creates whose names collide")
}
