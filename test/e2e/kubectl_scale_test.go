package e2e

import (
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlScale scales a Deployment, which kubectl does through the
// scale subresource (autoscaling/v1 Scale), and reads the new replicas
// back from the Deployment itself.
func TestKubectlScale(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	resources, err := r.Client(t).Discovery().ServerResourcesForGroupVersion("apps/v1")
	if err != nil {
		t.Fatal(err)
	}
	served := false
	for _, res := range resources.APIResources {
		served = served || res.Name == "deployments/scale"
	}
	if !served {
		t.Skip("the registry does not serve deployments/scale (absent from /apis/apps/v1): kubectl scale cannot work yet")
	}
	r.MustKubectl(t, deploymentYAML, "create", "--validate=false", "-f", "-")
	if out := r.MustKubectl(t, "", "scale", "deployment", "web", "--replicas=5"); strings.TrimSpace(out) != "deployment.apps/web scaled" {
		t.Errorf("kubectl scale printed %q", out)
	}
	if got := r.MustKubectl(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"); got != "5" {
		t.Errorf("spec.replicas = %s after scaling to 5", got)
	}
	// --current-replicas is a precondition checked against the Scale.
	if out, err := r.Kubectl(t, "", "scale", "deployment", "web", "--current-replicas=2", "--replicas=1"); err == nil {
		t.Errorf("scale with a wrong --current-replicas succeeded: %s", out)
	}
}
