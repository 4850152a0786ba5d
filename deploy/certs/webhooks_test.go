package main

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"
)

// TestWebhookFiles: the set holds what a kube-apiserver needs to use the
// stages as its webhooks: kubeconfigs naming each stage's review URL,
// trusting ca.crt and presenting a certificate webhook-client-ca.crt
// signed for the webhook caller; the admission credentials keyed by the
// admission stage's host:port; and the configuration files naming them.
func TestWebhookFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	o := options{dir: dir, namespace: "ns1", internalURL: "https://aggregator:6443", publicURL: "https://127.0.0.1:6443",
		authnURL: "https://127.0.0.1:7446", authzURL: "https://127.0.0.1:7445", admissionURL: "https://127.0.0.1:7447"}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	clientCA := x509.NewCertPool()
	if !clientCA.AppendCertsFromPEM(read(t, dir, webhookClientCA)) {
		t.Fatal("webhook-client-ca.crt holds no certificate")
	}
	caData := base64.StdEncoding.EncodeToString(read(t, dir, "ca.crt"))
	for file, server := range map[string]string{
		authnWebhookConfig: "https://127.0.0.1:7446/apis/authentication.k8s.io/v1/tokenreviews",
		authzWebhookConfig: "https://127.0.0.1:7445/apis/authorization.k8s.io/v1/subjectaccessreviews",
	} {
		kc := string(read(t, dir, file))
		if !strings.Contains(kc, "server: "+server+"\n") || !strings.Contains(kc, "certificate-authority-data: "+caData) {
			t.Errorf("%s does not name %s trusting ca.crt:\n%s", file, server, kc)
		}
		checkCaller(t, kc, clientCA)
	}
	adm := string(read(t, dir, admissionCredConfig))
	if !strings.Contains(adm, `name: "127.0.0.1:7447"`) {
		t.Errorf("%s is not keyed by admission's host:port:\n%s", admissionCredConfig, adm)
	}
	checkCaller(t, adm, clientCA)
	abs, _ := filepath.Abs(dir)
	if s := string(read(t, dir, authorizationConfig)); !strings.Contains(s, filepath.Join(abs, authzWebhookConfig)) || !strings.Contains(s, "failurePolicy: Deny") {
		t.Errorf("%s:\n%s", authorizationConfig, s)
	}
	if s := string(read(t, dir, admissionConfig)); strings.Count(s, filepath.Join(abs, admissionCredConfig)) != 2 {
		t.Errorf("%s:\n%s", admissionConfig, s)
	}
	hooks := string(read(t, dir, admissionWebhooks))
	for _, want := range []string{"url: https://127.0.0.1:7447/admission/v1/mutating", "url: https://127.0.0.1:7447/admission/v1/validating", "caBundle: " + caData} {
		if !strings.Contains(hooks, want) {
			t.Errorf("%s lacks %q", admissionWebhooks, want)
		}
	}
	if !strings.Contains(string(read(t, dir, webhookCallerRBAC)), "name: "+webhookCaller) {
		t.Errorf("%s does not bind %s", webhookCallerRBAC, webhookCaller)
	}
}

// checkCaller: the kubeconfig's client certificate is the webhook caller's,
// signed by the webhook client CA, for client auth.
func checkCaller(t *testing.T, kc string, roots *x509.CertPool) {
	t.Helper()
	for line := range strings.Lines(kc) {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "client-certificate-data: ")
		if !ok {
			continue
		}
		der, _ := base64.StdEncoding.DecodeString(v)
		block, _ := pem.Decode(der)
		if block == nil {
			t.Fatal("client-certificate-data is not PEM")
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil || cert.Subject.CommonName != webhookCaller {
			t.Fatalf("caller certificate %q: %v", cert.Subject.CommonName, err)
		}
		return
	}
	t.Fatalf("no client certificate in\n%s", kc)
}
