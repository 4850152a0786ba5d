package handler

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// Query parameters that kube refuses for a list, watch or deletecollection
// are refused with its codes: 400 for what does not decode, 422 Invalid
// (kind ListOptions) for what its ListOptions validation forbids. A
// refused deletecollection deletes nothing.
func TestListOptionsRefused(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"keep"}}`, http.StatusCreated)
	for _, tc := range []struct {
		method, query string
		code          int
	}{
		{"GET", "resourceVersion=1&resourceVersionMatch=Bogus", http.StatusUnprocessableEntity},
		{"GET", "resourceVersionMatch=NotOlderThan", http.StatusUnprocessableEntity},
		{"GET", "resourceVersion=0&resourceVersionMatch=Exact", http.StatusUnprocessableEntity},
		{"GET", "limit=2&continue=x&resourceVersionMatch=NotOlderThan", http.StatusUnprocessableEntity},
		{"GET", "sendInitialEvents=true", http.StatusUnprocessableEntity},
		{"GET", "limit=abc", http.StatusBadRequest},
		{"GET", "limit=-1", http.StatusBadRequest},
		{"GET", "limit=1&continue=not-a-token", http.StatusBadRequest},
		{"GET", "watch=true&resourceVersionMatch=Exact&sendInitialEvents=true", http.StatusUnprocessableEntity},
		{"GET", "watch=true&resourceVersionMatch=Bogus&sendInitialEvents=true", http.StatusUnprocessableEntity},
		{"GET", "watch=true&resourceVersionMatch=NotOlderThan", http.StatusUnprocessableEntity},
		{"GET", "watch=true&sendInitialEvents=true", http.StatusUnprocessableEntity},
		{"GET", "watch=true&timeoutSeconds=abc", http.StatusBadRequest},
		{"GET", "watch=true&timeoutSeconds=1.5", http.StatusBadRequest},
		{"GET", "watch=true&timeoutSeconds=-1", http.StatusBadRequest},
		{"DELETE", "resourceVersion=1&resourceVersionMatch=Bogus", http.StatusUnprocessableEntity},
		{"DELETE", "limit=abc", http.StatusBadRequest},
	} {
		before := e.etcdState()
		resp, body := e.doBounded(tc.method, cmPath+"?"+tc.query)
		if resp.StatusCode != tc.code {
			t.Errorf("%s ?%s: %d, want %d: %s", tc.method, tc.query, resp.StatusCode, tc.code, body)
			continue
		}
		status := map[string]any{}
		if err := json.Unmarshal(body, &status); err != nil || status["kind"] != "Status" || status["message"] == "" {
			t.Errorf("%s ?%s: not a Status: %s", tc.method, tc.query, body)
		}
		if tc.code == http.StatusUnprocessableEntity && (str(status, "reason") != "Invalid" || str(status, "details.kind") != "ListOptions") {
			t.Errorf("%s ?%s: %s, want Invalid ListOptions", tc.method, tc.query, body)
		}
		e.untouched(before, tc.method+" ?"+tc.query)
	}
	// What kube accepts still works.
	for _, q := range []string{"resourceVersion=1&resourceVersionMatch=NotOlderThan", "resourceVersion=0", "limit=1"} {
		e.mustDo("GET", cmPath+"?"+q, "", http.StatusOK)
	}
}

// doBounded makes a call that must end within seconds, so that a watch
// served where it should have been refused fails the test instead of
// holding it.
func (e *env) doBounded(method, path string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp, body
}
