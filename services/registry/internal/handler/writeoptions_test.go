package handler

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A write's query is read and checked as kube's handlers read it: each
// refused option is 422 Invalid for CreateOptions, UpdateOptions or
// PatchOptions naming the option, and nothing is stored.
func TestWriteOptionsAreValidated(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a"}}`, http.StatusCreated)
	const (
		mergeCT = "application/merge-patch+json"
		smpCT   = "application/strategic-merge-patch+json"
	)
	long := strings.Repeat("m", 200)
	for _, c := range []struct {
		name, method, query, ct, body string
		kind, field                   string
	}{
		{"long fieldManager on create", "POST", "?fieldManager=" + long, "", `{"metadata":{"name":"x"}}`, "CreateOptions", "fieldManager"},
		{"long fieldManager on update", "PUT", "/a?fieldManager=" + long, "", `{"metadata":{"name":"a"}}`, "UpdateOptions", "fieldManager"},
		{"long fieldManager on patch", "PATCH", "/a?fieldManager=" + long, mergeCT, `{}`, "PatchOptions", "fieldManager"},
		{"long fieldManager on apply", "PATCH", "/a?fieldManager=" + long, applyCT, "metadata:\n  name: a\n", "PatchOptions", "fieldManager"},
		{"unprintable fieldManager", "POST", "?fieldManager=bell%07", "", `{"metadata":{"name":"x"}}`, "CreateOptions", "fieldManager"},
		{"dryRun other than All", "POST", "?dryRun=Some", "", `{"metadata":{"name":"x"}}`, "CreateOptions", "dryRun"},
		{"dryRun All and another", "PUT", "/a?dryRun=All&dryRun=Some", "", `{"metadata":{"name":"a"}}`, "UpdateOptions", "dryRun"},
		{"empty dryRun", "PATCH", "/a?dryRun=", mergeCT, `{}`, "PatchOptions", "dryRun"},
		{"unknown fieldValidation", "POST", "?fieldValidation=Loose", "", `{"metadata":{"name":"x"}}`, "CreateOptions", "fieldValidation"},
		{"lower-case fieldValidation", "PATCH", "/a?fieldValidation=strict", mergeCT, `{}`, "PatchOptions", "fieldValidation"},
		{"force on a merge patch", "PATCH", "/a?force=true", mergeCT, `{}`, "PatchOptions", "force"},
		{"force=false on a strategic merge patch", "PATCH", "/a?force=false", smpCT, `{}`, "PatchOptions", "force"},
		{"apply without a fieldManager", "PATCH", "/a", applyCT, "metadata:\n  name: a\n", "PatchOptions", "fieldManager"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.etcdState()
			header := []string{}
			if c.ct != "" {
				header = append(header, "Content-Type", c.ct)
			}
			resp, data := e.do(c.method, cmPath+c.query, c.body, header...)
			s := status(t, resp, data, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
			if s.Details == nil || s.Details.Kind != c.kind || s.Details.Group != metav1.GroupName ||
				len(s.Details.Causes) == 0 || s.Details.Causes[0].Field != c.field {
				t.Errorf("Status details %+v, want %s.%s naming %s", s.Details, c.kind, metav1.GroupName, c.field)
			}
			e.untouched(before, c.name)
		})
	}
	// The longest fieldManager kube takes is stored as given.
	ok := strings.Repeat("m", 128)
	got := e.mustDo("POST", cmPath+"?fieldManager="+ok, `{"metadata":{"name":"b"},"data":{"k":"v"}}`, http.StatusCreated)
	if _, found := managers(got)[ok]; !found {
		t.Errorf("managers %v, want the 128-character one", managers(got))
	}
}

// Apply's ?force is read as kube reads a boolean query parameter: only
// "false" and "0" (and no value at all) do not force, so ?force=maybe
// takes the fields another manager owns rather than answering a conflict.
func TestApplyForceIsKubesBoolean(t *testing.T) {
	e := newEnv(t)
	path := cmPath + "/f"
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\ndata:\n  k: %s\n"
	apply := func(manager, query, value string) (*http.Response, []byte) {
		return e.do("PATCH", path+"?fieldManager="+manager+query, strings.Replace(doc, "%s", value, 1), "Content-Type", applyCT)
	}
	if resp, data := apply("alice", "", "a"); resp.StatusCode != http.StatusCreated {
		t.Fatalf("first apply: %d %s", resp.StatusCode, data)
	}
	for _, q := range []string{"", "&force=false", "&force=0", "&force=FALSE"} {
		resp, data := apply("bob", q, "b")
		status(t, resp, data, http.StatusConflict, metav1.StatusReasonConflict)
	}
	for i, q := range []string{"&force=maybe", "&force=True", "&force=1", "&force="} {
		value := string(rune('c' + i))
		resp, data := apply("bob", q, value)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("apply%s: %d %s", q, resp.StatusCode, data)
		}
		if got := e.mustDo("GET", path, "", http.StatusOK); str(got, "data.k") != value {
			t.Errorf("apply%s left data.k %q, want %q", q, str(got, "data.k"), value)
		}
		// Give the field back to alice for the next case.
		if resp, data := apply("alice", "&force=true", "a"); resp.StatusCode != http.StatusOK {
			t.Fatalf("alice taking k back: %d %s", resp.StatusCode, data)
		}
	}
}

// A delete's options, from its body or its query, get kube's checks too:
// 422 Invalid for DeleteOptions, and nothing deleted.
func TestDeleteOptionsAreValidated(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"a"}}`, http.StatusCreated)
	for _, c := range []struct{ name, path, body, field string }{
		{"dryRun other than All", "/a?dryRun=Some", "", "dryRun"},
		{"dryRun other than All in the body", "/a", `{"dryRun":["Bogus"]}`, "dryRun"},
		{"dryRun other than All on a collection", "?dryRun=Some", "", "dryRun"},
		{"unknown propagationPolicy", "/a?propagationPolicy=Sideways", "", "propagationPolicy"},
		{"unknown propagationPolicy in the body", "/a", `{"propagationPolicy":"Sometimes"}`, "propagationPolicy"},
		{"orphanDependents beside propagationPolicy", "/a", `{"orphanDependents":true,"propagationPolicy":"Background"}`, "propagationPolicy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.etcdState()
			resp, data := e.do("DELETE", cmPath+c.path, c.body)
			s := status(t, resp, data, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
			if s.Details == nil || s.Details.Kind != "DeleteOptions" || len(s.Details.Causes) == 0 || s.Details.Causes[0].Field != c.field {
				t.Errorf("Status details %+v, want DeleteOptions naming %s", s.Details, c.field)
			}
			e.untouched(before, c.name)
		})
	}
}
