package upstream

import (
	"errors"
	"testing"
)

func TestNewRejectsInvalidConfig(t *testing.T) {
	cases := map[string]Config{
		"no name":           {URLs: []string{"http://127.0.0.1:1"}},
		"no URLs":           {Name: "x"},
		"bad scheme":        {Name: "x", URLs: []string{"ftp://127.0.0.1:1"}},
		"no host":           {Name: "x", URLs: []string{"http://:80"}},
		"path":              {Name: "x", URLs: []string{"http://127.0.0.1:1/api"}},
		"query":             {Name: "x", URLs: []string{"http://127.0.0.1:1?a=b"}},
		"user info":         {Name: "x", URLs: []string{"http://u:p@127.0.0.1:1"}},
		"unparsable":        {Name: "x", URLs: []string{"http://[::1"}},
		"negative interval": {Name: "x", URLs: []string{"http://127.0.0.1:1"}, HealthEvery: -1},
		"relative health":   {Name: "x", URLs: []string{"http://127.0.0.1:1"}, HealthPath: "readyz"},
	}
	for name, cfg := range cases {
		if _, err := New(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
	if _, err := New(Config{Name: "x", URLs: []string{"https://registry.kubesplit.svc:6443", "http://[::1]:80/"}}); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestEndpointURLKeepsSchemeAndPort(t *testing.T) {
	cases := []struct{ raw, addr, want string }{
		{"https://svc.test:6443", "10.0.0.7", "https://10.0.0.7:6443"},
		{"https://svc.test:6443", "fd00::7", "https://[fd00::7]:6443"},
		{"http://svc.test", "10.0.0.7", "http://10.0.0.7"},
		{"http://svc.test", "fd00::7", "http://[fd00::7]"},
	}
	for _, c := range cases {
		src, err := parseSource(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := src.endpointURL(c.addr).String(); got != c.want {
			t.Errorf("%s resolved to %s = %s, want %s", c.raw, c.addr, got, c.want)
		}
	}
}
