package kubetype

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A core/v1 Event reads as an events.k8s.io/v1 Event with kube's field
// mapping, and back again unchanged.
func TestConvertEventsAcrossGroups(t *testing.T) {
	core := object(t, `
apiVersion: v1
kind: Event
metadata: {name: e, namespace: ns}
involvedObject: {kind: Pod, name: p, namespace: ns}
reason: Started
message: started the container
source: {component: kubelet}
type: Normal
`).Object
	ev, err := Convert(core, "events.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: ev}
	if u.GetAPIVersion() != "events.k8s.io/v1" || u.GetKind() != "Event" {
		t.Fatalf("converted to %s %s", u.GetAPIVersion(), u.GetKind())
	}
	if n, _, _ := unstructured.NestedString(ev, "note"); n != "started the container" {
		t.Errorf("message is not the note: %v", ev)
	}
	if n, _, _ := unstructured.NestedString(ev, "regarding", "name"); n != "p" {
		t.Errorf("involvedObject is not regarding: %v", ev)
	}
	back, err := Convert(ev, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if m, _, _ := unstructured.NestedString(back, "message"); m != "started the container" {
		t.Errorf("round trip lost the message: %v", back)
	}
}

// An autoscaling/v2 HPA reads as autoscaling/v1 with its CPU target.
func TestConvertHPAVersions(t *testing.T) {
	v2 := object(t, `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h, namespace: ns}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
`).Object
	v1, err := Convert(v2, "autoscaling/v1")
	if err != nil {
		t.Fatal(err)
	}
	if p, _, _ := unstructured.NestedInt64(v1, "spec", "targetCPUUtilizationPercentage"); p != 60 {
		t.Errorf("v1 target = %d, want 60: %v", p, v1)
	}
}
