package aggregator

import (
	"errors"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

func TestValidateRejects(t *testing.T) {
	good := func() Config {
		return Config{
			Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, CertDir: t.TempDir(),
			Upstreams:         UpstreamURLs{Registry: []string{"http://127.0.0.1:1"}},
			AuthorizationMode: []string{authz.ModeAlwaysDeny},
		}
	}
	if err := good().validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	cases := map[string]func(*Config){
		"no bind address":             func(c *Config) { c.BindAddress = "" },
		"no registry":                 func(c *Config) { c.Upstreams.Registry = nil },
		"cert without key":            func(c *Config) { c.TLSCertFile = "x.crt" },
		"nothing to generate in":      func(c *Config) { c.CertDir = "" },
		"no authorization mode":       func(c *Config) { c.AuthorizationMode = nil },
		"unknown mode":                func(c *Config) { c.AuthorizationMode = []string{"RBAC"} },
		"mode twice":                  func(c *Config) { c.AuthorizationMode = []string{authz.ModeAlwaysDeny, authz.ModeAlwaysDeny} },
		"webhook without authz":       func(c *Config) { c.AuthorizationMode = []string{authz.ModeWebhook} },
		"negative request timeout":    func(c *Config) { c.RequestTimeout = -time.Second },
		"proxy cert without key":      func(c *Config) { c.ProxyClientCertFile = "p.crt" },
		"unknown endpoint reconciler": func(c *Config) { c.EndpointReconcilerType = "master-count" },
		"endpoint lease under 1s":     func(c *Config) { c.EndpointLeaseDuration = time.Millisecond },
		"advertise address not an IP": func(c *Config) { c.AdvertiseAddress = "apiserver.example" },
		// kube-apiserver: "cannot use public IP 127.0.0.1 with endpoint reconciler".
		"loopback advertise address": func(c *Config) { c.AdvertiseAddress = "127.0.0.1" },
		"proxy cert without CA": func(c *Config) {
			c.ProxyClientCertFile, c.ProxyClientKeyFile = "p.crt", "p.key"
		},
	}
	for name, mutate := range cases {
		c := good()
		mutate(&c)
		if err := c.validate(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: %v, want ErrInvalidConfig", name, err)
		}
	}
}
