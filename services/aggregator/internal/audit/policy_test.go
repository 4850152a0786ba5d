package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

func TestLoadPolicyRefusesBadPolicies(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"kind":        {"apiVersion: audit.k8s.io/v1\nkind: Nope\n", "kind Policy"},
		"level":       {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n", "unknown level"},
		"stage":       {"apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Never]\nrules: []\n", "unknown stage"},
		"mixed":       {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  nonResourceURLs: [/x]\n  namespaces: [a]\n", "cannot be combined"},
		"unknown key": {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrulez: []\n", "rulez"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadPolicy(path); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// Rules match as kube's do: users, groups, verbs, resources with their
// subresource patterns, names, namespaces, non-resource URL prefixes.
func TestRuleMatching(t *testing.T) {
	alice := authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}}
	info := func(method, path string) *requestinfo.Info { return requestinfo.Parse(method, path, "") }
	for _, tc := range []struct {
		name string
		rule PolicyRule
		info *requestinfo.Info
		want bool
	}{
		{"any", PolicyRule{}, info("GET", "/healthz"), true},
		{"user", PolicyRule{Users: []string{"bob"}}, info("GET", "/healthz"), false},
		{"group", PolicyRule{UserGroups: []string{"devs"}}, info("GET", "/healthz"), true},
		{"verb", PolicyRule{Verbs: []string{"list"}}, info("GET", "/api/v1/pods"), true},
		{"resource", PolicyRule{Resources: []GroupResources{{Resources: []string{"pods"}}}}, info("GET", "/api/v1/namespaces/a/pods/p"), true},
		{"other group", PolicyRule{Resources: []GroupResources{{Group: "apps"}}}, info("GET", "/api/v1/pods"), false},
		{"subresource exact", PolicyRule{Resources: []GroupResources{{Resources: []string{"pods/log"}}}}, info("GET", "/api/v1/namespaces/a/pods/p/log"), true},
		{"pods does not match pods/log", PolicyRule{Resources: []GroupResources{{Resources: []string{"pods"}}}}, info("GET", "/api/v1/namespaces/a/pods/p/log"), false},
		{"*/status", PolicyRule{Resources: []GroupResources{{Resources: []string{"*/status"}}}}, info("PUT", "/apis/apps/v1/namespaces/a/deployments/d/status"), false},
		{"*/status core", PolicyRule{Resources: []GroupResources{{Group: "apps", Resources: []string{"*/status"}}}}, info("PUT", "/apis/apps/v1/namespaces/a/deployments/d/status"), true},
		{"pods/*", PolicyRule{Resources: []GroupResources{{Resources: []string{"pods/*"}}}}, info("GET", "/api/v1/namespaces/a/pods/p/exec"), true},
		{"name", PolicyRule{Resources: []GroupResources{{Resources: []string{"configmaps"}, ResourceNames: []string{"x"}}}}, info("GET", "/api/v1/namespaces/a/configmaps/y"), false},
		{"namespace", PolicyRule{Namespaces: []string{"kube-system"}}, info("GET", "/api/v1/namespaces/a/pods"), false},
		{"namespaces skip non-resource", PolicyRule{Namespaces: []string{""}}, info("GET", "/healthz"), false},
		{"url prefix", PolicyRule{NonResourceURLs: []string{"/healthz*"}}, info("GET", "/healthz/etcd"), true},
		{"url skips resources", PolicyRule{NonResourceURLs: []string{"*"}}, info("GET", "/api/v1/pods"), false},
	} {
		if got := tc.rule.matches(alice, tc.info); got != tc.want {
			t.Errorf("%s: matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}
