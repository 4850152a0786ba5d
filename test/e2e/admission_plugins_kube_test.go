package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestAdmissionPluginsAsKube sends the same requests to kube-apiserver
// v1.37.2 and to kubesplit and compares what a user sees of kube's default
// admission plugins, which kubesplit runs through its adapter of kube's own
// plugin code: Priority (a pod's priority from its PriorityClass; an
// unknown class refused), DefaultStorageClass and
// StorageObjectInUseProtection (a claim gets the default class and the
// pvc-protection finalizer), DefaultTolerationSeconds, PodSecurity
// (enforce refuses a pod the restricted level does not allow, warn warns
// about it),
// CertificateApproval (approving for a signer without "approve" on it is
// refused) and MutatingAdmissionWebhook (a webhook matched through an
// equivalent resource).
func TestAdmissionPluginsAsKube(t *testing.T) {
	var k *framework.KubeAPIServer
	var wg sync.WaitGroup
	wg.Add(1)
	// Privileged containers are allowed, as kubeadm's clusters allow them,
	// so that PodSecurity is what refuses a privileged pod.
	go func() { defer wg.Done(); k = framework.StartKubeAPIServer(t, "--allow-privileged=true") }()
	s := framework.StartStack(t, framework.StackOptions{Args: map[string][]string{framework.StageRegistry: {"--allow-privileged"}}})
	wg.Wait()
	if k == nil {
		t.Fatal("kube-apiserver did not start")
	}
	kube, ours := newAPIServer(t, "kube", k.RESTConfig()), newAPIServer(t, "kubesplit", s.RESTConfig(t, s.AdminToken))
	servers := []*apiServer{kube, ours}

	// What the plugins look up is created first, on both; their informers
	// see it a moment later, hence the first request of each kind is
	// retried until it is answered as it will be from then on.
	for _, a := range servers {
		for _, c := range []struct{ path, body string }{
			{"/apis/scheduling.k8s.io/v1/priorityclasses", `{"metadata":{"name":"e2e-high"},"value":1000}`},
			{"/apis/storage.k8s.io/v1/storageclasses", `{"metadata":{"name":"e2e-default","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"example.com/none"}`},
			{"/api/v1/namespaces", `{"metadata":{"name":"adm"}}`},
			{"/api/v1/namespaces", `{"metadata":{"name":"adm-enforced","labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`},
			{"/api/v1/namespaces", `{"metadata":{"name":"adm-warned","labels":{"pod-security.kubernetes.io/warn":"restricted"}}}`},
			{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"e2e-csr-approval"},"rules":[{"apiGroups":["certificates.k8s.io"],"resources":["certificatesigningrequests","certificatesigningrequests/approval"],"verbs":["get","update","patch"]}]}`},
			{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", `{"metadata":{"name":"e2e-csr-approval"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-csr-approval"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"e2e-bob"}]}`},
			{"/apis/certificates.k8s.io/v1/certificatesigningrequests", csrBody(t)},
		} {
			if ans := a.do(t, "POST", c.path, "", c.body); ans.code != http.StatusCreated {
				t.Fatalf("%s: POST %s: %d %s", a.name, c.path, ans.code, ans.message)
			}
		}
		// kube-apiserver alone runs no service-account controller, and
		// kube's ServiceAccount plugin refuses pods until "default" exists.
		for _, ns := range []string{"adm", "adm-enforced", "adm-warned"} {
			if ans := a.do(t, "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", "", `{"metadata":{"name":"default"}}`); ans.code != http.StatusCreated && ans.code != http.StatusConflict {
				t.Fatalf("%s: service account in %s: %d %s", a.name, ns, ans.code, ans.message)
			}
		}
	}

	pods := func(ns string) string { return "/api/v1/namespaces/" + ns + "/pods" }
	pod := func(name, spec string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	const plain = `{"containers":[{"name":"c","image":"registry.example/app:1"}]}`
	created := map[string]answer{}
	for _, a := range servers {
		created[a.name] = answeredAs(t, a, "POST", pods("adm"), "", pod("prio", `{"priorityClassName":"e2e-high","containers":[{"name":"c","image":"registry.example/app:1"}]}`), http.StatusCreated)
	}
	t.Run("a pod gets its PriorityClass's priority", func(t *testing.T) {
		for name, ans := range created {
			if p := field(ans.body, "spec", "priority"); p != float64(1000) {
				t.Errorf("%s: priority %v", name, p)
			}
		}
		both(t, kube, ours, "POST", pods("adm"), "", pod("unknown", `{"priorityClassName":"e2e-missing","containers":[{"name":"c","image":"i"}]}`))
	})
	t.Run("a pod gets the default tolerations", func(t *testing.T) {
		k, o := field(created["kube"].body, "spec", "tolerations"), field(created["kubesplit"].body, "spec", "tolerations")
		if k == nil || !reflect.DeepEqual(k, o) {
			t.Errorf("tolerations\nkube:      %v\nkubesplit: %v", k, o)
		}
	})
	t.Run("a claim gets the default StorageClass and the protection finalizer", func(t *testing.T) {
		claims := map[string]answer{}
		// Each attempt a claim of its own: one made before the class was
		// seen stays without it.
		for _, a := range servers {
			claims[a.name] = answeredAs(t, a, "POST", "/api/v1/namespaces/adm/persistentvolumeclaims", "",
				`{"metadata":{"generateName":"claim-"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`,
				http.StatusCreated, func(ans answer) bool { return field(ans.body, "spec", "storageClassName") == "e2e-default" })
		}
		for name, ans := range claims {
			if f := field(ans.body, "metadata", "finalizers"); !reflect.DeepEqual(f, []any{"kubernetes.io/pvc-protection"}) {
				t.Errorf("%s: finalizers %v", name, f)
			}
		}
	})
	// A pod the restricted level does not allow (no securityContext at
	// all), and a privileged one.
	t.Run("PodSecurity enforce refuses a pod restricted does not allow", func(t *testing.T) {
		for _, a := range servers {
			answeredAs(t, a, "POST", pods("adm-enforced"), "", `{"metadata":{"generateName":"probe-"},"spec":`+plain+`}`, http.StatusForbidden)
		}
		if ans := both(t, kube, ours, "POST", pods("adm-enforced"), "", pod("unrestricted", plain)); !strings.Contains(ans.message, "violates PodSecurity") {
			t.Errorf("kubesplit: %d %s", ans.code, ans.message)
		}
		privileged := `{"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}`
		if ans := both(t, kube, ours, "POST", pods("adm-enforced"), "", pod("privileged", privileged)); !strings.Contains(ans.message, "privileged") {
			t.Errorf("a privileged pod: %d %s", ans.code, ans.message)
		}
	})
	t.Run("PodSecurity warn warns about a pod restricted does not allow", func(t *testing.T) {
		if ans := both(t, kube, ours, "POST", pods("adm-warned"), "", pod("unrestricted", plain)); ans.code != http.StatusCreated || len(ans.warnings) == 0 {
			t.Errorf("kubesplit: %d %s %v", ans.code, ans.message, ans.warnings)
		}
	})
	t.Run("approving without approve on the signer is refused", func(t *testing.T) {
		const approval = "/apis/certificates.k8s.io/v1/certificatesigningrequests/e2e-csr/approval"
		const approve = `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"E2E","message":"by bob"}]}}`
		bob := map[string]*apiServer{}
		for _, a := range servers {
			b := *a
			b.headers = map[string]string{"Impersonate-User": "e2e-bob"}
			bob[a.name] = &b
			// Until bob's role reaches authz, RBAC refuses first.
			answeredAs(t, &b, "PATCH", approval, "application/merge-patch+json", approve, http.StatusForbidden, func(ans answer) bool {
				return strings.Contains(ans.message, "user not permitted to approve")
			})
		}
		both(t, bob["kube"], bob["kubesplit"], "PATCH", approval, "application/merge-patch+json", approve)
	})
	t.Run("a webhook is sent a write through an equivalent resource as kube sends it", func(t *testing.T) {
		testWebhookEquivalentAsKube(t, servers)
	})
}

// testWebhookEquivalentAsKube has a mutating webhook whose rules name
// autoscaling/v2 HorizontalPodAutoscalers, events.k8s.io Events and v2
// gadgets (a custom resource) sent a v1 HorizontalPodAutoscaler, a core
// Event and a v1 gadget, created on either server:
// under matchPolicy Equivalent both servers must send the same review
// (the object converted to the webhook's version, the client's own in
// requestKind) and store the webhook's change.
func testWebhookEquivalentAsKube(t *testing.T, servers []*apiServer) {
	hooks := startWebhookServer(t)
	for _, a := range servers {
		cfg, err := json.Marshal(map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
			"metadata": map[string]any{"name": "e2e-equivalent"},
			"webhooks": []any{map[string]any{
				"name": "equivalent.e2e.kubesplit.io", "clientConfig": hooks.clientConfig("/record/" + a.name),
				"rules": []any{
					map[string]any{"operations": []string{"CREATE"}, "apiGroups": []string{"autoscaling"}, "apiVersions": []string{"v2"}, "resources": []string{"horizontalpodautoscalers"}},
					map[string]any{"operations": []string{"CREATE"}, "apiGroups": []string{"events.k8s.io"}, "apiVersions": []string{"v1"}, "resources": []string{"events"}},
					map[string]any{"operations": []string{"CREATE"}, "apiGroups": []string{"e2e-eq.example.com"}, "apiVersions": []string{"v2"}, "resources": []string{"gadgets"}},
				},
				"namespaceSelector":       map[string]any{"matchLabels": map[string]string{"kubernetes.io/metadata.name": "adm"}},
				"sideEffects":             "None",
				"admissionReviewVersions": []string{"v1"},
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if ans := a.do(t, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", "", string(cfg)); ans.code != http.StatusCreated {
			t.Fatalf("%s: webhook configuration: %d %s", a.name, ans.code, ans.message)
		}
		if ans := a.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", twoVersionGadgets); ans.code != http.StatusCreated {
			t.Fatalf("%s: CRD: %d %s", a.name, ans.code, ans.message)
		}
	}
	labelled := func(ans answer) bool { return field(ans.body, "metadata", "labels", "mutated-by") == "e2e-webhook" }
	for _, c := range []struct {
		path, body, kind string
		sent, stored     []string // fields compared in what the webhook was sent and in what was stored
	}{
		{"/apis/autoscaling/v1/namespaces/adm/horizontalpodautoscalers",
			`{"metadata":{"generateName":"hpa-"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3,"targetCPUUtilizationPercentage":60}}`,
			"HorizontalPodAutoscaler", []string{"apiVersion", "spec"}, []string{"spec"}},
		{"/api/v1/namespaces/adm/events",
			`{"metadata":{"generateName":"ev-"},"involvedObject":{"kind":"Pod","name":"p","namespace":"adm"},"reason":"Started","message":"hello","type":"Normal"}`,
			"Event", []string{"apiVersion", "note", "reason", "regarding", "type"}, []string{"message", "involvedObject"}},
		{"/apis/e2e-eq.example.com/v1/namespaces/adm/gadgets",
			`{"apiVersion":"e2e-eq.example.com/v1","kind":"Gadget","metadata":{"generateName":"g-"},"spec":{"size":"M"}}`,
			"Gadget", []string{"apiVersion", "spec"}, []string{"apiVersion", "spec"}},
	} {
		created := map[string]answer{}
		for _, a := range servers {
			// Until the webhook's configuration has reached admission.
			created[a.name] = answeredAs(t, a, "POST", c.path, "", c.body, http.StatusCreated, labelled)
		}
		k, o := hooks.recorded("kube", c.kind), hooks.recorded("kubesplit", c.kind)
		if k == nil || o == nil {
			t.Fatalf("%s: the webhook was not sent one by each server (kube %v, kubesplit %v)", c.kind, k != nil, o != nil)
		}
		if k.Kind != o.Kind || k.Resource != o.Resource || *k.RequestKind != *o.RequestKind || *k.RequestResource != *o.RequestResource {
			t.Errorf("%s: kube sent kind %v resource %v, request %v %v; kubesplit %v %v, request %v %v", c.kind,
				k.Kind, k.Resource, *k.RequestKind, *k.RequestResource, o.Kind, o.Resource, *o.RequestKind, *o.RequestResource)
		}
		var kSent, oSent map[string]any
		if json.Unmarshal(k.Object.Raw, &kSent) != nil || json.Unmarshal(o.Object.Raw, &oSent) != nil {
			t.Fatalf("%s: objects sent\nkube:      %s\nkubesplit: %s", c.kind, k.Object.Raw, o.Object.Raw)
		}
		for _, f := range c.sent {
			if !reflect.DeepEqual(kSent[f], oSent[f]) {
				t.Errorf("%s: sent %s\nkube:      %v\nkubesplit: %v", c.kind, f, kSent[f], oSent[f])
			}
		}
		for _, f := range c.stored {
			if k, o := field(created["kube"].body, f), field(created["kubesplit"].body, f); !reflect.DeepEqual(k, o) {
				t.Errorf("%s: stored %s\nkube:      %v\nkubesplit: %v", c.kind, f, k, o)
			}
		}
	}
}

// twoVersionGadgets serves gadgets in v1 and v2, converting by rewriting
// apiVersion (strategy None).
const twoVersionGadgets = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.e2e-eq.example.com"},
"spec":{"group":"e2e-eq.example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},
 "versions":[
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"string"}}}}}}},
  {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"string"}}}}}}}]}}`

// answeredAs sends the request to a until it is answered with code (and
// accepted by each of oks), for at most 15 seconds, and returns that
// answer.
func answeredAs(t *testing.T, a *apiServer, method, path, contentType, body string, code int, oks ...func(answer) bool) answer {
	t.Helper()
	var last answer
	defer func() {
		if t.Failed() {
			t.Logf("%s: the last answer: %d %s %v", a.name, last.code, last.message, last.body)
		}
	}()
	polltest.Until(t, 15*time.Second, a.name+" "+method+" "+path+" answering as expected", func() bool {
		last = a.do(t, method, path, contentType, body)
		if last.code != code {
			return false
		}
		for _, ok := range oks {
			if !ok(last) {
				return false
			}
		}
		return true
	})
	return last
}

// field is the value at path in a decoded JSON object; nil if absent.
func field(obj map[string]any, path ...string) any {
	var v any = obj
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// csrBody is a CertificateSigningRequest named e2e-csr for a signer of the
// test's own, with a real PKCS#10 request.
func csrBody(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "e2e"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	req := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	b, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"name": "e2e-csr"},
		"spec": map[string]any{"signerName": "example.com/e2e", "request": base64.StdEncoding.EncodeToString(req),
			"usages": []string{"digital signature"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
