package rbac

import "testing"

func TestEncodeList(t *testing.T) {
	var seen []string
	collect := func(s string) bool { seen = append(seen, s); return false }

	for _, tt := range []struct {
		list []string
		want int
	}{
		{nil, 0},
		{[]string{}, 0},
		{[]string{""}, 1},
		{[]string{"a", "", "b"}, 3},
	} {
		seen = nil
		anyElem(encodeList(tt.list), collect)
		if len(seen) != tt.want {
			t.Errorf("elements of %q = %q, want %d", tt.list, seen, tt.want)
		}
		for i := range seen {
			if seen[i] != tt.list[i] {
				t.Errorf("element %d of %q = %q", i, tt.list, seen[i])
			}
		}
	}
}

func TestMatchers(t *testing.T) {
	enc := func(s ...string) string { return encodeList(s) }
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"verb exact", verbMatches("get", enc("list", "get")), true},
		{"verb other", verbMatches("watch", enc("list", "get")), false},
		{"verb *", verbMatches("impersonate", enc("*")), true},
		{"verb none", verbMatches("get", enc()), false},
		{"verb empty request", verbMatches("", enc("get")), false},

		{"group core", groupMatches("", enc("")), true},
		{"group core vs named", groupMatches("apps", enc("")), false},
		{"group named vs core", groupMatches("", enc("apps")), false},
		{"group *", groupMatches("example.com", enc("*")), true},

		{"resource exact", resourceMatches("pods", "", enc("pods")), true},
		{"resource *", resourceMatches("pods/log", "log", enc("*")), true},
		{"resource with subresource", resourceMatches("pods/log", "log", enc("pods/log")), true},
		{"resource misses subresource", resourceMatches("pods/log", "log", enc("pods")), false},
		{"*/sub", resourceMatches("deployments/scale", "scale", enc("*/scale")), true},
		{"*/sub, no subresource", resourceMatches("scale", "", enc("*/scale")), false},
		{"*/sub, suffix only", resourceMatches("deployments/upscale", "upscale", enc("*/scale")), false},
		{"*/sub, other", resourceMatches("deployments/status", "status", enc("*/scale")), false},
		{"res/* is literal", resourceMatches("pods/log", "log", enc("pods/*")), false},
		{"*/* is literal", resourceMatches("pods/log", "log", enc("*/*")), false},

		{"names empty allows all", nameMatches("x", enc()), true},
		{"names empty allows none given", nameMatches("", enc()), true},
		{"names listed", nameMatches("x", enc("y", "x")), true},
		{"names unlisted", nameMatches("z", enc("y", "x")), false},
		{"names need a name", nameMatches("", enc("x")), false},
		{"names are not globs", nameMatches("x", enc("*")), false},

		{"url exact", urlMatches("/healthz", enc("/healthz")), true},
		{"url *", urlMatches("/x", enc("*")), true},
		{"url prefix", urlMatches("/apis/apps", enc("/apis/*")), true},
		{"url prefix exact", urlMatches("/apis/", enc("/apis/*")), true},
		{"url prefix without slash", urlMatches("/apis", enc("/apis/*")), false},
		{"url several stars", urlMatches("/logs/x", enc("/logs/**")), true},
		{"url star only at the end", urlMatches("/a/b/c", enc("/a/*/c")), false},
		{"url other", urlMatches("/livez", enc("/healthz")), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestMatchFuncArguments checks the casbin adapter refuses what it cannot
// evaluate instead of panicking.
func TestMatchFuncArguments(t *testing.T) {
	verb := matchFuncs[0]
	if _, err := verb.govaluate("get"); err == nil {
		t.Error("one argument accepted")
	}
	if _, err := verb.govaluate("get", 1.0); err == nil {
		t.Error("a number accepted")
	}
	got, err := verb.govaluate("get", encodeList([]string{"get"}))
	if err != nil || got != true {
		t.Errorf("verbMatch(get, [get]) = %v, %v", got, err)
	}
}
