package authn

import (
	"context"
	"errors"
	"testing"
)

// named recognises every token as user name.
func named(name string) Authenticator {
	return AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) {
		r := &Response{}
		r.User.Username = name
		return r, true, nil
	})
}

var (
	refuses = AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) { return nil, false, nil })
	fails   = AuthenticatorFunc(func(context.Context, string) (*Response, bool, error) { return nil, false, errBackendDown })
)

func TestUnion(t *testing.T) {
	cases := []struct {
		name     string
		list     []Authenticator
		wantUser string
		wantErr  bool
	}{
		{"empty", nil, "", false},
		{"none recognises", []Authenticator{refuses, refuses}, "", false},
		{"first recognised wins", []Authenticator{refuses, named("a"), named("b")}, "a", false},
		{"an error does not stop the others", []Authenticator{fails, named("b")}, "b", false},
		{"an error is kept when none recognises", []Authenticator{refuses, fails, refuses}, "", true},
	}
	for _, c := range cases {
		resp, ok, err := Union(c.list...).AuthenticateToken(context.Background(), "t")
		if (err != nil) != c.wantErr || (c.wantErr && !errors.Is(err, errBackendDown)) {
			t.Errorf("%s: error %v", c.name, err)
		}
		if ok != (c.wantUser != "") || (ok && resp.User.Username != c.wantUser) {
			t.Errorf("%s: got %+v %v, want %q", c.name, resp, ok, c.wantUser)
		}
	}
}

func TestUnionCopiesItsList(t *testing.T) {
	list := []Authenticator{named("a")}
	u := Union(list...)
	list[0] = refuses
	if _, ok, _ := u.AuthenticateToken(context.Background(), "t"); !ok {
		t.Error("changing the caller's slice changed the union")
	}
}
