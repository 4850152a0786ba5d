package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// composeStack is deploy/compose/docker-compose.yml brought up under a
// project name of its own, from images built for the test and tagged for
// it alone, so that nothing of anyone else's is touched or removed.
type composeStack struct {
	root       string   // the repository
	compose    []string // docker-compose, or docker compose
	project    string
	env        []string
	images     []string // built for this test, removed at its end
	kubeconfig string   // the init step's admin.kubeconfig, pointed at the published port
	rest       *rest.Config
	admin      kubernetes.Interface
}

// composeCommand is docker-compose v1 if installed, else docker compose
// v2, or a reason to skip when the Docker engine cannot be used.
func composeCommand() ([]string, string) {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(c, "docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("no usable Docker engine (docker info: %v %s)", err, bytes.TrimSpace(out))
	}
	if _, err := exec.LookPath("docker-compose"); err == nil {
		return []string{"docker-compose"}, ""
	}
	if exec.CommandContext(c, "docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}, ""
	}
	return nil, "neither docker-compose nor docker compose is installed"
}

// startCompose builds the images and brings the stack up, removing
// everything it made (containers, network, volumes, images) when the test
// ends, and checking that nothing of the project is left.
func startCompose(t *testing.T) *composeStack {
	t.Helper()
	if os.Getenv("KUBESPLIT_COMPOSE") == "skip" {
		t.Skip("KUBESPLIT_COMPOSE=skip")
	}
	compose, why := composeCommand()
	if why != "" {
		t.Skip("the compose stack test needs Docker: " + why)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	id := randomSuffix(t)
	s := &composeStack{root: root, compose: compose, project: "kse2e" + id}
	tag := "e2e-" + id
	s.env = append(os.Environ(),
		"KUBESPLIT_IMAGE_TAG="+tag, "ETCD_IMAGE=kubesplit/etcd:"+tag,
		"KUBESPLIT_PUBLISH=127.0.0.1:", // a free host port, found with `port`
		"COMPOSE_PROJECT_NAME="+s.project)
	for _, name := range []string{"registry", "aggregator", "authn", "authz", "admission", "certs", "etcd"} {
		s.images = append(s.images, "kubesplit/"+name+":"+tag)
	}
	t.Cleanup(func() { s.remove(t) })
	s.buildImages(t, tag)
	start := time.Now()
	s.must(t, "up", "-d")
	s.connect(t)
	t.Logf("compose stack ready in %v", time.Since(start).Round(time.Second))
	return s
}

func randomSuffix(t *testing.T) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// buildImages runs deploy/images/build.sh (what `make images` runs) on the
// binaries of $KUBESPLIT_BIN, or on ones built here, with kubesplit-certs.
func (s *composeStack) buildImages(t *testing.T, tag string) {
	t.Helper()
	bin := t.TempDir()
	for _, name := range []string{"registry", "aggregator", "authn", "authz", "admission"} {
		if dir := os.Getenv("KUBESPLIT_BIN"); dir != "" {
			if err := os.Symlink(filepath.Join(dir, name), filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		s.goBuild(t, filepath.Join(bin, name), "./services/"+name)
	}
	s.goBuild(t, filepath.Join(bin, "kubesplit-certs"), "./deploy/certs")
	start := time.Now()
	cmd := exec.Command(filepath.Join(s.root, "deploy/images/build.sh"))
	cmd.Env = append(s.env, "BIN="+bin, "IMAGE_TAG="+tag, "IMAGE_CONTEXT="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the images: %v\n%s", err, out)
	}
	t.Logf("images built in %v", time.Since(start).Round(time.Second))
}

func (s *composeStack) goBuild(t *testing.T, out, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir, cmd.Env = s.root, append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// run runs one compose command on the project, bounded in time.
func (s *composeStack) run(args ...string) (string, error) {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	full := append(append(s.compose[1:len(s.compose):len(s.compose)],
		"-f", filepath.Join(s.root, "deploy/compose/docker-compose.yml"), "-p", s.project), args...)
	cmd := exec.CommandContext(c, s.compose[0], full...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s *composeStack) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := s.run(args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", strings.Join(s.compose, " "), strings.Join(args, " "), err, out)
	}
	return out
}

// containers are the ids of a service's running containers.
func (s *composeStack) containers(t *testing.T, service string) []string {
	t.Helper()
	return strings.Fields(s.must(t, "ps", "-q", service))
}

// connect copies the admin kubeconfig out of the certs volume, points it
// at the published port and waits until the stack answers through it.
func (s *composeStack) connect(t *testing.T) {
	t.Helper()
	agg := s.containers(t, "aggregator")
	if len(agg) == 0 {
		t.Fatal("no aggregator container")
	}
	s.kubeconfig = filepath.Join(t.TempDir(), "admin.kubeconfig")
	docker(t, "cp", agg[0]+":/certs/admin.kubeconfig", s.kubeconfig)
	addr := strings.TrimSpace(s.must(t, "port", "aggregator", "6443"))
	cfg, err := clientcmd.BuildConfigFromFlags("https://"+addr, s.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS = -1 // no client-side throttling: the tests measure the stack
	s.rest = cfg
	s.admin = kubernetes.NewForConfigOrDie(cfg)
	ok := polltest.Within(2*time.Minute, func() bool {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := s.admin.CoreV1().ServiceAccounts("default").Get(c, "default", metav1.GetOptions{})
		return err == nil
	})
	if !ok {
		out, _ := s.run("logs", "--no-color", "--tail", "30")
		t.Fatalf("the compose stack was not ready within 2 minutes; logs:\n%s", out)
	}
}

// kubectl runs the kubectl on the PATH against the stack.
func (s *composeStack) kubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	full := append([]string{"--kubeconfig", s.kubeconfig, "--server", s.rest.Host}, args...)
	out, err := exec.CommandContext(c, "kubectl", full...).CombinedOutput()
	return string(out), err
}

// remove takes the project down with its volumes, removes the images
// built for it, and fails the test if a container, network or volume of
// the project is left.
func (s *composeStack) remove(t *testing.T) {
	start := time.Now()
	if out, err := s.run("down", "-v", "--remove-orphans", "--timeout", "5"); err != nil {
		t.Errorf("compose down: %v\n%s", err, out)
	}
	_ = exec.Command("docker", append([]string{"rmi"}, s.images...)...).Run()
	label := "label=com.docker.compose.project=" + s.project
	for _, kind := range [][]string{{"ps", "-a"}, {"network", "ls"}, {"volume", "ls"}} {
		out, err := exec.Command("docker", append(kind, "-q", "--filter", label)...).CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("docker %s after compose down: %v %s", strings.Join(kind, " "), err, out)
		}
	}
	t.Logf("compose stack removed in %v", time.Since(start).Round(time.Second))
}

// docker runs the docker CLI, failing the test on an error.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(c, "docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
