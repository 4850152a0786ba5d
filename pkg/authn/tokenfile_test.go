package authn

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTokenFileParsing(t *testing.T) {
	a := newTestTokenFile(t, `# comment line

plain,user1,uid1
grouped,user2,uid2,"g1,g2"
spaced, user3 ,uid3,"g1, g2 ,,"
"quoted,token",user4,uid4
nogroups,user5,uid5,""
uidless,user6,
`)
	cases := []struct {
		token, user, uid string
		groups           []string
	}{
		{"plain", "user1", "uid1", nil},
		{"grouped", "user2", "uid2", []string{"g1", "g2"}},
		{"spaced", "user3", "uid3", []string{"g1", "g2"}},
		{"quoted,token", "user4", "uid4", nil},
		{"nogroups", "user5", "uid5", nil},
		{"uidless", "user6", "", nil},
	}
	for _, c := range cases {
		resp, ok, err := a.AuthenticateToken(context.Background(), c.token)
		if err != nil || !ok {
			t.Errorf("%q: recognised %v, err %v", c.token, ok, err)
			continue
		}
		u := resp.User
		if u.Username != c.user || u.UID != c.uid || !slices.Equal(u.Groups, c.groups) {
			t.Errorf("%q: got %+v, want %s %s %q", c.token, u, c.user, c.uid, c.groups)
		}
	}
	for _, token := range []string{"", "PLAIN", "plain ", "unknown", "# comment line"} {
		if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err != nil {
			t.Errorf("%q: recognised %v, err %v; want not recognised", token, ok, err)
		}
	}
}

func TestTokenFileRejects(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"duplicate token": {"secret-dup,a,1\n# x\nsecret-dup,b,2\n", "line 3: duplicate token, first on line 1"},
		"two columns":     {"t,user\n", "line 1: want at least 3 columns"},
		"unquoted groups": {"ok,u,1\nt,user,uid,g1,g2\n", "line 2: want at most 4 columns"},
		"empty token":     {",user,uid\n", "line 1: empty token"},
		"empty user":      {"t,,uid\n", "line 1: empty user name"},
		"bad quoting":     {"t,\"user,uid\n", "tokens.csv"},
	}
	for name, c := range cases {
		_, err := NewTokenFile(writeTokenFile(t, c.content))
		if !errors.Is(err, ErrInvalidTokenFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInvalidTokenFile mentioning %q", name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret-dup") {
			t.Errorf("%s: the error names the token: %v", name, err)
		}
	}
	if _, err := NewTokenFile(filepath.Join(t.TempDir(), "missing.csv")); !errors.Is(err, ErrInvalidTokenFile) {
		t.Errorf("missing file: error %v, want ErrInvalidTokenFile", err)
	}
}

func TestTokenFileEmptyIsValid(t *testing.T) {
	a := newTestTokenFile(t, "# no tokens yet\n")
	if _, ok, err := a.AuthenticateToken(context.Background(), "anything"); ok || err != nil {
		t.Errorf("recognised %v, err %v", ok, err)
	}
}

// TestTokenFileKeepsOnlyDigests: the loaded file holds no plain token.
func TestTokenFileKeepsOnlyDigests(t *testing.T) {
	tf, err := parseTokenFile(strings.NewReader("very-secret-token,u,1,\"g\"\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	if dump := fmt.Sprintf("%#v", tf); strings.Contains(dump, "very-secret-token") {
		t.Errorf("token kept in plain text: %s", dump)
	}
	resp, _, _ := tf.AuthenticateToken(context.Background(), "very-secret-token")
	resp.User.Groups[0] = "tampered"
	again, _, _ := tf.AuthenticateToken(context.Background(), "very-secret-token")
	if again.User.Groups[0] != "g" {
		t.Error("a caller changed the file's user")
	}
}
