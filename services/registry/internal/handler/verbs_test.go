package handler

import (
	"net/http"
	"testing"
)

// A resource serves only the verbs kube serves for it: namespaces are not
// deleted as a collection (405, none deleted), and serviceaccounts/token,
// which authn serves behind the aggregator, is not the registry's.
func TestOnlyKubesVerbsAreServed(t *testing.T) {
	e := newEnv(t)
	before := e.etcdState()
	if resp, data := e.do("DELETE", "/api/v1/namespaces", ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("deletecollection of namespaces: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a refused deletecollection of namespaces")
	e.mustDo("POST", "/api/v1/namespaces/ns/serviceaccounts", `{"metadata":{"name":"sa"}}`, http.StatusCreated)
	before = e.etcdState()
	if resp, data := e.do("POST", "/api/v1/namespaces/ns/serviceaccounts/sa/token", `{"spec":{}}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("token request at the registry: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a token request at the registry")
}

// A delete answers as kube's storage of the kind does: the deleted object
// for pods, services, PVCs and the like, a Status for the rest.
func TestDeleteAnswersAsKubesStorage(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/api/v1/namespaces/ns/services", `{"metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}}`, http.StatusCreated)
	if got := e.mustDo("DELETE", "/api/v1/namespaces/ns/services/s", "", http.StatusOK); got["kind"] != "Service" {
		t.Errorf("deleting a Service answered %v, want the Service", got["kind"])
	}
	e.mustDo("POST", cmPath, `{"metadata":{"name":"c"}}`, http.StatusCreated)
	if got := e.mustDo("DELETE", cmPath+"/c", "", http.StatusOK); got["kind"] != "Status" {
		t.Errorf("deleting a ConfigMap answered %v, want a Status", got["kind"])
	}
}
