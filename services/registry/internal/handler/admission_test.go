package handler

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

const cmBody = `{"metadata":{"name":"c"},"data":{"k":"v"}}`

// TestAdmissionCreate: the mutating stage's label is stored, the
// validating stage sees the mutated object, and both get the request as
// kube fills an AdmissionRequest.
func TestAdmissionCreate(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	adm.set(addLabel("team", "blue"), nil)
	e.mustDo("POST", cmPath+"?fieldManager=me", cmBody, http.StatusCreated, "X-Test-User", "alice")
	got := e.mustDo("GET", cmPath+"/c", "", http.StatusOK)
	if str(got, "metadata.labels.team") != "blue" {
		t.Fatalf("stored labels %v, want team=blue", at(got, "metadata.labels"))
	}
	m := adm.last("mutating", admissionv1.Create)
	if m.Kind.Kind != "ConfigMap" || m.Kind.Version != "v1" || m.Resource.Resource != "configmaps" || m.SubResource != "" ||
		m.RequestResource != m.Resource || m.RequestKind != m.Kind || m.Name != "c" || m.Namespace != "ns" {
		t.Errorf("mutating attributes %+v", m)
	}
	if m.UserInfo.Username != "alice" || len(m.UserInfo.Groups) != 1 || m.UserInfo.Groups[0] != "testers" {
		t.Errorf("UserInfo %+v, want alice in testers", m.UserInfo)
	}
	if opts := objectOf(t, m.Options.Raw); str(opts, "kind") != "CreateOptions" || str(opts, "fieldManager") != "me" {
		t.Errorf("Options %s", m.Options.Raw)
	}
	if obj := objectOf(t, m.Object.Raw); str(obj, "data.k") != "v" || str(obj, "metadata.uid") == "" || len(m.OldObject.Raw) != 0 || m.DryRun {
		t.Errorf("mutating object %s, old %s, dryRun %v", m.Object.Raw, m.OldObject.Raw, m.DryRun)
	}
	v := adm.last("validating", admissionv1.Create)
	if obj := objectOf(t, v.Object.Raw); str(obj, "metadata.labels.team") != "blue" || str(obj, "metadata.uid") != str(got, "metadata.uid") {
		t.Errorf("validating stage saw %s, want the mutated object as stored (uid %s)", v.Object.Raw, str(got, "metadata.uid"))
	}
}

// TestAdmissionGeneratedName: admission sees the name generateName gave,
// the one stored.
func TestAdmissionGeneratedName(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	got := e.mustDo("POST", cmPath, `{"metadata":{"generateName":"gen-"}}`, http.StatusCreated)
	name := str(got, "metadata.name")
	if m, v := adm.last("mutating", admissionv1.Create), adm.last("validating", admissionv1.Create); !strings.HasPrefix(name, "gen-") ||
		m.Name != name || v.Name != name {
		t.Errorf("stored %q, mutating saw %q, validating saw %q", name, m.Name, v.Name)
	}
}

// TestAdmissionPatchCannotStoreInvalid: a mutating patch is validated by the
// registry like the client's own object: 422 and nothing stored.
func TestAdmissionPatchCannotStoreInvalid(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	adm.set(addLabel("bad", "not a label value!"), nil)
	before := e.etcdState()
	resp, body := e.do("POST", cmPath, cmBody)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "metadata.labels") {
		t.Fatalf("create with an invalid patch: %d %s, want 422 on metadata.labels", resp.StatusCode, body)
	}
	e.untouched(before, "a create made invalid by admission")
	if got := adm.reviews("validating", admissionv1.Create); len(got) != 0 {
		t.Errorf("validating stage asked about an invalid object")
	}
}

