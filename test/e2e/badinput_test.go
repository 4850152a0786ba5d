package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// Media types of raw requests.
const (
	jsonType  = "application/json"
	yamlType  = "application/yaml"
	protoType = "application/vnd.kubernetes.protobuf"
)

// badRequest is one request the registry must refuse.
type badRequest struct {
	name        string
	method      string
	path        string // under the registry's URL, with any query
	contentType string
	accept      string
	body        []byte
	code        int
	reason      metav1.StatusReason
	message     string // a substring the Status message must hold
	cause       string // a field a cause must name, for Invalid
}

// TestBadInput sends malformed, mismatched, oversized and otherwise wrong
// requests straight over HTTP. Each gets the status code and the
// metav1.Status reason kube-apiserver answers with, and none changes
// anything in etcd.
func TestBadInput(t *testing.T) {
	t.Parallel()
	// No controllers, so that nothing else writes to etcd while the test
	// compares snapshots of all of it.
	r := framework.StartRegistry(t, "--disable-controllers")
	existing := createRaw(t, r, "/api/v1/namespaces/default/configmaps", configMapJSON("existing", ""))

	cms := "/api/v1/namespaces/default/configmaps"
	cases := []badRequest{
		{name: "malformed JSON", method: "POST", path: cms, body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}`),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "malformed YAML", method: "POST", path: cms, contentType: yamlType,
			body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n data: [unclosed\n"),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "JSON array", method: "POST", path: cms, body: []byte(`[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}]`),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "JSON string", method: "POST", path: cms, body: []byte(`"a ConfigMap"`),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "YAML list", method: "POST", path: cms, contentType: yamlType, body: []byte("- apiVersion: v1\n  kind: ConfigMap\n"),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "apiVersion of another group", method: "POST", path: cms,
			body: []byte(`{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"x"}}`),
			code: 400, reason: metav1.StatusReasonBadRequest, message: "apps/v1"},
		{name: "kind of another resource", method: "POST", path: cms,
			body: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`),
			code: 400, reason: metav1.StatusReasonBadRequest, message: "Secret"},
		{name: "deployment posted to configmaps", method: "POST", path: cms, contentType: yamlType, body: []byte(deploymentYAML),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "namespace differs from the URL's", method: "POST", path: cms,
			body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"kube-system"}}`),
			code: 400, reason: metav1.StatusReasonBadRequest, message: "namespace"},
		{name: "upper-case name", method: "POST", path: cms, body: configMapJSON("MyConfig", ""),
			code: 422, reason: metav1.StatusReasonInvalid, message: `"MyConfig"`, cause: "metadata.name"},
		{name: "name too long", method: "POST", path: cms, body: configMapJSON(strings.Repeat("a", 254), ""),
			code: 422, reason: metav1.StatusReasonInvalid, message: "253", cause: "metadata.name"},
		{name: "no name", method: "POST", path: cms, body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}`),
			code: 422, reason: metav1.StatusReasonInvalid, cause: "metadata.name"},
		{name: "invalid data key", method: "POST", path: cms, body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"no spaces":"v"}}`),
			code: 422, reason: metav1.StatusReasonInvalid, cause: "data[no spaces]"},
		{name: "unknown field, Strict", method: "POST", path: cms + "?fieldValidation=Strict", body: configMapJSON("x", `"colour":"blue",`),
			code: 400, reason: metav1.StatusReasonBadRequest, message: `unknown field "colour"`},
		{name: "nested unknown field, Strict", method: "POST", path: cms + "?fieldValidation=Strict",
			body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","colour":"blue"}}`),
			code: 400, reason: metav1.StatusReasonBadRequest, message: `unknown field "metadata.colour"`},
		{name: "duplicate field, Strict", method: "POST", path: cms + "?fieldValidation=Strict", contentType: yamlType,
			body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {}\ndata: {}\n"),
			code: 400, reason: metav1.StatusReasonBadRequest, message: `duplicate field "data"`},
		{name: "bad fieldValidation", method: "POST", path: cms + "?fieldValidation=Loud", body: configMapJSON("x", ""),
			code: 422, reason: metav1.StatusReasonInvalid, message: "fieldValidation", cause: "fieldValidation"},
		{name: "bad dryRun", method: "POST", path: cms + "?dryRun=Some", body: configMapJSON("x", ""),
			code: 422, reason: metav1.StatusReasonInvalid, message: "dry", cause: "dryRun"},
		{name: "body over 3 MiB", method: "POST", path: cms,
			body: configMapJSON("huge", fmt.Sprintf(`"data":{"k":%q},`, strings.Repeat("x", 3<<20))),
			code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "absurdly nested arrays", method: "POST", path: cms,
			body: configMapJSON("deep", `"x":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+","),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "absurdly nested objects", method: "POST", path: cms,
			body: configMapJSON("deep", `"x":`+strings.Repeat(`{"a":`, 10000)+"1"+strings.Repeat("}", 10000)+","),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "absurdly nested YAML", method: "POST", path: cms, contentType: yamlType,
			body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\nx: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "YAML alias bomb", method: "POST", path: cms, contentType: yamlType, body: []byte(yamlBomb()),
			code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "absurdly nested merge patch", method: "PATCH", path: cms + "/existing", contentType: "application/merge-patch+json",
			body: []byte(`{"x":` + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + "}"),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "absurdly nested JSON patch", method: "PATCH", path: cms + "/existing", contentType: "application/json-patch+json",
			body: []byte(`[{"op":"add","path":"/x","value":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}]"),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "stale resourceVersion on PUT", method: "PUT", path: cms + "/existing",
			body: []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"existing","resourceVersion":"%d"},"data":{"a":"b"}}`,
				mustInt(t, existing.ResourceVersion)-1)),
			code: 409, reason: metav1.StatusReasonConflict, message: "the object has been modified"},
		{name: "wrong uid on PUT", method: "PUT", path: cms + "/existing",
			body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"existing","uid":"00000000-0000-0000-0000-000000000000"},"data":{"a":"b"}}`),
			code: 409, reason: metav1.StatusReasonConflict},
		{name: "name differs from the URL's on PUT", method: "PUT", path: cms + "/existing", body: configMapJSON("other", ""),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "PUT of a missing object", method: "PUT", path: cms + "/ghost", body: configMapJSON("ghost", ""),
			code: 404, reason: metav1.StatusReasonNotFound, message: `configmaps "ghost" not found`},
		{name: "create of an existing name", method: "POST", path: cms, body: configMapJSON("existing", ""),
			code: 409, reason: metav1.StatusReasonAlreadyExists, message: `configmaps "existing" already exists`},
		{name: "create in a missing namespace", method: "POST", path: "/api/v1/namespaces/nowhere/configmaps", body: configMapJSON("x", ""),
			code: 404, reason: metav1.StatusReasonNotFound, message: `namespaces "nowhere" not found`},
		{name: "CBOR body", method: "POST", path: cms, contentType: "application/cbor", body: []byte{0xa1, 0x61, 0x61, 0x01},
			code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "text body", method: "POST", path: cms, contentType: "text/plain", body: configMapJSON("x", ""),
			code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "garbage protobuf", method: "POST", path: cms, contentType: protoType, body: []byte("k8s\x00garbage"),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "patch of an unsupported type", method: "PATCH", path: cms + "/existing", contentType: "text/plain", body: []byte(`{"data":{"a":"b"}}`),
			code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "malformed JSON patch", method: "PATCH", path: cms + "/existing", contentType: "application/json-patch+json", body: []byte(`[{"op":"replace"`),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "malformed merge patch", method: "PATCH", path: cms + "/existing", contentType: "application/merge-patch+json", body: []byte(`{"data":`),
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "apply without a field manager", method: "PATCH", path: cms + "/existing", contentType: "application/apply-patch+yaml",
			body: configMapJSON("existing", ""), code: 422, reason: metav1.StatusReasonInvalid, message: "fieldManager", cause: "fieldManager"},
		{name: "accept of only CBOR on GET", method: "GET", path: cms + "/existing", accept: "application/cbor",
			code: 406, reason: metav1.StatusReasonNotAcceptable},
		{name: "accept of only HTML on POST", method: "POST", path: cms, accept: "text/html", body: configMapJSON("x", ""),
			code: 406, reason: metav1.StatusReasonNotAcceptable},
		{name: "bad label selector", method: "GET", path: cms + "?labelSelector=app+in+(web",
			code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "unsupported field selector", method: "GET", path: cms + "?fieldSelector=data.k%3Dv",
			code: 400, reason: metav1.StatusReasonBadRequest, message: "data.k"},
		{name: "bad propagation policy", method: "DELETE", path: cms + "/existing?propagationPolicy=Sideways",
			code: 422, reason: metav1.StatusReasonInvalid, cause: "propagationPolicy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, r, "/registry/")
			resp, body := rawRequest(t, r, c.method, c.path, c.contentType, c.accept, c.body)
			assertStatus(t, resp, body, c)
			assertSameSnapshot(t, before, snapshot(t, r, "/registry/"))
		})
	}
}

