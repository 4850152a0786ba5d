// Command kubesplit-certs writes what a deployed kubesplit needs to trust
// its own parts: a CA and a serving certificate for every service (TLS on
// every hop), the aggregator's identity key pair, the registry's admission
// key pair, the service-account signing key, the static tokens of the
// admin and of the services that reach the API, and their kubeconfigs;
// and what a kube-apiserver needs to use kubesplit's authn, authz and
// admission as its webhooks (see writeWebhooks).
//
// It runs once per deployment: as the compose stack's init container,
// writing into a volume, and from `make certs` for the Kubernetes
// manifests' Secrets. If --dir already holds a complete set it changes
// nothing, so a restarted init step keeps the credentials every service
// already trusts.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "certs", "directory to write into (created if missing)")
	flag.StringVar(&o.namespace, "namespace", "kubesplit", "Kubernetes namespace the services' certificates also name (<svc>.<namespace>.svc)")
	flag.StringVar(&o.internalURL, "internal-url", "https://aggregator:6443", "the aggregator's URL as the services reach it (their kubeconfigs)")
	flag.StringVar(&o.publicURL, "public-url", "https://127.0.0.1:6443", "the aggregator's URL as users reach it (admin.kubeconfig)")
	flag.StringVar(&o.authnURL, "authn-url", defaultAuthnURL, "authn's URL as a kube-apiserver reaches it (its webhook kubeconfigs)")
	flag.StringVar(&o.authzURL, "authz-url", defaultAuthzURL, "authz's URL as a kube-apiserver reaches it")
	flag.StringVar(&o.admissionURL, "admission-url", defaultAdmissionURL, "admission's URL as a kube-apiserver reaches it")
	flag.Var(&o.publicNames, "aggregator-name", "extra DNS name or IP of the aggregator's certificate (repeatable); localhost and 127.0.0.1 are always in it")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "kubesplit-certs:", err)
		os.Exit(1)
	}
}

type options struct {
	dir, namespace, internalURL, publicURL string
	// The stages' URLs as a kube-apiserver using them as its webhooks
	// reaches them.
	authnURL, authzURL, admissionURL string
	publicNames                      names
}

// withDefaults fills in the stages' URLs left empty.
func (o options) withDefaults() options {
	for _, f := range []struct {
		v   *string
		def string
	}{{&o.authnURL, defaultAuthnURL}, {&o.authzURL, defaultAuthzURL}, {&o.admissionURL, defaultAdmissionURL}} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return o
}

// names is a repeatable flag.
type names []string

func (n *names) String() string     { return fmt.Sprint([]string(*n)) }
func (n *names) Set(v string) error { *n = append(*n, v); return nil }

// The stages' URLs in the compose stack, the defaults of their flags.
const (
	defaultAuthnURL     = "https://authn:6446"
	defaultAuthzURL     = "https://authz:6445"
	defaultAdmissionURL = "https://admission:6447"
)

func run(o options) error {
	o = o.withDefaults()
	if done(o.dir) {
		fmt.Println("kubesplit-certs:", o.dir, "already holds a complete set; nothing changed")
		return nil
	}
	if err := privateDir(o.dir); err != nil {
		return err
	}
	w := &writer{dir: o.dir}
	ca, err := newCA("kubesplit-ca")
	if err != nil {
		return err
	}
	if err := writeServing(w, ca, o); err != nil {
		return err
	}
	if err := writeFrontProxy(w); err != nil {
		return err
	}
	if err := writeKeys(w); err != nil {
		return err
	}
	if err := writeCredentials(w, ca, o); err != nil {
		return err
	}
	if err := writeWebhooks(w, ca, o); err != nil {
		return err
	}
	// The CA's certificate is written last: its presence is what done
	// checks, so an interrupted run is redone from scratch.
	w.file("ca.key", ca.keyPEM, 0o600)
	w.file(doneFile, ca.certPEM, 0o644)
	if w.err == nil {
		fmt.Println("kubesplit-certs: wrote", o.dir)
	}
	return w.err
}
