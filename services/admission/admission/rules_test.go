package admission

import (
	"context"
	"crypto"
	"errors"
	"net/http"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
)

func rulesOf(t *testing.T, url string, client *http.Client) (pkgadmission.Rules, bool) {
	t.Helper()
	src, err := pkgadmission.NewRuleSource(pkgadmission.RuleSourceConfig{URL: url + pkgadmission.RulesPath, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	return src.Rules(context.Background())
}

func configMapCreate(namespace string) *pkgadmission.Attributes {
	return &pkgadmission.Attributes{
		Operation: admissionv1.Create, Namespace: namespace, Name: "c",
		Kind:     metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"},
	}
}

// The service publishes the union of its plugins' rules, per phase, to the
// registry only.
func TestRulesServed(t *testing.T) {
	registry := newKey(t)
	s := start(t, Config{IdentityKeys: []crypto.PublicKey{registry.Public()}})
	rules, ok := rulesOf(t, s.URL(), signing(t, registry, pkgadmission.RegistryIssuer, pkgadmission.Audience))
	if !ok {
		t.Fatal("the registry could not read the rules")
	}
	if !reflect.DeepEqual(rules, s.Local().Rules()) {
		t.Errorf("served %+v, local %+v", rules, s.Local().Rules())
	}
	var want pkgadmission.Rules
	for _, p := range plugins {
		if p.off {
			continue
		}
		want.Mutating = append(want.Mutating, p.rules().Mutating...)
		want.Validating = append(want.Validating, p.rules().Validating...)
	}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("served %+v, want every plugin's rules %+v", rules, want)
	}
	// ServiceAccount, LimitRanger and kube's plugins default pods;
	// nothing mutates a config map, though NamespaceLifecycle and ResourceQuota look at it.
	if !pkgadmission.Matches(rules.Mutating, podCreate(t, "ns")) || pkgadmission.Matches(rules.Mutating, configMapCreate("ns")) {
		t.Error("mutating rules do not say pods only")
	}
	if !pkgadmission.Matches(rules.Validating, configMapCreate("ns")) {
		t.Error("validating rules skip a namespaced create")
	}

	if _, ok := rulesOf(t, s.URL(), nil); ok {
		t.Error("rules read without the registry's assertion")
	}
	if _, ok := rulesOf(t, s.URL(), signing(t, newKey(t), pkgadmission.RegistryIssuer, pkgadmission.Audience)); ok {
		t.Error("rules read with a forged assertion")
	}
}

func TestRulesBadRequests(t *testing.T) {
	s := start(t, Config{InsecureAllowUnauthenticated: true})
	for _, c := range []struct {
		method string
		body   []byte
		code   int
	}{
		{http.MethodGet, nil, http.StatusOK},
		{http.MethodPost, []byte(`{"mutating":[]}`), http.StatusMethodNotAllowed},
		{http.MethodPut, []byte(`{`), http.StatusMethodNotAllowed},
		{http.MethodDelete, nil, http.StatusMethodNotAllowed},
	} {
		if code, body := do(t, c.method, s.URL()+pkgadmission.RulesPath, c.body); code != c.code {
			t.Errorf("%s: %d %s, want %d", c.method, code, body, c.code)
		}
	}
}

// Only the enabled plugins' rules are published: with no plugin, none, so
// that the registry asks about nothing.
func TestRulesFollowPlugins(t *testing.T) {
	var mutators []string
	for _, p := range plugins {
		if !p.off && len(p.rules().Mutating) > 0 {
			mutators = append(mutators, p.name)
		}
	}
	s := start(t, Config{InsecureAllowUnauthenticated: true, LocalConfig: LocalConfig{DisablePlugins: mutators}})
	rules, ok := rulesOf(t, s.URL(), nil)
	if !ok || len(rules.Mutating) != 0 || !pkgadmission.Matches(rules.Validating, podCreate(t, "ns")) {
		t.Errorf("without the mutators: %+v, %v", rules, ok)
	}
	s = start(t, Config{InsecureAllowUnauthenticated: true, LocalConfig: LocalConfig{DisablePlugins: AllPlugins()}})
	rules, ok = rulesOf(t, s.URL(), nil)
	if !ok || len(rules.Mutating) != 0 || len(rules.Validating) != 0 {
		t.Errorf("without plugins: %+v, %v", rules, ok)
	}
}

// A plugin half without rules would never be asked; rules without the
// half are a wiring mistake too.
func TestCheckRules(t *testing.T) {
	half := pkgadmission.AdmitterFunc(func(context.Context, *pkgadmission.Attributes) (*pkgadmission.Result, error) {
		return pkgadmission.Allow(), nil
	})
	some := []pkgadmission.Rule{{}}
	for _, c := range []struct {
		name string
		m, v pkgadmission.Admitter
		r    pkgadmission.Rules
		ok   bool
	}{
		{"both", half, half, pkgadmission.Rules{Mutating: some, Validating: some}, true},
		{"validating only", nil, half, pkgadmission.Rules{Validating: some}, true},
		{"mutating half without rules", half, half, pkgadmission.Rules{Validating: some}, false},
		{"rules without a validating half", half, nil, pkgadmission.Rules{Mutating: some, Validating: some}, false},
	} {
		err := checkRules(c.m, c.v, c.r)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrInvalidConfig)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