// TestBadInputWarn sends an unknown field with fieldValidation=Warn: the
// object is created without it and the answer carries a Warning header
// naming it. A dry run warns the same and writes nothing.
func TestBadInputWarn(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t, "--disable-controllers")
	cms := "/api/v1/namespaces/default/configmaps"

	before := snapshot(t, r, "/registry/")
	resp, body := rawRequest(t, r, "POST", cms+"?fieldValidation=Warn&dryRun=All", "", "", configMapJSON("dry", `"colour":"blue",`))
	assertWarning(t, resp, body, `unknown field "colour"`)
	assertSameSnapshot(t, before, snapshot(t, r, "/registry/"))

	resp, body = rawRequest(t, r, "POST", cms+"?fieldValidation=Warn", "", "", configMapJSON("warned", `"colour":"blue",`))
	assertWarning(t, resp, body, `unknown field "colour"`)
	stored, ok := etcdValue(t, r, configMapsPrefix+"default/warned")
	if !ok {
		t.Fatal("the warned-about object was not created")
	}
	if _, ok := stored["colour"]; ok {
		t.Error("the unknown field was stored")
	}
	// Warn is the default, and Ignore says nothing.
	resp, body = rawRequest(t, r, "POST", cms, "", "", configMapJSON("default-mode", `"colour":"blue",`))
	assertWarning(t, resp, body, `unknown field "colour"`)
	resp, _ = rawRequest(t, r, "POST", cms+"?fieldValidation=Ignore", "", "", configMapJSON("ignored", `"colour":"blue",`))
	if resp.StatusCode != http.StatusCreated || len(resp.Header.Values("Warning")) != 0 {
		t.Errorf("fieldValidation=Ignore: %d with warnings %q", resp.StatusCode, resp.Header.Values("Warning"))
	}
}

