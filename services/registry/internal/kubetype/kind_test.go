package kubetype

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"sigs.k8s.io/yaml"
)

func deploymentKind() *Kind {
	return New(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, deployment.Strategy,
		map[string]rest.RESTUpdateStrategy{"status": deployment.StatusStrategy})
}

func object(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const web = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
status: {replicas: 7}
`

func ctx() context.Context {
	return WithRequest(context.Background(), Request{Verb: "create", Group: "apps", Version: "v1", Resource: "deployments", Namespace: "default", User: "alice"})
}

func TestCreateIsKubes(t *testing.T) {
	k := deploymentKind()
	u := object(t, web)
	if err := k.PrepareForCreate(ctx(), u); err != nil {
		t.Fatal(err)
	}
	if g := u.GetGeneration(); g != 1 {
		t.Errorf("generation %d, want 1", g)
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "status", "replicas"); r != 0 {
		t.Errorf("status kept on create: %v", u.Object["status"])
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); r != 1 {
		t.Errorf("spec.replicas not defaulted to 1: %v", r)
	}
	if p, _, _ := unstructured.NestedString(u.Object, "spec", "template", "spec", "containers", "0", "imagePullPolicy"); p != "" {
		t.Log(p)
	}
	errs, _, err := k.Validate(ctx(), "", u, nil)
	if err != nil || len(errs) > 0 {
		t.Fatalf("valid deployment refused: %v %v", err, errs)
	}
}

func TestInvalidDeploymentGetsKubesErrors(t *testing.T) {
	k := deploymentKind()
	u := object(t, strings.Replace(web, "app: web}}\n    spec", "app: other}}\n    spec", 1))
	if err := k.PrepareForCreate(ctx(), u); err != nil {
		t.Fatal(err)
	}
	errs, _, err := k.Validate(ctx(), "", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), "spec.template.metadata.labels") {
		t.Fatalf("want kube's selector mismatch error, got %v", errs)
	}
}

func TestSpecChangeBumpsGenerationStatusDoesNot(t *testing.T) {
	k := deploymentKind()
	old := object(t, web)
	_ = k.PrepareForCreate(ctx(), old)
	next := old.DeepCopy()
	_ = unstructured.SetNestedField(next.Object, int64(3), "spec", "replicas")
	if err := k.PrepareForUpdate(ctx(), "", next, old); err != nil {
		t.Fatal(err)
	}
	if g := next.GetGeneration(); g != 2 {
		t.Errorf("generation %d after spec change, want 2", g)
	}
	st := old.DeepCopy()
	_ = unstructured.SetNestedField(st.Object, int64(5), "status", "replicas")
	_ = unstructured.SetNestedField(st.Object, int64(9), "spec", "replicas")
	st.SetAnnotations(map[string]string{"a": "b"})
	if err := k.PrepareForUpdate(ctx(), "status", st, old); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(st.Object, "spec", "replicas"); r != 1 {
		t.Errorf("status write changed spec.replicas to %d", r)
	}
	if r, _, _ := unstructured.NestedInt64(st.Object, "status", "replicas"); r != 5 {
		t.Errorf("status write lost status: %d", r)
	}
	if st.GetAnnotations()["a"] != "b" {
		t.Errorf("status write dropped metadata: %v", st.GetAnnotations())
	}
}

func TestTableIsKubesPrinter(t *testing.T) {
	k := deploymentKind()
	cols := k.TableColumns()
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "Name,Ready,Up-to-date,Available,Age,Containers,Images,Selector" {
		t.Fatalf("columns %s", got)
	}
	u := object(t, web)
	cells := k.TableCells(u)
	if len(cells) != len(cols) || cells[0] != "web" || cells[6] != "nginx" {
		t.Fatalf("cells %v", cells)
	}
}
