package identity

import (
	"net/http"
	"testing"
)

func TestStripIdentityHeaders(t *testing.T) {
	h := http.Header{}
	for _, name := range []string{
		"X-Remote-User", "X-Remote-Group", "X-Remote-Uid", "X-Remote-Extra-Scopes",
		"Impersonate-User", "Impersonate-Group", "Impersonate-Uid", "Impersonate-Extra-Scopes", Header,
	} {
		h.Set(name, "forged")
	}
	h["x-remote-user"] = []string{"not canonical"} // set around Header.Set
	h.Set("Accept", "application/json")
	h.Set("Authorization", "Bearer abc")

	StripIdentityHeaders(h)
	if len(h) != 2 || h.Get("Accept") == "" || h.Get("Authorization") == "" {
		t.Errorf("left %v, want only Accept and Authorization", h)
	}
}

func TestSetHeader(t *testing.T) {
	key := newECKey(t)
	s := newSigner(t, key, testIssuer)
	r := httpRequest("GET", target)
	r.Header.Set("X-Remote-User", "admin")
	r.Header.Set("Impersonate-Group", "system:masters")
	r.Header.Add(Header, "forged")
	r.Header.Add(Header, "forged again")

	if err := s.SetHeader(r, alice, testAudience); err != nil {
		t.Fatal(err)
	}
	if r.Header.Get("X-Remote-User") != "" || r.Header.Get("Impersonate-Group") != "" {
		t.Errorf("client identity headers survive: %v", r.Header)
	}
	if n := len(r.Header.Values(Header)); n != 1 {
		t.Fatalf("%d %s headers, want 1", n, Header)
	}
	u, err := newVerifier(t, t0, key.Public()).Verify(r.Header.Get(Header), r)
	if err != nil || u.Username != "alice" {
		t.Fatalf("Verify = %+v, %v", u, err)
	}
}
