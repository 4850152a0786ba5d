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