// TestAdmissionPatchCannotTakeServerFields: a patch may not set what the
// server owns (uid, resourceVersion) nor move the object to another
// namespace.
func TestAdmissionPatchCannotTakeServerFields(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	adm.set(func(*admission.Attributes) *admission.Result {
		return &admission.Result{Allowed: true, Patch: []byte(`[{"op":"replace","path":"/metadata/uid","value":"mine"}]`)}
	}, nil)
	got := e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
	if uid := str(got, "metadata.uid"); uid == "mine" || uid == "" {
		t.Errorf("stored uid %q", uid)
	}
	adm.set(func(*admission.Attributes) *admission.Result {
		return &admission.Result{Allowed: true, Patch: []byte(`[{"op":"replace","path":"/metadata/namespace","value":"other"}]`)}
	}, nil)
	before := e.etcdState()
	if resp, body := e.do("POST", cmPath, `{"metadata":{"name":"d"}}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a patch moving the namespace: %d %s, want 400", resp.StatusCode, body)
	}
	e.untouched(before, "a create moved to another namespace by admission")
}

// TestAdmissionDenied: the denial's Status reaches the client as it is,
// with the warnings, and etcd is untouched, whichever stage denies.
func TestAdmissionDenied(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	deny := func(*admission.Attributes) *admission.Result {
		res := admission.Deny(http.StatusForbidden, "no configmaps on Fridays")
		res.Warnings = []string{"it is Friday"}
		return res
	}
	for _, c := range []struct {
		name             string
		mutate, validate func(*admission.Attributes) *admission.Result
	}{{"mutating", deny, nil}, {"validating", nil, deny}} {
		t.Run(c.name, func(t *testing.T) {
			adm.set(c.mutate, c.validate)
			before := e.etcdState()
			resp, body := e.do("POST", cmPath, cmBody)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "no configmaps on Fridays") ||
				!strings.Contains(string(body), `"reason":"Forbidden"`) {
				t.Errorf("denied create: %d %s", resp.StatusCode, body)
			}
			if w := resp.Header.Get("Warning"); !strings.Contains(w, "it is Friday") {
				t.Errorf("Warning header %q", w)
			}
			e.untouched(before, "a denied create")
		})
	}
}

// TestAdmissionWarningsOnSuccess: warnings of an allowed write are sent
// once, even from both stages.
func TestAdmissionWarningsOnSuccess(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	warn := func(*admission.Attributes) *admission.Result {
		return &admission.Result{Allowed: true, Warnings: []string{"deprecated field"}}
	}
	adm.set(warn, warn)
	resp, body := e.do("POST", cmPath, cmBody)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	if w := resp.Header.Values("Warning"); len(w) != 1 || !strings.Contains(w[0], "deprecated field") {
		t.Errorf("Warning headers %q", w)
	}
}

// TestAdmissionUnavailable: admission down (its listener closed) or too
// slow is 503 with Retry-After, and nothing reaches etcd.
func TestAdmissionUnavailable(t *testing.T) {
	t.Run("down", func(t *testing.T) {
		e, adm := newAdmissionEnv(t)
		e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
		adm.srv.Close()
		checkUnavailable(t, e)
	})
	t.Run("slow", func(t *testing.T) {
		s := newAdmissionServer(t)
		e := newEnvWith(t, webhookAdmission(t, s.srv.URL, 300*time.Millisecond))
		e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		s.set(func(*admission.Attributes) *admission.Result {
			<-release
			return nil
		}, nil)
		checkUnavailable(t, e)
	})
	t.Run("malformed answer", func(t *testing.T) {
		var broken atomic.Bool
		good := newAdmissionServer(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if broken.Load() {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`))
				return
			}
			good.srv.Config.Handler.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		e := newEnvWith(t, webhookAdmission(t, srv.URL, 0))
		e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
		broken.Store(true)
		checkUnavailable(t, e)
	})
}

// TestAdmissionAfterRequestChecks: malformed, oversized and conflicting
// writes are refused before admission is asked, as kube decodes and checks
// preconditions first.
func TestAdmissionAfterRequestChecks(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
	adm.set(nil, nil)
	for _, c := range []struct {
		name, method, path, body string
		code                     int
	}{
		{"malformed", "POST", cmPath, `{"metadata":`, http.StatusBadRequest},
		{"oversized", "POST", cmPath, `{"metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`, http.StatusRequestEntityTooLarge},
		{"conflicting", "PUT", cmPath + "/c", `{"metadata":{"name":"c","resourceVersion":"1"}}`, http.StatusConflict},
		{"wrong namespace", "POST", cmPath, `{"metadata":{"name":"x","namespace":"other"}}`, http.StatusBadRequest},
	} {
		before := e.etcdState()
		if resp, body := e.do(c.method, c.path, c.body); resp.StatusCode != c.code {
			t.Errorf("%s: %d %.200s, want %d", c.name, resp.StatusCode, body, c.code)
		}
		e.untouched(before, c.name)
	}
	if n := len(adm.reviews("mutating", admissionv1.Create)) + len(adm.reviews("mutating", admissionv1.Update)); n != 0 {
		t.Errorf("admission asked %d times about refused writes", n)
	}
}

