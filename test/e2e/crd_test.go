package e2e

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const crontabCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [cronSpec]
            x-kubernetes-validations:
            - rule: self.replicas <= self.maxReplicas
              message: replicas must not exceed maxReplicas
            properties:
              cronSpec: {type: string, pattern: '^(\S+ ){4}\S+$'}
              image: {type: string}
              replicas: {type: integer, minimum: 0, default: 1}
              maxReplicas: {type: integer, default: 10}
          status:
            type: object
            properties:
              replicas: {type: integer}
              phase: {type: string}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Phase, type: string, jsonPath: .status.phase}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
`

const crontab = `
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly, namespace: default}
spec: {cronSpec: "0 3 * * *", image: backup:1}
`

var crontabs = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}

// TestCustomResourceDefinitions installs a CRD with kubectl through the
// whole stack and uses its kind as a user would: established within
// moments, valid objects stored with their defaults, invalid ones refused
// with the field named and nothing stored, watched, printed with the
// CRD's columns, status patched through its subresource, scaled, and gone
// with the CRD.
func TestCustomResourceDefinitions(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{})
	admin := s.Aggregator.Kubeconfig(t, "admin", s.AdminToken)
	kubectl := func(stdin string, args ...string) (string, error) {
		return s.Aggregator.Kubectl(t, admin, stdin, args...)
	}

	start := time.Now()
	apply(t, s, admin, crontabCRD)
	if out, err := kubectl("", "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com"); err != nil {
		t.Fatalf("kubectl wait Established: %v\n%s", err, out)
	}
	t.Logf("Established %v after kubectl apply", time.Since(start))
	// Sooner than the aggregator's 5s discovery cache would allow: the
	// CRD's APIService tells it a group arrived.
	polltest.Until(t, 3*time.Second, "crontabs in kubectl api-resources", func() bool {
		out, err := kubectl("", "api-resources", "--api-group=stable.example.com")
		return err == nil && strings.Contains(out, "crontabs") && strings.Contains(out, "ct")
	})
	t.Logf("in discovery through the aggregator %v after kubectl apply", time.Since(start))

	// kubectl explain reads the CRD's schema from the OpenAPI documents.
	polltest.Until(t, 10*time.Second, "kubectl explain crontab.spec", func() bool {
		out, err := kubectl("", "explain", "crontab.spec")
		return err == nil && strings.Contains(out, "cronSpec") && strings.Contains(out, "maxReplicas")
	})

	dyn := dynamic.NewForConfigOrDie(s.RESTConfig(t, s.AdminToken))
	w, err := dyn.Resource(crontabs).Namespace("default").Watch(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	// A valid object, defaulted from the schema.
	apply(t, s, admin, crontab)
	if got, _ := kubectl("", "get", "ct", "nightly", "-o", "jsonpath={.spec.replicas}/{.spec.maxReplicas}"); got != "1/10" {
		t.Errorf("defaults: replicas/maxReplicas = %q, want 1/10", got)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added {
			t.Errorf("first watch event %s, want ADDED", ev.Type)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event for the new CronTab")
	}

	// Invalid objects: a clear error naming the field, nothing stored.
	for name, c := range map[string]struct{ spec, want string }{
		"bad-pattern": {`{cronSpec: "every day"}`, `spec.cronSpec: Invalid value: "every day": spec.cronSpec in body should match`},
		"bad-type":    {`{cronSpec: "* * * * *", replicas: "two"}`, `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer`},
		"bad-rule":    {`{cronSpec: "* * * * *", replicas: 5, maxReplicas: 2}`, `spec: Invalid value: replicas must not exceed maxReplicas`},
		"bad-missing": {`{image: x}`, `spec.cronSpec: Required value`},
	} {
		manifest := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: " + name + ", namespace: default}\nspec: " + c.spec + "\n"
		out, err := kubectl(manifest, "create", "-f", "-")
		if err == nil || !strings.Contains(out, c.want) || !strings.Contains(out, "is invalid") {
			t.Errorf("%s: kubectl create: %v\n%s\nwant an Invalid error containing %q", name, err, out, c.want)
		}
		if out, err := kubectl("", "get", "crontab", name); err == nil || !strings.Contains(out, "NotFound") {
			t.Errorf("%s was stored: %v\n%s", name, err, out)
		}
	}

	// Status through its subresource only, printed in the CRD's columns.
	if out, err := kubectl("", "patch", "crontab", "nightly", "--subresource=status", "--type=merge",
		"-p", `{"status":{"phase":"Running","replicas":1}}`); err != nil {
		t.Fatalf("kubectl patch --subresource=status: %v\n%s", err, out)
	}
	if out, err := kubectl("", "patch", "crontab", "nightly", "--type=merge", "-p", `{"status":{"phase":"Ignored"}}`); err != nil {
		t.Fatalf("kubectl patch: %v\n%s", err, out)
	}
	out, err := kubectl("", "get", "crontabs")
	if err != nil {
		t.Fatalf("kubectl get crontabs: %v\n%s", err, out)
	}
	rows := lines(out)
	if len(rows) != 2 || strings.Join(strings.Fields(rows[0]), " ") != "NAME SPEC REPLICAS PHASE" ||
		strings.Join(strings.Fields(rows[1]), " ") != "nightly 0 3 * * * 1 Running" {
		t.Errorf("kubectl get crontabs printed\n%s\nwant the CRD's columns and status.phase Running", out)
	}

	// Scaled through the scale subresource.
	if out, err := kubectl("", "scale", "crontab", "nightly", "--replicas=3"); err != nil || !strings.Contains(out, "scaled") {
		t.Fatalf("kubectl scale: %v\n%s", err, out)
	}
	if got, _ := kubectl("", "get", "crontab", "nightly", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("spec.replicas = %q after kubectl scale --replicas=3", got)
	}
	// Strategic merge patch is not for custom resources: 415.
	if out, err := kubectl("", "patch", "crontab", "nightly", "--type=strategic", "-p", `{"spec":{"image":"y"}}`); err == nil ||
		!strings.Contains(out, "UnsupportedMediaType") && !strings.Contains(out, "unknown format") {
		t.Errorf("strategic merge patch of a custom resource: %v\n%s, want 415", err, out)
	}

	// Deleting the CRD takes its objects with it.
	if out, err := kubectl("", "delete", "crd", "crontabs.stable.example.com", "--timeout=30s"); err != nil {
		t.Fatalf("kubectl delete crd: %v\n%s", err, out)
	}
	sawDelete := false
	for !sawDelete {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the watch ended before the CronTab's deletion")
			}
			sawDelete = ev.Type == watch.Deleted
		case <-time.After(10 * time.Second):
			t.Fatal("no DELETED event for the CronTab when its CRD was deleted")
		}
	}
	if out, err := kubectl("", "get", "crd", "crontabs.stable.example.com"); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("the CRD is still there: %v\n%s", err, out)
	}
	if keys := s.Etcd.Snapshot(t, "/registry/stable.example.com/"); len(keys) != 0 {
		t.Errorf("etcd still holds %v", keys)
	}
}
