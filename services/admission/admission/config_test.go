package admission

import (
	"context"
	"crypto"
	"errors"
	"net"
	"slices"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// without is names but those in drop, in order.
func without(names []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
}

// Kube's default-off plugins are not defaults; every other is, in kube's
// order.
func TestDefaultPlugins(t *testing.T) {
	if want := without(AllPlugins(), NodeRestriction, AlwaysPullImages); !slices.Equal(DefaultPlugins(), want) {
		t.Errorf("defaults %v, want %v", DefaultPlugins(), want)
	}
	want := []string{NamespaceLifecycle, LimitRanger, ServiceAccount, NodeRestriction, TaintNodesByCondition, AlwaysPullImages,
		PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, PodGroupProtection,
		PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning, ClusterTrustBundleAttest,
		CertificateSubjectRestriction, DefaultIngressClass, PodTopologyLabels, NodeDeclaredFeatureValidator, PodResizeValidator, MutatingAdmissionPolicy, RBACEscalation, MutatingAdmissionWebhook, ValidatingAdmissionPolicy,
		ValidatingAdmissionWebhook, ResourceQuota}
	if !slices.Equal(AllPlugins(), want) {
		t.Errorf("order %v, want kube's %v", AllPlugins(), want)
	}
}

func TestSelectPlugins(t *testing.T) {
	names := func(rs []registration) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.name)
		}
		return out
	}
	cases := []struct {
		name            string
		enable, disable []string
		want            []string
		wantErr         bool
	}{
		{"defaults", nil, nil, DefaultPlugins(), false},
		{"enable a default", []string{ResourceQuota}, nil, DefaultPlugins(), false},
		{"disable", nil, []string{ResourceQuota, ServiceAccount}, without(DefaultPlugins(), ResourceQuota, ServiceAccount), false},
		{"order ignores flags", []string{NodeRestriction, AlwaysPullImages, NamespaceLifecycle}, []string{LimitRanger}, without(AllPlugins(), LimitRanger), false},
		{"unknown enabled", []string{"AlwaysAdmit"}, nil, nil, true},
		{"unknown disabled", nil, []string{"NamespaceExists"}, nil, true},
		{"both", []string{LimitRanger}, []string{LimitRanger}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := selectPlugins(c.enable, c.disable)
			if c.wantErr {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || !slices.Equal(names(got), c.want) {
				t.Fatalf("got %v, %v; want %v", names(got), err, c.want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	key := newKey(t)
	client := fake.NewClientset()
	base := func() Config {
		c := Config{IdentityKeys: []crypto.PublicKey{key.Public()}}
		c.BindAddress = "127.0.0.1:0"
		c.Client = client
		c.LocalConfig = onFake(c.LocalConfig)
		return c
	}
	cases := map[string]func(*Config){
		"no bind address":  func(c *Config) { c.BindAddress = "" },
		"no identity keys": func(c *Config) { c.IdentityKeys = nil },
		"insecure off loopback": func(c *Config) {
			c.IdentityKeys = nil
			c.InsecureAllowUnauthenticated = true
			c.BindAddress = "0.0.0.0:0"
		},
		"insecure on all hosts": func(c *Config) { c.InsecureAllowUnauthenticated = true; c.BindAddress = ":0" },
		"no API":                func(c *Config) { c.Client = nil },
		"unknown plugin":        func(c *Config) { c.EnablePlugins = []string{"Nope"} },
		"bad key":               func(c *Config) { c.IdentityKeys = []crypto.PublicKey{"not a key"} },
		"negative tolerations":  func(c *Config) { c.DefaultTolerations = &TolerationSeconds{NotReady: -1, Unreachable: 300} },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := base()
			edit(&cfg)
			s, err := Start(context.Background(), cfg)
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("err %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// Insecure serving is allowed on loopback, by name or address, and on an
// inherited loopback listener.
func TestInsecureLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		c := Config{InsecureAllowUnauthenticated: true}
		c.BindAddress = addr
		if !c.loopback() {
			t.Errorf("%s is not loopback", addr)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := Config{}
	c.Listener = ln
	if !c.loopback() {
		t.Error("inherited loopback listener is not loopback")
	}
}

// A RESTConfig is enough: the client is made from it.
func TestNewLocalFromRESTConfig(t *testing.T) {
	l, err := NewLocal(context.Background(), LocalConfig{RESTConfig: &rest.Config{Host: "http://127.0.0.1:1"}, DisablePlugins: AllPlugins()})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

func TestCheckTable(t *testing.T) {
	if err := checkTable(plugins); err != nil {
		t.Fatal(err)
	}
	twice := []registration{plugins[0], plugins[0]}
	if err := checkTable(twice); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("duplicate name: %v", err)
	}
	if err := checkTable([]registration{{name: "Empty"}}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("no constructor: %v", err)
	}
	noRules := plugins[0]
	noRules.rules = nil
	if err := checkTable([]registration{noRules}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("no rules: %v", err)
	}
}
