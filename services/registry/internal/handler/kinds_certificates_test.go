package handler

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

func init() {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	csr, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "sample"}}, key)
	if err != nil {
		panic(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sample-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, key.Public(), key)
	if err != nil {
		panic(err)
	}
	csrPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: csr})
	caPEM, _ := json.Marshal(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	b64 := base64.StdEncoding.EncodeToString
	for k, v := range map[string]string{
		"certificates.k8s.io/certificatesigningrequests": `{"spec":{"request":"` + b64(csrPEM) +
			`","signerName":"example.com/signer","usages":["client auth"]}}`,
		"certificates.k8s.io/clustertrustbundles": `{"spec":{"trustBundle":` + string(caPEM) + `}}`,
		"certificates.k8s.io/podcertificaterequests": `{"spec":{"signerName":"example.com/signer",` +
			`"podName":"p","podUID":"pod-uid","serviceAccountName":"default","serviceAccountUID":"sa-uid",` +
			`"nodeName":"n1","nodeUID":"node-uid","maxExpirationSeconds":86400,"stubPKCS10Request":"` + b64(csr) + `"}}`,
	} {
		kindSamples[k] = v
	}
}

const csrPath = "/apis/certificates.k8s.io/v1/certificatesigningrequests"

// A CSR names the user who created it, whatever the body claims, and is
// approved only through its approval subresource, as kube's strategies
// have it.
func TestCertificateSigningRequestIsTheCreatorsAndApprovedThroughApproval(t *testing.T) {
	e := newEnv(t)
	var csr map[string]any
	if err := json.Unmarshal([]byte(kindSamples["certificates.k8s.io/certificatesigningrequests"]), &csr); err != nil {
		t.Fatal(err)
	}
	csr["apiVersion"], csr["kind"] = "certificates.k8s.io/v1", "CertificateSigningRequest"
	csr["metadata"] = map[string]any{"name": "mine"}
	spec := csr["spec"].(map[string]any)
	spec["username"], spec["groups"] = "mallory", []string{"system:masters"}
	csr["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Approved", "status": "True", "reason": "Self"}}}
	body, _ := json.Marshal(csr)

	created := e.mustDo("POST", csrPath, string(body), http.StatusCreated, "X-Test-User", "alice")
	if got := str(created, "spec.username"); got != "alice" {
		t.Errorf("spec.username %q, want the creating user alice", got)
	}
	if groups := at(created, "spec.groups"); strings.Contains(jsonOf(groups), "system:masters") || !strings.Contains(jsonOf(groups), "testers") {
		t.Errorf("spec.groups %v, want the creating user's", groups)
	}
	if c := at(created, "status.conditions"); c != nil && len(c.([]any)) > 0 {
		t.Errorf("a new CSR kept the conditions it was sent: %v", c)
	}

	approved := map[string]any{"type": "Approved", "status": "True", "reason": "Test", "message": "ok"}
	created["status"] = map[string]any{"conditions": []any{approved}}
	// Through the object the conditions are ignored; through status they
	// are refused; through approval they are written.
	body, _ = json.Marshal(created)
	if got := e.mustDo("PUT", csrPath+"/mine", string(body), http.StatusOK); at(got, "status.conditions") != nil && len(at(got, "status.conditions").([]any)) > 0 {
		t.Errorf("an update of the object approved the CSR: %v", at(got, "status.conditions"))
	}
	if resp, out := e.do("PUT", csrPath+"/mine/status", string(body)); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(string(out), `may not add a condition of type \"Approved\"`) {
		t.Errorf("status write of an approval: %d %s", resp.StatusCode, out)
	}
	got := e.mustDo("PUT", csrPath+"/mine/approval", string(body), http.StatusOK)
	if str(got, "spec.username") != "alice" || !strings.Contains(jsonOf(at(got, "status.conditions")), `"Approved"`) {
		t.Errorf("approval: %v", got)
	}
	if str(e.mustDo("GET", csrPath+"/mine/approval", "", http.StatusOK), "metadata.name") != "mine" {
		t.Error("GET of the approval subresource does not answer the CSR")
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A PodCertificateRequest's status is written only by who may "sign" for
// its signer. The registry has no authorizer for that question but kube's
// system:masters one: anyone else is refused, never let through (and the
// strategy does not panic on a missing authorizer).
func TestPodCertificateRequestStatusNeedsSignPermission(t *testing.T) {
	e := newEnv(t)
	info := builtin(t, "certificates.k8s.io", "podcertificaterequests")
	body, _ := sample(t, info, "pcr")
	path := resourcePath(info, "ns")
	created := e.mustDo("POST", path, body, http.StatusCreated)
	created["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Denied", "status": "True",
		"reason": "Test", "message": "no", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}
	next, _ := json.Marshal(created)

	resp, out := e.do("PUT", path+"/pcr/status", string(next), "X-Test-User", "signer")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(out), `is not permitted to \"sign\" for signer \"example.com/signer\"`) {
		t.Errorf("status write by a user without sign permission: %d %s", resp.StatusCode, out)
	}

	if err := statusByMasters(info, created, next); err != nil {
		t.Errorf("status write by system:masters refused: %v", err)
	}
}

// builtin is the served resource group/resource.
func builtin(t *testing.T, group, res string) *resource.Info {
	t.Helper()
	for _, info := range resource.Builtins() {
		if info.Group == group && info.Resource == res {
			return info
		}
	}
	t.Fatalf("%s/%s is not served", group, res)
	return nil
}

// statusByMasters is kube's validation of a status update from created,
// without its status, to next, by a member of system:masters in namespace
// ns: what the registry's handler cannot send, since its test users have
// no groups of their own.
func statusByMasters(info *resource.Info, created map[string]any, next []byte) error {
	old := &unstructured.Unstructured{}
	_ = json.Unmarshal([]byte(jsonOf(created)), &old.Object)
	unstructured.RemoveNestedField(old.Object, "status")
	obj := &unstructured.Unstructured{}
	_ = json.Unmarshal(next, &obj.Object)
	ctx := kubetype.WithRequest(context.Background(), kubetype.Request{Verb: "update", Group: info.Group, Version: info.Version,
		Resource: info.Resource, Subresource: "status", Namespace: "ns", Name: "x", User: "admin", Groups: []string{"system:masters"}})
	errs, _, err := info.Strategy.Validate(ctx, "status", obj, old)
	if err == nil && len(errs) > 0 {
		err = errs.ToAggregate()
	}
	return err
}
