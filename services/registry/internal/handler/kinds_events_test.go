package handler

import (
	"net/http"
	"testing"
)

func init() {
	kindSamples["events.k8s.io/events"] = `{"regarding":{"kind":"Pod","name":"p","namespace":"ns"},"reason":"Started","note":"n",` +
		`"action":"Start","reportingController":"example.com/c","reportingInstance":"i","type":"Normal","eventTime":"2026-01-01T00:00:00.000000Z"}`
}

// One Event, written through core/v1, is read through events.k8s.io/v1 in
// that group's shape, and selected by that group's field names.
func TestEventsAreOneStorageInTwoGroups(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/api/v1/namespaces/ns/events",
		`{"metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"p","namespace":"ns"},"reason":"Started","message":"hello"}`,
		http.StatusCreated)
	got := e.mustDo("GET", "/apis/events.k8s.io/v1/namespaces/ns/events/e1", "", http.StatusOK)
	if got["apiVersion"] != "events.k8s.io/v1" || got["note"] != "hello" || at(got, "regarding.name") != "p" {
		t.Fatalf("read through events.k8s.io: %v", got)
	}
	list := e.mustDo("GET", "/apis/events.k8s.io/v1/namespaces/ns/events?fieldSelector=regarding.name%3Dp", "", http.StatusOK)
	if items, _ := list["items"].([]any); len(items) != 1 {
		t.Fatalf("selected by regarding.name: %v", list)
	}
	list = e.mustDo("GET", "/apis/events.k8s.io/v1/namespaces/ns/events?fieldSelector=regarding.name%3Dq", "", http.StatusOK)
	if items, _ := list["items"].([]any); len(items) != 0 {
		t.Fatalf("regarding.name=q selected: %v", list)
	}
	e.mustDo("DELETE", "/apis/events.k8s.io/v1/namespaces/ns/events/e1", "", http.StatusOK)
	e.mustDo("GET", "/api/v1/namespaces/ns/events/e1", "", http.StatusNotFound)
}
