package client

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/kubernetes"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: c
  context:
    cluster: c
    user: u
current-context: c
users:
- name: u
  user:
    token: t
`

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRESTConfigDisablesRateLimit(t *testing.T) {
	cfg, err := RESTConfig(writeKubeconfig(t), "json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:1" || cfg.BearerToken != "t" {
		t.Errorf("host/token = %q/%q, want the kubeconfig's", cfg.Host, cfg.BearerToken)
	}
	if cfg.QPS >= 0 || cfg.RateLimiter != nil {
		t.Errorf("QPS = %v, RateLimiter = %v: client-go would throttle", cfg.QPS, cfg.RateLimiter)
	}
	if cfg.ContentType != mediaJSON {
		t.Errorf("ContentType = %q, want %q", cfg.ContentType, mediaJSON)
	}
	// The clientset must accept the config (a positive QPS with no burst
	// would be rejected) and build no limiter of its own.
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	if rl := cs.CoreV1().RESTClient().GetRateLimiter(); rl != nil {
		t.Errorf("core client has rate limiter %T, want none", rl)
	}
}

func TestRESTConfigProtobuf(t *testing.T) {
	cfg, err := RESTConfig(writeKubeconfig(t), "protobuf")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ContentType != mediaProtobuf || cfg.AcceptContentTypes != mediaProtobuf+","+mediaJSON {
		t.Errorf("content/accept = %q/%q, want protobuf with JSON fallback", cfg.ContentType, cfg.AcceptContentTypes)
	}
}

func TestRESTConfigErrors(t *testing.T) {
	if _, err := RESTConfig(filepath.Join(t.TempDir(), "missing"), "json"); err == nil {
		t.Error("missing kubeconfig: want an error")
	}
	if _, err := RESTConfig(writeKubeconfig(t), "xml"); err == nil {
		t.Error("content type xml: want an error")
	}
}
