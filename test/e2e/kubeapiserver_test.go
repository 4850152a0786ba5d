package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubeAPIServerStarts checks the reference the comparison tests need: a
// real kube-apiserver started beside kubesplit serves client-go and kubectl
// as its admin.
func TestKubeAPIServerStarts(t *testing.T) {
	k := framework.StartKubeAPIServer(t)
	cms := k.Client(t).CoreV1().ConfigMaps("default")
	createConfigMap(t, cms, "kube-e2e", map[string]string{"k": "v"})
	got, err := cms.Get(ctx(t), "kube-e2e", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["k"] != "v" {
		t.Errorf("read back data %v, want k=v", got.Data)
	}
	v, err := k.Client(t).Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != framework.KubeVersion {
		t.Errorf("kube-apiserver is %s, want %s", v.GitVersion, framework.KubeVersion)
	}
	out, err := k.Kubectl(t, "", "get", "configmaps", "-A")
	if err != nil {
		t.Fatalf("kubectl get configmaps -A: %v\n%s", err, out)
	}
	listed := false
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "default" && f[1] == "kube-e2e" {
			listed = true
		}
	}
	if !listed {
		t.Errorf("kubectl get configmaps -A does not list default/kube-e2e:\n%s", out)
	}
}
