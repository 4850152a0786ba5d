package authz

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/identity"
)

// selfServer serves routes over e, and returns its URL and clients that
// carry the aggregator's assertion for alice and for none.
func selfServer(t *testing.T, e engines) (string, *http.Client) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	v, err := identity.NewVerifier(identity.VerifierConfig{
		Keys: []crypto.PublicKey{pub}, Issuer: DefaultIdentityIssuer, Audience: Audience,
	})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := identity.NewSigner(identity.SignerConfig{Key: priv, Issuer: DefaultIdentityIssuer})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(routes(e, v, nil, http.NotFoundHandler()))
	t.Cleanup(srv.Close)
	alice := authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}}
	return srv.URL, &http.Client{Transport: signer.Transport(http.DefaultTransport, alice, Audience)}
}

// aliceMayListPods allows exactly alice (from the assertion) to list pods
// in ns1, and denies everything else.
var aliceMayListPods = authz.AuthorizerFunc(func(_ context.Context, a authz.Attributes) (authz.Result, error) {
	if a.User.Username == "alice" && slices.Equal(a.User.Groups, []string{"devs"}) &&
		a.ResourceRequest && a.Verb == "list" && a.Resource == "pods" && a.Namespace == "ns1" {
		return authz.Result{Decision: authz.DecisionAllow, Reason: "alice lists pods"}, nil
	}
	return authz.Result{Decision: authz.DecisionDeny, Reason: "no"}, nil
})

// encode is obj in media, as a client sends it.
func encode(t *testing.T, media string, obj runtime.Object) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), media)
	if !ok {
		t.Fatalf("no serializer for %s", media)
	}
	var buf bytes.Buffer
	if err := scheme.Codecs.EncoderForVersion(info.Serializer, authorizationv1.SchemeGroupVersion).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postObject posts body as media, asks for an answer in media, and
// decodes a 201 into into; it returns the status code.
func postObject(t *testing.T, c *http.Client, url, media string, body []byte, into runtime.Object) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", media)
	req.Header.Set("Accept", media+", application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated {
		return resp.StatusCode
	}
	if got := resp.Header.Get("Content-Type"); got != media {
		t.Errorf("answer's Content-Type = %q, want %q", got, media)
	}
	if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, into); err != nil {
		t.Fatalf("decoding the answer: %v\n%q", err, data)
	}
	return resp.StatusCode
}

func TestSelfSubjectAccessReview(t *testing.T) {
	url, alice := selfServer(t, engines{authorizer: aliceMayListPods, rules: unionRules(nil)})
	ask := func(verb string) *authorizationv1.SelfSubjectAccessReview {
		return &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns1", Verb: verb, Resource: "pods"},
		}}
	}
	for _, media := range []string{mediaJSON, mediaProtobuf} {
		t.Run(media, func(t *testing.T) {
			var got authorizationv1.SelfSubjectAccessReview
			code := postObject(t, alice, url+SelfSubjectAccessReviewPath, media, encode(t, media, ask("list")), &got)
			if code != http.StatusCreated || !got.Status.Allowed || got.Status.Reason != "alice lists pods" {
				t.Errorf("list = %d %+v, want 201 allowed", code, got.Status)
			}
			if got.Spec.ResourceAttributes == nil || got.Spec.ResourceAttributes.Verb != "list" {
				t.Errorf("answer's spec = %+v, want the one asked", got.Spec)
			}
			got = authorizationv1.SelfSubjectAccessReview{}
			code = postObject(t, alice, url+SelfSubjectAccessReviewPath, media, encode(t, media, ask("delete")), &got)
			if code != http.StatusCreated || got.Status.Allowed || !got.Status.Denied {
				t.Errorf("delete = %d %+v, want 201 denied", code, got.Status)
			}
		})
	}
	// A body without apiVersion and kind is the endpoint's type.
	var got authorizationv1.SelfSubjectAccessReview
	bare := `{"spec":{"resourceAttributes":{"namespace":"ns1","verb":"list","resource":"pods"}}}`
	if code := postObject(t, alice, url+SelfSubjectAccessReviewPath, mediaJSON, []byte(bare), &got); code != http.StatusCreated || !got.Status.Allowed {
		t.Errorf("bare JSON = %d %+v, want 201 allowed", code, got.Status)
	}
	neither := `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{}}`
	if code := postObject(t, alice, url+SelfSubjectAccessReviewPath, mediaJSON, []byte(neither), &got); code != http.StatusUnprocessableEntity {
		t.Errorf("review without attributes = %d, want 422", code)
	}
	other := `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{}}`
	if code := postObject(t, alice, url+SelfSubjectAccessReviewPath, mediaJSON, []byte(other), &got); code != http.StatusBadRequest {
		t.Errorf("another kind = %d, want 400", code)
	}
	if code := postObject(t, alice, url+SelfSubjectAccessReviewPath, "text/plain", []byte(bare), &got); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain = %d, want 415", code)
	}
	if code := postObject(t, http.DefaultClient, url+SelfSubjectAccessReviewPath, mediaJSON, []byte(bare), &got); code != http.StatusUnauthorized {
		t.Errorf("without the aggregator's assertion = %d, want 401", code)
	}
	// A review has no Table: kube answers 406.
	req, _ := http.NewRequest(http.MethodPost, url+SelfSubjectAccessReviewPath, strings.NewReader(bare))
	req.Header.Set("Content-Type", mediaJSON)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	if resp, err := alice.Do(req); err != nil || resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("a Table of a review: %v %v, want 406", resp, err)
	} else {
		resp.Body.Close()
	}
}