// yamlBomb is a "billion laughs" document: nine levels of aliases that
// would expand to 9^9 strings.
func yamlBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n")
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i < 9; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.Join([]string{p, p, p, p, p, p, p, p, p}, ","))
	}
	return b.String()
}

func assertWarning(t *testing.T, resp *http.Response, body []byte, want string) {
	t.Helper()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("got %d, want 201: %s", resp.StatusCode, body)
	}
	warnings := resp.Header.Values("Warning")
	for _, w := range warnings {
		if strings.HasPrefix(w, "299 ") && strings.Contains(w, strings.ReplaceAll(want, `"`, `\"`)) {
			return
		}
	}
	t.Errorf("Warning headers %q lack a 299 warning with %s", warnings, want)
}

// configMapJSON is a ConfigMap named name, with extra JSON fields spliced
// in before metadata (each ending with a comma).
func configMapJSON(name, extra string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap",%s"metadata":{"name":%q}}`, extra, name))
}

// rawRequest sends one request and reads the whole answer.
func rawRequest(t *testing.T, r *framework.Registry, method, path, contentType, accept string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), method, r.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		if contentType == "" {
			contentType = jsonType
		}
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// createRaw creates an object over HTTP and returns its metadata.
func createRaw(t *testing.T, r *framework.Registry, path string, body []byte) metav1.ObjectMeta {
	t.Helper()
	resp, data := rawRequest(t, r, "POST", path, "", "", body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, data)
	}
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return obj.Metadata
}

// assertStatus checks an error answer: the code, and a JSON metav1.Status
// body with the same code and the expected reason.
func assertStatus(t *testing.T, resp *http.Response, body []byte, c badRequest) {
	t.Helper()
	if resp.StatusCode != c.code {
		t.Errorf("%s %s: status %d, want %d; body %.300s", c.method, c.path, resp.StatusCode, c.code, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, jsonType) {
		t.Errorf("Content-Type %q, want %s", ct, jsonType)
	}
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("the body is not a Status: %v\n%.300s", err, body)
	}
	if s.Kind != "Status" || s.APIVersion != "v1" || s.Status != metav1.StatusFailure {
		t.Errorf("body is %s/%s with status %q, want a v1 Status of Failure: %.300s", s.APIVersion, s.Kind, s.Status, body)
	}
	if s.Code != int32(c.code) || s.Reason != c.reason {
		t.Errorf("Status code %d reason %q, want %d %q (message %q)", s.Code, s.Reason, c.code, c.reason, s.Message)
	}
	if c.message != "" && !strings.Contains(s.Message, c.message) {
		t.Errorf("Status message %q lacks %q", s.Message, c.message)
	}
	if c.cause != "" {
		found := false
		if s.Details != nil {
			for _, cause := range s.Details.Causes {
				found = found || cause.Field == c.cause
			}
		}
		if !found {
			t.Errorf("Status details %+v name no cause in field %s", s.Details, c.cause)
		}
	}
}
