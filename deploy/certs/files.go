package main

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubesplit/kubesplit/pkg/identity"
)

// doneFile is written last; its presence means the set is complete.
const doneFile = "ca.crt"

// services have a serving certificate each, <name>.crt and <name>.key.
var services = []string{"aggregator", "registry", "authn", "authz", "admission", "etcd"}

// apiClients reach the API through the aggregator with a token of their
// own in system:masters (allowed without asking authz, so start-up cannot
// deadlock), as hack/lib/stack.sh gives them: authn, authz and admission
// watch it, and every backend asks it who may read its /metrics and
// /debug/pprof (TokenReview, SubjectAccessReview).
var apiClients = []string{"registry", "authn", "authz", "admission"}

// done reports whether dir holds a complete set. One written by an older
// kubesplit-certs may lack a newer API client's kubeconfig (the
// registry's): then the whole set is written anew, so that every
// credential in it comes from one CA and one token file.
func done(dir string) bool {
	for _, f := range append(append([]string{doneFile}, kubeconfigFiles()...), webhookFiles()...) {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

func kubeconfigFiles() []string {
	var files []string
	for _, user := range apiClients {
		files = append(files, user+".kubeconfig")
	}
	return files
}

// privateDir makes dir (0700) or, when it exists, takes write access to
// it from everyone but its owner: whoever may write there could swap a
// key or a CA for one of their own before a service loads it. Read
// access stays as it is, for services that run as another user of the
// same group.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return os.Chmod(dir, perm&^0o022)
	}
	return nil
}

// writer writes files into dir, keeping the first error.
type writer struct {
	dir string
	err error
}

func (w *writer) file(name string, data []byte, perm os.FileMode) {
	if w.err != nil {
		return
	}
	path := filepath.Join(w.dir, name)
	if w.err = os.WriteFile(path, data, perm); w.err == nil {
		w.err = os.Chmod(path, perm)
	}
}

// hosts are the names a service is reached by: its compose service name,
// its Kubernetes Service names, and loopback (its own health check).
func hosts(svc, ns string) []string {
	h := []string{svc, svc + "." + ns, svc + "." + ns + ".svc", svc + "." + ns + ".svc.cluster.local", "localhost", "127.0.0.1", "::1"}
	if svc == "etcd" {
		// Members by compose name and by StatefulSet pod name.
		h = append(h, "etcd1", "etcd2", "etcd3", "*.etcd", "*.etcd."+ns+".svc", "*.etcd."+ns+".svc.cluster.local")
	}
	return h
}

func writeServing(w *writer, ca *authority, o options) error {
	for _, svc := range services {
		h := hosts(svc, o.namespace)
		if svc == "aggregator" {
			h = append(h, o.publicNames...)
		}
		cert, key, err := ca.issue("kubesplit-"+svc, nil, h)
		if err != nil {
			return err
		}
		w.file(svc+".crt", cert, 0o644)
		w.file(svc+".key", key, 0o600)
	}
	return w.err
}

// writeFrontProxy writes the client certificate the aggregator shows to
// APIService backends and the CA extension servers check it against.
func writeFrontProxy(w *writer) error {
	ca, err := newCA("kubesplit-front-proxy-ca")
	if err != nil {
		return err
	}
	cert, key, err := ca.issue("front-proxy-client", nil, nil)
	if err != nil {
		return err
	}
	w.file("front-proxy-ca.crt", ca.certPEM, 0o644)
	w.file("front-proxy-client.crt", cert, 0o644)
	w.file("front-proxy-client.key", key, 0o600)
	return w.err
}

// writeKeys writes the signing keys: the aggregator's identity assertions
// (every backend trusts identity.pub), the registry's admission reviews
// (admission trusts registry-admission.pub), and service-account tokens
// (every authn replica must sign and verify with the same key; sa.pub is
// its public half).
func writeKeys(w *writer) error {
	pairs := [][2]string{{"identity.key", "identity.pub"}, {"registry-admission.key", "registry-admission.pub"}}
	for _, p := range pairs {
		priv, pub := filepath.Join(w.dir, p[0]), filepath.Join(w.dir, p[1])
		// Left over from an interrupted run: GenerateKeyFiles never overwrites.
		for _, f := range p {
			if err := os.Remove(filepath.Join(w.dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if err := identity.GenerateKeyFiles(priv, pub); err != nil {
			return err
		}
	}
	saKey, sa, err := newKey()
	if err != nil {
		return err
	}
	// kube-apiserver verifies tokens with public keys only
	// (--service-account-key-file), so the set carries sa.pub beside sa.key.
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}
	w.file("sa.key", sa, 0o600)
	w.file("sa.pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}), 0o644)
	return w.err
}

// writeCredentials writes tokens.csv (the admin and the API clients) and a
// kubeconfig for each: the clients' reach the aggregator at the internal
// URL trusting ca.crt beside them; admin.kubeconfig carries the CA inline
// so that it works wherever it is copied.
func writeCredentials(w *writer, ca *authority, o options) error {
	var csv strings.Builder
	tokens := map[string]string{}
	for _, user := range append([]string{"admin"}, apiClients...) {
		tok, err := token()
		if err != nil {
			return err
		}
		name := user
		if user != "admin" {
			name = "system:kubesplit:" + user
		}
		tokens[user] = tok
		fmt.Fprintf(&csv, "%s,%s,%s,\"system:masters\"\n", tok, name, user)
	}
	w.file("tokens.csv", []byte(csv.String()), 0o600)
	for _, user := range apiClients {
		w.file(user+".kubeconfig", kubeconfig(o.internalURL, "certificate-authority: ca.crt", tokens[user]), 0o600)
	}
	caData := "certificate-authority-data: " + base64.StdEncoding.EncodeToString(ca.certPEM)
	w.file("admin.kubeconfig", kubeconfig(o.publicURL, caData, tokens["admin"]), 0o600)
	return w.err
}

func kubeconfig(server, caLine, token string) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: kubesplit
  cluster:
    server: %s
    %s
users:
- name: user
  user:
    token: %s
contexts:
- name: kubesplit
  context: {cluster: kubesplit, user: user}
current-context: kubesplit
`, server, caLine, token)
}

func token() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