func TestSelfSubjectRulesReview(t *testing.T) {
	var asked authenticationv1.UserInfo
	listed := func(user authenticationv1.UserInfo, ns string) ruleSet {
		asked = user
		return ruleSet{resource: []authorizationv1.ResourceRule{{
			Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"},
		}}}
	}
	review := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "ns1"}}
	cases := map[string]struct {
		modes          []rulesFunc
		wantRules      int
		wantIncomplete bool
	}{
		"rbac":             {modes: []rulesFunc{listed}, wantRules: 1},
		"rbac and webhook": {modes: []rulesFunc{listed, nil}, wantRules: 1, wantIncomplete: true},
		"no rbac":          {modes: []rulesFunc{nil}, wantIncomplete: true},
		"always allow":     {modes: []rulesFunc{allRules}, wantRules: 1},
	}
	for name, c := range cases {
		for _, media := range []string{mediaJSON, mediaProtobuf} {
			t.Run(name+"/"+media, func(t *testing.T) {
				url, alice := selfServer(t, engines{authorizer: aliceMayListPods, rules: unionRules(c.modes)})
				var got authorizationv1.SelfSubjectRulesReview
				if code := postObject(t, alice, url+SelfSubjectRulesReviewPath, media, encode(t, media, review), &got); code != http.StatusCreated {
					t.Fatalf("rules review = %d, want 201", code)
				}
				if len(got.Status.ResourceRules) != c.wantRules || got.Status.Incomplete != c.wantIncomplete {
					t.Errorf("status = %+v, want %d rules, incomplete %v", got.Status, c.wantRules, c.wantIncomplete)
				}
			})
		}
	}
	if asked.Username != "alice" {
		t.Errorf("rules were listed for %q, want the asserted alice", asked.Username)
	}
	url, alice := selfServer(t, engines{authorizer: aliceMayListPods, rules: unionRules([]rulesFunc{listed})})
	var got authorizationv1.SelfSubjectRulesReview
	noNamespace := encode(t, mediaJSON, &authorizationv1.SelfSubjectRulesReview{})
	if code := postObject(t, alice, url+SelfSubjectRulesReviewPath, mediaJSON, noNamespace, &got); code != http.StatusUnprocessableEntity {
		t.Errorf("rules review without a namespace = %d, want 422", code)
	}
}

func TestDiscovery(t *testing.T) {
	url, alice := selfServer(t, engines{authorizer: aliceMayListPods, rules: unionRules(nil)})
	get := func(path string, into any) {
		t.Helper()
		resp, err := alice.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d", path, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatal(err)
		}
	}
	var list metav1.APIGroupList
	get("/apis", &list)
	if len(list.Groups) != 1 || list.Groups[0].Name != "authorization.k8s.io" || list.Groups[0].PreferredVersion.Version != "v1" {
		t.Errorf("/apis = %+v, want authorization.k8s.io v1", list)
	}
	var group metav1.APIGroup
	get("/apis/authorization.k8s.io", &group)
	if group.Name != "authorization.k8s.io" {
		t.Errorf("group = %+v", group)
	}
	var resources metav1.APIResourceList
	get("/apis/authorization.k8s.io/v1", &resources)
	var names []string
	for _, r := range resources.APIResources {
		names = append(names, r.Name)
	}
	for _, want := range []string{"subjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews"} {
		if !slices.Contains(names, want) {
			t.Errorf("resources %v lack %s", names, want)
		}
	}
	resp, err := http.Get(url + "/apis/authorization.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("discovery without the assertion = %d, want 401", resp.StatusCode)
	}
}
