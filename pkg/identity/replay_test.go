package identity

import (
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const bindingsPath = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"

var (
	adminBinding   = []byte(`{"kind":"ClusterRoleBinding","metadata":{"name":"ops"},"subjects":[{"kind":"User","name":"ops"}]}`)
	malloryBinding = []byte(`{"kind":"ClusterRoleBinding","metadata":{"name":"mallory"},"subjects":[{"kind":"User","name":"mallory"}],"roleRef":{"name":"cluster-admin"}}`)
)

// store is a backend behind Require that acts as the registry does: it
// reads the whole body before storing it, and answers 400 when it cannot.
type store struct {
	mu     sync.Mutex
	stored [][]byte
}

func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.stored = append(s.stored, body)
	s.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}

func (s *store) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stored)
}

func startStore(t *testing.T, v *Verifier) (*httptest.Server, *store) {
	t.Helper()
	s := &store{}
	srv := httptest.NewServer(Require(v)(s))
	t.Cleanup(srv.Close)
	return srv, s
}

// post sends body to url with the assertion token, as a replayer would:
// chunked when the length is not to be told.
func post(t *testing.T, url, token string, body []byte, chunked bool) *http.Response {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // neither length nor GetBody: sent chunked
	}
	r, err := http.NewRequest(http.MethodPost, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set(Header, token)
	return do(t, r)
}

// captured is the assertion the signer put on an admin's write.
func captured(t *testing.T, s *Signer, url string, body []byte) string {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetHeader(r, alice, testAudience); err != nil {
		t.Fatal(err)
	}
	return r.Header.Get(Header)
}

// A captured write assertion presented with a body of the replayer's own
// is refused, whatever the body's length and however it is sent, and the
// backend stores nothing; the body it was issued for is accepted.
func TestAssertionWithAnotherBodyIsRefused(t *testing.T) {
	key := newEdKey(t)
	s := newSigner(t, key, testIssuer)
	srv, st := startStore(t, newVerifier(t, t0, key.Public()))
	url := srv.URL + bindingsPath

	for name, body := range map[string][]byte{
		"another body":               malloryBinding,
		"the body with a byte added": append(append([]byte{}, adminBinding...), ' '),
		"the body cut short":         adminBinding[:len(adminBinding)-1],
	} {
		for _, chunked := range []bool{false, true} {
			resp := post(t, url, captured(t, s, url, adminBinding), body, chunked)
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), ErrWrongBody.Error()) {
				t.Errorf("%s (chunked %v): %d %s, want 400 naming %q", name, chunked, resp.StatusCode, got, ErrWrongBody)
			}
		}
	}
	// Without any body the mismatch is known before the handler runs.
	r := newRequest(t, http.MethodPost, url)
	r.Header.Set(Header, captured(t, s, url, adminBinding))
	expectUnauthorized(t, do(t, r))
	if n := st.count(); n != 0 {
		t.Fatalf("the backend stored %d bodies that were not asserted", n)
	}

	if resp := post(t, url, captured(t, s, url, adminBinding), adminBinding, false); resp.StatusCode != http.StatusCreated {
		t.Fatalf("the asserted body: %d, want 201", resp.StatusCode)
	}
	if st.count() != 1 || !bytes.Equal(st.stored[0], adminBinding) {
		t.Errorf("stored %q, want the asserted body once", st.stored)
	}
}

// The same write assertion presented twice, as it is, is refused the
// second time; the signer gives each write an assertion of its own.
func TestWriteAssertionIsGoodOnce(t *testing.T) {
	key := newECKey(t)
	s := newSigner(t, key, testIssuer)
	srv, st := startStore(t, newVerifier(t, t0, key.Public()))
	url := srv.URL + bindingsPath

	token := captured(t, s, url, adminBinding)
	if again := captured(t, s, url, adminBinding); again == token {
		t.Fatal("the signer reused a write's assertion")
	}
	if resp := post(t, url, token, adminBinding, false); resp.StatusCode != http.StatusCreated {
		t.Fatalf("first use: %d, want 201", resp.StatusCode)
	}
	resp := post(t, url, token, adminBinding, false)
	var status metav1.Status
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUnauthorized || json.Unmarshal(got, &status) != nil ||
		status.Reason != metav1.StatusReasonUnauthorized || !strings.Contains(status.Message, ErrReplayed.Error()) {
		t.Fatalf("second use: %d %s, want a 401 Status naming %q", resp.StatusCode, got, ErrReplayed)
	}
	if n := st.count(); n != 1 {
		t.Errorf("the backend stored %d bodies, want 1", n)
	}
}

// Reads keep reusing one assertion, signed and verified once: that is
// what the caches are for.
func TestReadAssertionIsReused(t *testing.T) {
	key := newEdKey(t)
	s := newSigner(t, key, testIssuer)
	srv, got := backend(t, newVerifier(t, t0, key.Public()))
	var first string
	for i := range 3 {
		r := newRequest(t, http.MethodGet, srv.URL+"/api/v1/namespaces/a/secrets?watch=1")
		if err := s.SetHeader(r, alice, testAudience); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = r.Header.Get(Header)
		} else if r.Header.Get(Header) != first {
			t.Fatalf("read %d was signed anew", i)
		}
		if resp := do(t, r); resp.StatusCode != http.StatusOK {
			t.Fatalf("read %d with the reused assertion: %d, want 200", i, resp.StatusCode)
		}
		checkSeen(t, <-got)
	}
}

// A body that cannot be read twice is buffered by SetHeader, so a client
// streaming one through Transport still gets it bound and delivered.
func TestTransportBindsStreamedBody(t *testing.T) {
	key := newEdKey(t)
	s, err := NewSigner(SignerConfig{Key: key, Issuer: testIssuer})
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(VerifierConfig{Keys: []crypto.PublicKey{key.Public()}, Issuer: testIssuer, Audience: testAudience})
	if err != nil {
		t.Fatal(err)
	}
	srv, st := startStore(t, v)
	c := &http.Client{Transport: s.Transport(nil, alice, testAudience)}
	resp, err := c.Post(srv.URL+bindingsPath, "application/json", io.MultiReader(bytes.NewReader(adminBinding)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || st.count() != 1 || !bytes.Equal(st.stored[0], adminBinding) {
		t.Fatalf("%d, stored %q", resp.StatusCode, st.stored)
	}

	big := io.MultiReader(bytes.NewReader(make([]byte, MaxBodyBytes+1)))
	if _, err := c.Post(srv.URL+bindingsPath, "application/json", big); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("a body over MaxBodyBytes: %v, want ErrBodyTooLarge", err)
	}
}

// Sign refuses a body it could only read by consuming it.
func TestSignNeedsReplayableBody(t *testing.T) {
	s := newSigner(t, newEdKey(t), testIssuer)
	r := httptest.NewRequest(http.MethodPost, bindingsPath, io.MultiReader(bytes.NewReader(adminBinding)))
	r.GetBody = nil
	if _, err := s.Sign(alice, testAudience, r); err == nil {
		t.Fatal("signed a body it could not read again")
	}
	if err := BufferBody(r, 10); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("BufferBody over its limit: %v, want ErrBodyTooLarge", err)
	}
}