// checkUnavailable makes every kind of write and expects 503 and no change.
func checkUnavailable(t *testing.T, e *env) {
	t.Helper()
	before := e.etcdState()
	for _, w := range []struct{ method, path, body, ct string }{
		{"POST", cmPath, `{"metadata":{"name":"new"}}`, ""},
		{"PUT", cmPath + "/c", cmBody, ""},
		{"PATCH", cmPath + "/c", `{"data":{"k":"w"}}`, "application/merge-patch+json"},
		{"DELETE", cmPath + "/c", "", ""},
	} {
		var header []string
		if w.ct != "" {
			header = []string{"Content-Type", w.ct}
		}
		resp, body := e.do(w.method, w.path, w.body, header...)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), "ServiceUnavailable") {
			t.Errorf("%s %s without admission: %d Retry-After %q %s", w.method, w.path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	e.untouched(before, "writes while admission is unavailable")
}

// TestAdmissionUpdate: PUT and PATCH are UPDATEs with the live object as
// OldObject and UpdateOptions; the mutating stage's patch is stored.
func TestAdmissionUpdate(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
	adm.set(addLabel("updated", "yes"), nil)
	got := e.mustDo("PUT", cmPath+"/c?fieldManager=editor", `{"metadata":{"name":"c"},"data":{"k":"new"}}`, http.StatusOK)
	if str(got, "metadata.labels.updated") != "yes" {
		t.Errorf("PUT stored labels %v", at(got, "metadata.labels"))
	}
	m := adm.last("mutating", admissionv1.Update)
	if str(objectOf(t, m.OldObject.Raw), "data.k") != "v" || str(objectOf(t, m.Object.Raw), "data.k") != "new" ||
		str(objectOf(t, m.Options.Raw), "kind") != "UpdateOptions" || str(objectOf(t, m.Options.Raw), "fieldManager") != "editor" {
		t.Errorf("PUT review: object %s old %s options %s", m.Object.Raw, m.OldObject.Raw, m.Options.Raw)
	}
	if v := adm.last("validating", admissionv1.Update); str(objectOf(t, v.Object.Raw), "metadata.labels.updated") != "yes" {
		t.Errorf("validating stage saw %s", v.Object.Raw)
	}

	adm.set(nil, nil)
	e.mustDo("PATCH", cmPath+"/c", `{"data":{"k":"patched"}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	if v := adm.last("validating", admissionv1.Update); str(objectOf(t, v.OldObject.Raw), "data.k") != "new" ||
		str(objectOf(t, v.Object.Raw), "data.k") != "patched" {
		t.Errorf("PATCH review: object %s old %s", v.Object.Raw, v.OldObject.Raw)
	}

	adm.set(nil, func(a *admission.Attributes) *admission.Result { return admission.Deny(http.StatusForbidden, "frozen") })
	before := e.etcdState()
	if resp, body := e.do("PATCH", cmPath+"/c", `{"data":{"k":"x"}}`, "Content-Type", "application/merge-patch+json"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("denied PATCH: %d %s", resp.StatusCode, body)
	}
	e.untouched(before, "a denied patch")
}

// TestAdmissionApply: server-side apply is a CREATE with CreateOptions when
// the object is new and an UPDATE otherwise, and is mutated like any write.
func TestAdmissionApply(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	adm.set(addLabel("applied", "yes"), nil)
	apply := func(data string, code int) map[string]any {
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"` + data + `"}}`
		return e.mustDo("PATCH", cmPath+"/a?fieldManager=kubectl", body, code, "Content-Type", "application/apply-patch+yaml")
	}
	if got := apply("1", http.StatusCreated); str(got, "metadata.labels.applied") != "yes" {
		t.Errorf("apply create stored %v", at(got, "metadata.labels"))
	}
	if c := adm.last("validating", admissionv1.Create); str(objectOf(t, c.Options.Raw), "kind") != "CreateOptions" {
		t.Errorf("apply create options %s", c.Options.Raw)
	}
	apply("2", http.StatusOK)
	if u := adm.last("validating", admissionv1.Update); str(objectOf(t, u.OldObject.Raw), "data.k") != "1" ||
		str(objectOf(t, u.Object.Raw), "data.k") != "2" {
		t.Errorf("apply update review: object %s old %s", u.Object.Raw, u.OldObject.Raw)
	}
}

// TestAdmissionDelete: DELETE carries the live object as OldObject and
// DeleteOptions; a denial keeps the object.
func TestAdmissionDelete(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
	adm.set(nil, func(a *admission.Attributes) *admission.Result {
		if a.Operation == admissionv1.Delete {
			return admission.Deny(http.StatusForbidden, "keep it")
		}
		return nil
	})
	before := e.etcdState()
	resp, body := e.do("DELETE", cmPath+"/c?gracePeriodSeconds=0", "")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "keep it") {
		t.Fatalf("denied delete: %d %s", resp.StatusCode, body)
	}
	e.untouched(before, "a denied delete")
	for _, phase := range []string{"mutating", "validating"} {
		d := adm.last(phase, admissionv1.Delete)
		if len(d.Object.Raw) != 0 || str(objectOf(t, d.OldObject.Raw), "data.k") != "v" || d.Name != "c" || d.Namespace != "ns" ||
			str(objectOf(t, d.Options.Raw), "kind") != "DeleteOptions" || str(objectOf(t, d.Options.Raw), "gracePeriodSeconds") != "0" {
			t.Errorf("%s DELETE review: %+v options %s", phase, d, d.Options.Raw)
		}
	}

	adm.set(nil, nil)
	e.mustDo("DELETE", cmPath+"/c", "", http.StatusOK)
	e.mustDo("GET", cmPath+"/c", "", http.StatusNotFound)
}

