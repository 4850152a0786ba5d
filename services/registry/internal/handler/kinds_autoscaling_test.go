package handler

import (
	"net/http"
	"testing"
)

func init() {
	kindSamples["autoscaling/horizontalpodautoscalers"] = `{"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},` +
		`"minReplicas":1,"maxReplicas":3,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]}}`
}

// One HorizontalPodAutoscaler, written through autoscaling/v1, reads back
// through autoscaling/v2 with kube's conversion of its CPU target, and the
// other way round; both versions list the same objects.
func TestHPAIsOneStorageInTwoVersions(t *testing.T) {
	e := newEnv(t)
	v1, v2 := "/apis/autoscaling/v1/namespaces/ns/horizontalpodautoscalers", "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers"
	e.mustDo("POST", v1, `{"metadata":{"name":"h"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":4,"targetCPUUtilizationPercentage":70}}`, http.StatusCreated)
	got := e.mustDo("GET", v2+"/h", "", http.StatusOK)
	metrics, _ := at(got, "spec.metrics").([]any)
	if got["apiVersion"] != "autoscaling/v2" || len(metrics) != 1 ||
		at(metrics[0].(map[string]any), "resource.target.averageUtilization") != float64(70) {
		t.Fatalf("v1 HPA read through v2: %v", got["spec"])
	}
	put(e, v2+"/h", got, func(o map[string]any) { set(o, float64(6), "spec", "maxReplicas") })
	if back := e.mustDo("GET", v1+"/h", "", http.StatusOK); at(back, "spec.maxReplicas") != float64(6) ||
		at(back, "spec.targetCPUUtilizationPercentage") != float64(70) {
		t.Fatalf("v2 update read through v1: %v", back["spec"])
	}
	list := e.mustDo("GET", v1, "", http.StatusOK)
	if items, _ := list["items"].([]any); len(items) != 1 {
		t.Fatalf("v1 list: %v", list)
	}
}
