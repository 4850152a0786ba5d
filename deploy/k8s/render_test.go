// Package k8s holds the tests of the Kubernetes manifests beside them:
// they are rendered with the real kubectl, as a user applies them.
package k8s

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// scheme knows every kind the manifests may hold; any other kind is an
// error, as an unknown field is.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, autoscalingv2.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// renderTree copies deploy/k8s into a temporary directory, runs the
// documented certificate step there (what `make certs` runs), and returns
// the copy's root.
func renderTree(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on the PATH: cannot render the manifests with kustomize")
	}
	root := filepath.Join(t.TempDir(), "k8s")
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == filepath.Join("base", "certs") {
				return filepath.SkipDir // a developer's own, never the test's
			}
			return os.MkdirAll(filepath.Join(root, path), 0o755)
		}
		if !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, path), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	certs := filepath.Join(t.TempDir(), "kubesplit-certs")
	run(t, "", "go", "build", "-o", certs, "../certs")
	run(t, "", certs, "--dir", filepath.Join(root, "base", "certs"), "--namespace", "kubesplit")
	return root
}

func run(t *testing.T, stdin string, name string, args ...string) []byte {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// render runs `kubectl kustomize dir` and decodes every object strictly:
// an unknown or duplicated field, or a kind outside the scheme, fails.
func render(t *testing.T, dir string) []runtime.Object {
	t.Helper()
	out := run(t, "", "kubectl", "kustomize", dir)
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(out)))
	var objs []runtime.Object
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := strict.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("decoding a rendered object strictly: %v\n%s", err, doc)
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		t.Fatalf("kubectl kustomize %s rendered nothing", dir)
	}
	return objs
}