// TestAdmissionDeleteWithFinalizers: marking an object for deletion is a
// DELETE too, and a denial leaves it unmarked.
func TestAdmissionDeleteWithFinalizers(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	e.mustDo("POST", cmPath, `{"metadata":{"name":"f","finalizers":["example.com/hold"]}}`, http.StatusCreated)
	adm.set(nil, func(a *admission.Attributes) *admission.Result {
		if a.Operation == admissionv1.Delete {
			return admission.Deny(http.StatusForbidden, "keep it")
		}
		return nil
	})
	before := e.etcdState()
	if resp, body := e.do("DELETE", cmPath+"/f", ""); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("denied delete: %d %s", resp.StatusCode, body)
	}
	e.untouched(before, "a denied delete of an object with finalizers")
}

// TestAdmissionDryRun: a dry run is flagged to admission, in DryRun and in
// the options, and stores nothing.
func TestAdmissionDryRun(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	before := e.etcdState()
	e.mustDo("POST", cmPath+"?dryRun=All", cmBody, http.StatusCreated)
	e.untouched(before, "a dry-run create")
	for _, phase := range []string{"mutating", "validating"} {
		c := adm.last(phase, admissionv1.Create)
		if !c.DryRun || !strings.Contains(string(c.Options.Raw), `"dryRun":["All"]`) {
			t.Errorf("%s review of a dry run: DryRun %v options %s", phase, c.DryRun, c.Options.Raw)
		}
	}
	e.mustDo("POST", cmPath, cmBody, http.StatusCreated)
	e.mustDo("DELETE", cmPath+"/c?dryRun=All", "", http.StatusOK)
	if d := adm.last("validating", admissionv1.Delete); !d.DryRun {
		t.Errorf("dry-run delete not flagged")
	}
	e.mustDo("GET", cmPath+"/c", "", http.StatusOK)
}

// TestAdmissionDeleteCollection asks about every item; one denied item
// stays, with the denial as the answer.
func TestAdmissionDeleteCollection(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	for _, name := range []string{"a", "b", "c"} {
		e.mustDo("POST", cmPath, fmt.Sprintf(`{"metadata":{"name":%q}}`, name), http.StatusCreated)
	}
	adm.set(nil, func(a *admission.Attributes) *admission.Result {
		if a.Operation == admissionv1.Delete && a.Name == "b" {
			return admission.Deny(http.StatusForbidden, "b stays")
		}
		return nil
	})
	resp, body := e.do("DELETE", cmPath, "")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "b stays") {
		t.Fatalf("deletecollection with a denied item: %d %s", resp.StatusCode, body)
	}
	e.mustDo("GET", cmPath+"/b", "", http.StatusOK)
	asked := map[string]bool{}
	for _, d := range adm.reviews("validating", admissionv1.Delete) {
		asked[d.Name] = true
		if str(objectOf(t, d.OldObject.Raw), "metadata.name") != d.Name {
			t.Errorf("review of %s has OldObject %s", d.Name, d.OldObject.Raw)
		}
	}
	if !asked["b"] {
		t.Errorf("admission was not asked about b: %v", asked)
	}

	adm.set(nil, nil)
	e.mustDo("DELETE", cmPath, "", http.StatusOK)
	for _, name := range []string{"a", "b", "c"} {
		e.mustDo("GET", cmPath+"/"+name, "", http.StatusNotFound)
	}
	if got := len(adm.reviews("validating", admissionv1.Delete)); got < 1 {
		t.Errorf("second deletecollection asked admission %d times", got)
	}
}

