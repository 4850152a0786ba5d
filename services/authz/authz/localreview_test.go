package authz

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// bobMayListPods allows exactly bob (from the review's spec) to list pods
// in ns1, and denies everything else; it records the namespace asked.
func bobMayListPods(asked *string) authz.Authorizer {
	return authz.AuthorizerFunc(func(_ context.Context, a authz.Attributes) (authz.Result, error) {
		*asked = a.Namespace
		if a.User.Username == "bob" && a.ResourceRequest && a.Verb == "list" && a.Resource == "pods" && a.Namespace == "ns1" {
			return authz.Result{Decision: authz.DecisionAllow, Reason: "bob lists pods"}, nil
		}
		return authz.Result{Decision: authz.DecisionDeny, Reason: "no"}, nil
	})
}

func localURL(base, ns string) string {
	return base + "/apis/authorization.k8s.io/v1/namespaces/" + ns + "/localsubjectaccessreviews"
}

// localReview asks whether bob may verb pods in specNS, in metaNS.
func localReview(metaNS, specNS, verb string) *authorizationv1.LocalSubjectAccessReview {
	return &authorizationv1.LocalSubjectAccessReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: metaNS},
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "bob", ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: specNS, Verb: verb, Resource: "pods",
		}},
	}
}

func TestLocalSubjectAccessReview(t *testing.T) {
	var asked string
	url, alice := selfServer(t, engines{authorizer: bobMayListPods(&asked), rules: unionRules(nil)})
	for _, media := range []string{mediaJSON, mediaProtobuf} {
		t.Run(media, func(t *testing.T) {
			var got authorizationv1.LocalSubjectAccessReview
			code := postObject(t, alice, localURL(url, "ns1"), media, encode(t, media, localReview("ns1", "ns1", "list")), &got)
			if code != http.StatusCreated || !got.Status.Allowed || got.Status.Reason != "bob lists pods" {
				t.Errorf("list = %d %+v, want 201 allowed", code, got.Status)
			}
			got = authorizationv1.LocalSubjectAccessReview{}
			code = postObject(t, alice, localURL(url, "ns1"), media, encode(t, media, localReview("ns1", "ns1", "delete")), &got)
			if code != http.StatusCreated || got.Status.Allowed || !got.Status.Denied {
				t.Errorf("delete = %d %+v, want 201 denied", code, got.Status)
			}
		})
	}
	// Empty namespaces are the URL's, and so is what is asked.
	var got authorizationv1.LocalSubjectAccessReview
	code := postObject(t, alice, localURL(url, "ns1"), mediaJSON, encode(t, mediaJSON, localReview("", "", "list")), &got)
	if code != http.StatusCreated || !got.Status.Allowed || got.Namespace != "ns1" ||
		got.Spec.ResourceAttributes.Namespace != "ns1" || asked != "ns1" {
		t.Errorf("without namespaces = %d %+v ns %q, asked %q; want 201 allowed in ns1", code, got.Status, got.Namespace, asked)
	}
	code = postObject(t, alice, localURL(url, "ns2"), mediaJSON, encode(t, mediaJSON, localReview("", "", "list")), &got)
	if code != http.StatusCreated || got.Status.Allowed || asked != "ns2" {
		t.Errorf("in ns2 = %d %+v, asked %q; want 201 not allowed, asked in ns2", code, got.Status, asked)
	}
}

// TestLocalSubjectAccessReviewRefuses: what kube refuses, it refuses with
// the same code, before asking the authorizer.
func TestLocalSubjectAccessReviewRefuses(t *testing.T) {
	var asked string
	url, alice := selfServer(t, engines{authorizer: bobMayListPods(&asked), rules: unionRules(nil)})
	js := func(o *authorizationv1.LocalSubjectAccessReview) []byte { return encode(t, mediaJSON, o) }
	noSubject := localReview("", "", "list")
	noSubject.Spec.User = ""
	nonResource := localReview("", "", "list")
	nonResource.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: "/x", Verb: "get"}
	noAttributes := localReview("", "", "list")
	noAttributes.Spec.ResourceAttributes = nil
	named := localReview("", "", "list")
	named.Name = "x"
	cases := []struct {
		name, media string
		body        []byte
		want        int
	}{
		{"metadata namespace mismatch", mediaJSON, js(localReview("ns2", "ns1", "list")), http.StatusBadRequest},
		{"spec namespace mismatch", mediaJSON, js(localReview("ns1", "ns2", "list")), http.StatusBadRequest},
		{"spec namespace mismatch, protobuf", mediaProtobuf, encode(t, mediaProtobuf, localReview("", "ns2", "list")), http.StatusBadRequest},
		{"no subject", mediaJSON, js(noSubject), http.StatusUnprocessableEntity},
		{"non-resource attributes", mediaJSON, js(nonResource), http.StatusUnprocessableEntity},
		{"no attributes", mediaJSON, js(noAttributes), http.StatusUnprocessableEntity},
		{"metadata besides namespace", mediaJSON, js(named), http.StatusUnprocessableEntity},
		{"malformed JSON", mediaJSON, []byte(`{"spec":`), http.StatusBadRequest},
		{"malformed protobuf", mediaProtobuf, []byte("k8s\x00\xff\xff"), http.StatusBadRequest},
		{"another kind", mediaJSON, []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview"}`), http.StatusBadRequest},
		{"text/plain", "text/plain", js(localReview("", "", "list")), http.StatusUnsupportedMediaType},
		{"oversized", mediaJSON, oversized(), http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		asked = "untouched"
		var got authorizationv1.LocalSubjectAccessReview
		if code := postObject(t, alice, localURL(url, "ns1"), c.media, c.body, &got); code != c.want {
			t.Errorf("%s = %d, want %d", c.name, code, c.want)
		}
		if asked != "untouched" {
			t.Errorf("%s: the authorizer was asked", c.name)
		}
	}
	var got authorizationv1.LocalSubjectAccessReview
	if code := postObject(t, http.DefaultClient, localURL(url, "ns1"), mediaJSON, js(localReview("", "", "list")), &got); code != http.StatusUnauthorized {
		t.Errorf("without the aggregator's assertion = %d, want 401", code)
	}
}

// oversized is a review whose body is over the limit.
func oversized() []byte {
	var b bytes.Buffer
	b.WriteString(`{"spec":{"user":"`)
	b.WriteString(strings.Repeat("b", maxSelfReviewBytes))
	b.WriteString(`","resourceAttributes":{"verb":"list","resource":"pods"}}}`)
	return b.Bytes()
}

// TestDiscoveryListsLocalReview: kubectl api-resources reads the review
// as namespaced from here.
func TestDiscoveryListsLocalReview(t *testing.T) {
	url, alice := selfServer(t, engines{authorizer: aliceMayListPods, rules: unionRules(nil)})
	resp, err := alice.Get(url + "/apis/authorization.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list metav1.APIResourceList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == "localsubjectaccessreviews" {
			if !r.Namespaced || r.Kind != "LocalSubjectAccessReview" {
				t.Errorf("localsubjectaccessreviews = %+v, want namespaced LocalSubjectAccessReview", r)
			}
			return
		}
	}
	t.Errorf("discovery lacks localsubjectaccessreviews: %+v", list.APIResources)
}
