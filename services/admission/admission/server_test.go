package admission

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/identity"
)

func podCreate(t *testing.T, namespace string) *pkgadmission.Attributes {
	t.Helper()
	raw, err := json.Marshal(&corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &pkgadmission.Attributes{
		Operation: admissionv1.Create,
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: namespace, Name: "web",
		Object: runtime.RawExtension{Raw: raw},
	}
}

func webhook(t *testing.T, url string, client *http.Client) pkgadmission.Admitter {
	t.Helper()
	c, err := pkgadmission.NewWebhookClient(pkgadmission.WebhookConfig{URL: url, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The registry's two calls: the mutating path patches (ServiceAccount
// defaults the account) and does not validate; the validating path refuses
// (NamespaceLifecycle) and never patches.
func TestMutatingThenValidating(t *testing.T) {
	s := start(t, Config{InsecureAllowUnauthenticated: true})
	mutating := pkgadmission.Mutating(webhook(t, s.URL()+pkgadmission.MutatingPath, nil))
	validating := webhook(t, s.URL()+pkgadmission.ValidatingPath, nil)
	ctx := context.Background()

	attrs := podCreate(t, "ns")
	res, err := mutating.Admit(ctx, attrs)
	if err != nil || !res.Allowed {
		t.Fatalf("mutating: %+v, %v", res, err)
	}
	patched, err := pkgadmission.ApplyPatch(attrs.Object.Raw, res.Patch)
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(patched, &pod); err != nil || pod.Spec.ServiceAccountName != "default" {
		t.Fatalf("patched pod %s, %v", patched, err)
	}
	attrs.Object.Raw = patched
	if res, err := validating.Admit(ctx, attrs); err != nil || !res.Allowed || len(res.Patch) > 0 {
		t.Fatalf("validating: %+v, %v", res, err)
	}

	// Lifecycle only validates: the mutating path lets the create in a
	// terminating namespace through, the validating path refuses it.
	dying := podCreate(t, "dying")
	if res, err := mutating.Admit(ctx, dying); err != nil || !res.Allowed {
		t.Fatalf("mutating, terminating namespace: %+v, %v", res, err)
	}
	res, err = validating.Admit(ctx, dying)
	if err != nil || res.Allowed || res.Status.Code != http.StatusForbidden ||
		!strings.Contains(res.Status.Message, "unable to create new content in namespace dying because it is being terminated") {
		t.Fatalf("validating, terminating namespace: %+v, %v", res, err)
	}
}

// Disabled plugins do not run.
func TestDisablePlugins(t *testing.T) {
	// Every plugin that would change or refuse the pod below.
	off := []string{ServiceAccount, NamespaceLifecycle, DefaultTolerationSeconds, Priority, PodSecurity}
	s := start(t, Config{InsecureAllowUnauthenticated: true, LocalConfig: LocalConfig{DisablePlugins: off}})
	if got, want := s.Local().Plugins(), without(DefaultPlugins(), append(off, MutatingAdmissionPolicy)...); !slices.Equal(got, want) {
		t.Fatalf("plugins %v, want %v", got, want)
	}
	mutating := pkgadmission.Mutating(webhook(t, s.URL()+pkgadmission.MutatingPath, nil))
	res, err := mutating.Admit(context.Background(), podCreate(t, "ns"))
	if err != nil || !res.Allowed || len(res.Patch) != 0 {
		t.Fatalf("got %+v, %v", res, err)
	}
	validating := webhook(t, s.URL()+pkgadmission.ValidatingPath, nil)
	res, err = validating.Admit(context.Background(), podCreate(t, "dying"))
	if err != nil || !res.Allowed {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestBadRequests(t *testing.T) {
	s := start(t, Config{InsecureAllowUnauthenticated: true})
	review := func(uid string) []byte {
		b, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
			"request": map[string]any{"uid": uid, "operation": "CREATE", "namespace": "ns"}})
		return b
	}
	cases := []struct {
		name, method, path string
		body               []byte
		code               int
	}{
		{"malformed JSON", http.MethodPost, pkgadmission.MutatingPath, []byte(`{"apiVersion":`), http.StatusBadRequest},
		{"no request", http.MethodPost, pkgadmission.ValidatingPath, []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), http.StatusBadRequest},
		{"wrong kind", http.MethodPost, pkgadmission.ValidatingPath, []byte(`{"apiVersion":"v1","kind":"Pod","request":{"uid":"u"}}`), http.StatusBadRequest},
		{"no uid", http.MethodPost, pkgadmission.ValidatingPath, review(""), http.StatusBadRequest},
		{"oversized", http.MethodPost, pkgadmission.MutatingPath, append(append([]byte(`{"x":"`), make([]byte, pkgadmission.MaxReviewBytes)...), '"', '}'), http.StatusRequestEntityTooLarge},
		{"wrong method", http.MethodGet, pkgadmission.MutatingPath, nil, http.StatusMethodNotAllowed},
		{"wrong method validating", http.MethodPut, pkgadmission.ValidatingPath, review("u"), http.StatusMethodNotAllowed},
		{"unknown path", http.MethodPost, "/admission/v2", review("u"), http.StatusNotFound},
		{"well-formed", http.MethodPost, pkgadmission.ValidatingPath, review("u"), http.StatusOK},
		{"healthz", http.MethodGet, "/healthz", nil, http.StatusOK},
		{"livez", http.MethodGet, "/livez", nil, http.StatusOK},
		{"readyz check", http.MethodGet, "/readyz/informers-synced", nil, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := do(t, c.method, s.URL()+c.path, c.body)
			if code != c.code {
				t.Fatalf("%d %s, want %d", code, body, c.code)
			}
			if code >= 400 {
				var st metav1.Status
				if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" || st.Code != int32(code) {
					t.Fatalf("body %s is not a Status for %d", body, code)
				}
			}
		})
	}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signing is an HTTP client whose requests carry an assertion signed by
// key under issuer for audience.
func signing(t *testing.T, key *ecdsa.PrivateKey, issuer, audience string) *http.Client {
	t.Helper()
	signer, err := identity.NewSigner(identity.SignerConfig{Key: key, Issuer: issuer})
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: signer.Transport(http.DefaultTransport, authenticationv1.UserInfo{Username: pkgadmission.RegistryUser}, audience)}
}

// Only the registry's assertion opens the webhooks; health needs none.
func TestIdentity(t *testing.T) {
	registry, other := newKey(t), newKey(t)
	s := start(t, Config{IdentityKeys: []crypto.PublicKey{registry.Public()}})
	url := s.URL() + pkgadmission.MutatingPath
	ok := pkgadmission.Mutating(webhook(t, url, signing(t, registry, pkgadmission.RegistryIssuer, pkgadmission.Audience)))
	if res, err := ok.Admit(context.Background(), podCreate(t, "ns")); err != nil || !res.Allowed {
		t.Fatalf("registry's call: %+v, %v", res, err)
	}
	for name, client := range map[string]*http.Client{
		"no assertion":   nil,
		"forged":         signing(t, other, pkgadmission.RegistryIssuer, pkgadmission.Audience),
		"other issuer":   signing(t, registry, identity.DefaultIssuer, pkgadmission.Audience),
		"other audience": signing(t, registry, pkgadmission.RegistryIssuer, "registry"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := webhook(t, url, client).Admit(context.Background(), podCreate(t, "ns"))
			if !errors.Is(err, pkgadmission.ErrUnavailable) || !strings.Contains(err.Error(), "401") {
				t.Fatalf("err %v, want a 401", err)
			}
		})
	}
	if code, _ := do(t, http.MethodGet, s.URL()+"/healthz", nil); code != http.StatusOK {
		t.Fatalf("/healthz %d", code)
	}
}