// TestAdmissionStatus: a status write is an UPDATE of subresource status
// on the whole object.
func TestAdmissionStatus(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	d := e.mustDo("POST", deployPath, deployment("d", 1, "nginx:1"), http.StatusCreated)
	adm.set(nil, func(a *admission.Attributes) *admission.Result {
		if a.SubResource == "status" && str(jsonMap(a.Object.Raw), "status.replicas") == "7" {
			return admission.Deny(http.StatusForbidden, "not seven")
		}
		return nil
	})
	put(e, deployPath+"/d/status", d, func(o map[string]any) { set(o, float64(3), "status", "replicas") })
	s := adm.last("validating", admissionv1.Update)
	if s.SubResource != "status" || s.RequestSubResource != "status" || s.Kind.Kind != "Deployment" || s.Resource.Resource != "deployments" ||
		str(objectOf(t, s.Object.Raw), "status.replicas") != "3" || str(objectOf(t, s.Object.Raw), "spec.replicas") != "1" {
		t.Errorf("status review %+v object %s", s, s.Object.Raw)
	}
	cur := e.mustDo("GET", deployPath+"/d", "", http.StatusOK)
	set(cur, float64(7), "status", "replicas")
	before := e.etcdState()
	if resp, body := e.do("PUT", deployPath+"/d/status", mustJSON(t, cur)); resp.StatusCode != http.StatusForbidden {
		t.Errorf("denied status write: %d %s", resp.StatusCode, body)
	}
	e.untouched(before, "a denied status write")
}

// TestAdmissionScale: a scale write is an UPDATE of subresource scale on
// the autoscaling/v1 Scale; the mutating stage's patch to it is stored.
func TestAdmissionScale(t *testing.T) {
	e, adm := newAdmissionEnv(t)
	e.mustDo("POST", deployPath, deployment("d", 2, "nginx:1"), http.StatusCreated)
	adm.set(func(a *admission.Attributes) *admission.Result {
		if a.SubResource != "scale" {
			return nil
		}
		return &admission.Result{Allowed: true, Patch: []byte(`[{"op":"replace","path":"/spec/replicas","value":4}]`)}
	}, nil)
	s := e.mustDo("PATCH", deployPath+"/d/scale", `{"spec":{"replicas":5}}`, http.StatusOK, "Content-Type", "application/merge-patch+json")
	if str(s, "spec.replicas") != "4" {
		t.Errorf("scale after a mutating patch to 4: %v", at(s, "spec"))
	}
	m := adm.last("mutating", admissionv1.Update)
	if m.SubResource != "scale" || m.Kind.Kind != "Scale" || m.Kind.Group != "autoscaling" || m.Resource.Resource != "deployments" ||
		str(objectOf(t, m.Object.Raw), "spec.replicas") != "5" || str(objectOf(t, m.OldObject.Raw), "spec.replicas") != "2" {
		t.Errorf("scale review %+v object %s old %s", m, m.Object.Raw, m.OldObject.Raw)
	}
	if v := adm.last("validating", admissionv1.Update); str(objectOf(t, v.Object.Raw), "spec.replicas") != "4" {
		t.Errorf("validating stage saw scale %s", v.Object.Raw)
	}
}

// TestAdmissionLocal: local admitters (the fused binary's) work as the
// remote ones do, and a validating admitter's patch is refused.
func TestAdmissionLocal(t *testing.T) {
	e := newEnvWith(t, Admission{
		Mutating: admission.AdmitterFunc(func(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
			return addLabel("local", "yes")(a), nil
		}),
		Validating: admission.AdmitterFunc(func(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
			if a.Name == "patchme" {
				return &admission.Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/data","value":{}}]`)}, nil
			}
			return admission.Allow(), nil
		}),
	})
	if got := e.mustDo("POST", cmPath, cmBody, http.StatusCreated); str(got, "metadata.labels.local") != "yes" {
		t.Errorf("local mutation not stored: %v", at(got, "metadata.labels"))
	}
	before := e.etcdState()
	if resp, body := e.do("POST", cmPath, `{"metadata":{"name":"patchme"}}`); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("a validating admitter's patch: %d %s, want 500", resp.StatusCode, body)
	}
	e.untouched(before, "a create a validating admitter tried to patch")
}
