package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// apiServer is one API server the same requests are sent to.
type apiServer struct {
	name   string
	host   string
	client *http.Client
	token  string
	// headers are set on every request (Impersonate-User, to act as
	// another user on both servers alike).
	headers map[string]string
}

// answer is what a user sees of a response: its code, the Status message
// of an error, the warnings, and the body.
type answer struct {
	code     int
	message  string
	warnings []string
	body     map[string]any
}

func newAPIServer(t *testing.T, name string, cfg *rest.Config) *apiServer {
	t.Helper()
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 20 * time.Second
	return &apiServer{name: name, host: cfg.Host, client: c, token: cfg.BearerToken}
}

func (a *apiServer) do(t *testing.T, method, path, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), method, a.host+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range a.headers {
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s %s: %v", a.name, method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	ans := answer{code: resp.StatusCode, warnings: resp.Header.Values("Warning")}
	_ = json.NewDecoder(bytes.NewReader(data)).Decode(&ans.body)
	if ans.body["kind"] == "Status" {
		ans.message, _ = ans.body["message"].(string)
	}
	return ans
}

// both sends the same request to kube and to kubesplit at once and fails
// unless they answer with the same code, message and warnings; it returns
// kubesplit's answer.
func both(t *testing.T, kube, ours *apiServer, method, path, contentType, body string) answer {
	t.Helper()
	var k, o answer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); k = kube.do(t, method, path, contentType, body) }()
	o = ours.do(t, method, path, contentType, body)
	wg.Wait()
	if k.code != o.code || k.message != o.message || strings.Join(k.warnings, "\n") != strings.Join(o.warnings, "\n") {
		t.Errorf("%s %s %s\nkube:      %d %q %q\nkubesplit: %d %q %q", method, path, body,
			k.code, k.message, k.warnings, o.code, o.message, o.warnings)
	}
	return o
}

const widgetsCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.e2e.example.com"},
"spec":{"group":"e2e.example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{
  "spec":{"type":"object",
   "x-kubernetes-validations":[
    {"rule":"!has(self.nums) || self.nums.sum() < 100","message":"nums must sum under 100"},
    {"rule":"self.name == oldSelf.name","message":"name is immutable"},
    {"rule":"oldSelf.hasValue() || !has(self.size) || self.size != 'XL'","optionalOldSelf":true,"message":"XL only after creation"}],
   "properties":{
    "name":{"type":"string","maxLength":10},
    "size":{"type":"string"},
    "nums":{"type":"array","maxItems":10,"items":{"type":"integer"}}}},
  "status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}`

const widgetsPath = "/apis/e2e.example.com/v1/namespaces/default/widgets"

// TestCustomResourcesAsKube sends the same CRD and custom resource
// requests to kube-apiserver v1.37.2 and to kubesplit and compares what a
// user sees: CEL typing and checks at CRD create, optionalOldSelf and
// transition rules, unknown fields under fieldValidation (embedded
// metadata too), server-side apply (finalizers a set, undeclared fields),
// defaults applied on read after the schema gains one, and validation
// ratcheting after the schema is tightened.
func TestCustomResourcesAsKube(t *testing.T) {
	var k *framework.KubeAPIServer
	var s *framework.Stack
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); k = framework.StartKubeAPIServer(t) }()
	s = framework.StartStack(t, framework.StackOptions{})
	wg.Wait()
	if k == nil {
		t.Fatal("kube-apiserver did not start")
	}
	kube, ours := newAPIServer(t, "kube", k.RESTConfig()), newAPIServer(t, "kubesplit", s.RESTConfig(t, s.AdminToken))
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

	t.Run("a rule naming a missing property is refused", func(t *testing.T) {
		bad := strings.Replace(widgetsCRD, "!has(self.nums) || self.nums.sum() < 100", "self.missing > 0", 1)
		if a := both(t, kube, ours, "POST", crds, "", bad); a.code != http.StatusUnprocessableEntity {
			t.Errorf("kubesplit: %d %s", a.code, a.message)
		}
	})
	t.Run("a costly rule is refused", func(t *testing.T) {
		bad := strings.Replace(widgetsCRD, `"maxItems":10,`, "", 1)
		bad = strings.Replace(bad, "!has(self.nums) || self.nums.sum() < 100",
			"self.nums.all(x, self.nums.all(y, self.nums.all(z, x + y + z < 1000)))", 1)
		if a := both(t, kube, ours, "POST", crds, "", bad); a.code != http.StatusUnprocessableEntity {
			t.Errorf("kubesplit: %d %s", a.code, a.message)
		}
	})
	t.Run("list.sum() types", func(t *testing.T) {
		if a := both(t, kube, ours, "POST", crds, "", widgetsCRD); a.code != http.StatusCreated {
			t.Fatalf("kubesplit: %d %s", a.code, a.message)
		}
	})
	for _, a := range []*apiServer{kube, ours} {
		polltest.Until(t, 20*time.Second, a.name+" serving widgets", func() bool {
			return a.do(t, "GET", widgetsPath, "", "").code == http.StatusOK
		})
	}

	widget := func(name, spec string) string {
		return `{"apiVersion":"e2e.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	t.Run("optionalOldSelf on create", func(t *testing.T) {
		if a := both(t, kube, ours, "POST", widgetsPath, "", widget("xl", `{"name":"a","size":"XL"}`)); a.code != http.StatusUnprocessableEntity {
			t.Errorf("kubesplit: %d %s", a.code, a.message)
		}
	})
	t.Run("a list.sum() rule", func(t *testing.T) {
		if a := both(t, kube, ours, "POST", widgetsPath, "", widget("big", `{"name":"a","nums":[90,20]}`)); a.code != http.StatusUnprocessableEntity {
			t.Errorf("kubesplit: %d %s", a.code, a.message)
		}
	})
	t.Run("unknown fields under fieldValidation", func(t *testing.T) {
		body := `{"apiVersion":"e2e.example.com/v1","kind":"Widget","metadata":{"name":"w","bogus":1},"spec":{"name":"abc","size":"M","extra":true},"top":1}`
		if a := both(t, kube, ours, "POST", widgetsPath+"?fieldValidation=Strict", "", body); a.code != http.StatusBadRequest {
			t.Errorf("Strict: %d %s", a.code, a.message)
		}
		if a := both(t, kube, ours, "POST", widgetsPath+"?fieldValidation=Warn", "", body); a.code != http.StatusCreated {
			t.Fatalf("Warn: %d %s", a.code, a.message)
		}
	})
	t.Run("transition rule", func(t *testing.T) {
		if a := both(t, kube, ours, "PATCH", widgetsPath+"/w", "application/merge-patch+json", `{"spec":{"name":"other"}}`); a.code != http.StatusUnprocessableEntity {
			t.Errorf("kubesplit: %d %s", a.code, a.message)
		}
		if a := both(t, kube, ours, "PATCH", widgetsPath+"/w", "application/merge-patch+json", `{"spec":{"size":"XL"}}`); a.code != http.StatusOK {
			t.Errorf("optionalOldSelf on update: %d %s", a.code, a.message)
		}
	})
	t.Run("server-side apply", func(t *testing.T) {
		const applyType = "application/apply-patch+yaml"
		owned := func(finalizer string) string {
			return `{"apiVersion":"e2e.example.com/v1","kind":"Widget","metadata":{"name":"sa","finalizers":["` + finalizer + `"]},"spec":{"name":"a"}}`
		}
		if a := both(t, kube, ours, "PATCH", widgetsPath+"/sa?fieldManager=one", applyType, owned("e2e.example.com/one")); a.code != http.StatusCreated {
			t.Fatalf("first apply: %d %s", a.code, a.message)
		}
		// finalizers are a set: a second manager adds its own, no conflict.
		a := both(t, kube, ours, "PATCH", widgetsPath+"/sa?fieldManager=two", applyType, owned("e2e.example.com/two"))
		if meta, _ := a.body["metadata"].(map[string]any); a.code != http.StatusOK || len(meta["finalizers"].([]any)) != 2 {
			t.Errorf("second manager's finalizer: %d %s %v", a.code, a.message, a.body["metadata"])
		}
		// Kube applies before it checks fieldValidation, and its type
		// converter refuses the field: 500, whatever the mode.
		for _, mode := range []string{"Strict", "Ignore"} {
			body := `{"apiVersion":"e2e.example.com/v1","kind":"Widget","metadata":{"name":"sa"},"spec":{"name":"a","bogus":1}}`
			a := both(t, kube, ours, "PATCH", widgetsPath+"/sa?fieldManager=three&fieldValidation="+mode, applyType, body)
			if a.code != http.StatusInternalServerError || !strings.Contains(a.message, ".spec.bogus: field not declared in schema") {
				t.Errorf("%s: an undeclared field applied: %d %s", mode, a.code, a.message)
			}
		}
	})

	// The schema tightens name to 2 characters and gains a defaulted color.
	tighten := `[{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/name/maxLength","value":2},
{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/color","value":{"type":"string","default":"blue"}}]`
	if a := both(t, kube, ours, "PATCH", crds+"/widgets.e2e.example.com", "application/json-patch+json", tighten); a.code != http.StatusOK {
		t.Fatalf("tightening the CRD: %d %s", a.code, a.message)
	}
	t.Run("defaults on read", func(t *testing.T) {
		for _, a := range []*apiServer{kube, ours} {
			polltest.Until(t, 20*time.Second, a.name+" defaulting color on read", func() bool {
				spec, _ := a.do(t, "GET", widgetsPath+"/w", "", "").body["spec"].(map[string]any)
				return spec["color"] == "blue"
			})
		}
	})
	t.Run("ratcheting", func(t *testing.T) {
		// name "abc" breaks the new maxLength, but is unchanged.
		if a := both(t, kube, ours, "PATCH", widgetsPath+"/w", "application/merge-patch+json", `{"spec":{"nums":[3]}}`); a.code != http.StatusOK {
			t.Errorf("an unchanged invalid field: %d %s", a.code, a.message)
		}
		if a := both(t, kube, ours, "PATCH", widgetsPath+"/w", "application/merge-patch+json", `{"spec":{"name":"abcd"}}`); a.code != http.StatusUnprocessableEntity {
			t.Errorf("a changed invalid field: %d %s", a.code, a.message)
		}
	})
}
