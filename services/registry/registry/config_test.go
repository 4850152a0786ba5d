package registry

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

func TestConfigValidate(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cfg  Config
		want string // substring of the error; "" means valid
	}{
		{Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: "d", InsecureAllowUnauthenticated: true}, ""},
		{Config{Endpoint: serve.Endpoint{BindAddress: "localhost:6444"}, DataDir: "d", InsecureAllowUnauthenticated: true}, ""},
		{Config{Endpoint: serve.Endpoint{BindAddress: "[::1]:0"}, EtcdServers: []string{"http://e"}, InsecureAllowUnauthenticated: true}, ""},
		{Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: "d"}, "needs the aggregator's public key"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "0.0.0.0:6444"}, DataDir: "d", IdentityKeys: []crypto.PublicKey{pub}}, ""},
		{Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: "d", IdentityKeys: []crypto.PublicKey{pub}, InsecureAllowUnauthenticated: true}, "exclude each other"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "0.0.0.0:6444"}, DataDir: "d", InsecureAllowUnauthenticated: true}, "refuses to listen on 0.0.0.0"},
		{Config{Endpoint: serve.Endpoint{BindAddress: ":6444"}, DataDir: "d", InsecureAllowUnauthenticated: true}, "refuses to listen on"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "10.1.2.3:6444"}, DataDir: "d", InsecureAllowUnauthenticated: true}, "refuses to listen on 10.1.2.3"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, InsecureAllowUnauthenticated: true}, "needs --data-dir"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "nonsense"}, DataDir: "d", InsecureAllowUnauthenticated: true}, "missing port"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: "d", InsecureAllowUnauthenticated: true,
			RootCAFile: "/nonexistent/ca.crt"}, "--root-ca-file"},
		{Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: "d", InsecureAllowUnauthenticated: true,
			RootCAFile: "config_test.go"}, "error parsing root-ca-file"},
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}
