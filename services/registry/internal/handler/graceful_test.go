package handler

import (
	"net/http"
	"testing"
)

// A pod on a node is deleted gracefully, as kube does: kept with a
// deletionTimestamp its grace period ahead until a delete with grace 0
// (its kubelet's) removes it. A pod on no node goes at once.
func TestPodsAreDeletedGracefully(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", podsPath, `{"metadata":{"name":"p"},"spec":{"nodeName":"n1","terminationGracePeriodSeconds":45,"containers":[{"name":"c","image":"nginx"}]}}`, http.StatusCreated)
	got := e.mustDo("DELETE", podsPath+"/p", "", http.StatusOK)
	if at(got, "metadata.deletionGracePeriodSeconds") != float64(45) || at(got, "metadata.deletionTimestamp") == nil {
		t.Fatalf("graceful delete answered %v", got["metadata"])
	}
	// A second delete leaves the running grace period alone.
	e.mustDo("DELETE", podsPath+"/p", "", http.StatusOK)
	e.mustDo("GET", podsPath+"/p", "", http.StatusOK)
	// A shorter one moves it.
	got = e.mustDo("DELETE", podsPath+"/p?gracePeriodSeconds=5", "", http.StatusOK)
	if at(got, "metadata.deletionGracePeriodSeconds") != float64(5) {
		t.Fatalf("shortened grace: %v", got["metadata"])
	}
	e.mustDo("DELETE", podsPath+"/p?gracePeriodSeconds=0", "", http.StatusOK)
	e.mustDo("GET", podsPath+"/p", "", http.StatusNotFound)

	newPod(e, "unscheduled")
	e.mustDo("DELETE", podsPath+"/unscheduled", "", http.StatusOK)
	e.mustDo("GET", podsPath+"/unscheduled", "", http.StatusNotFound)
}
