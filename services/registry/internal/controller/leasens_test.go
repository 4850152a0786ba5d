package controller

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/controllertest"
)

// The lease namespace is created when missing.
func TestEnsureNamespace(t *testing.T) {
	client := fake.NewClientset()
	ensureNamespace(t.Context(), client.CoreV1(), "kube-system", time.Millisecond, controllertest.Log())
	if _, err := client.CoreV1().Namespaces().Get(t.Context(), "kube-system", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	// And an existing one is left alone.
	ensureNamespace(t.Context(), client.CoreV1(), "kube-system", time.Millisecond, controllertest.Log())
}
