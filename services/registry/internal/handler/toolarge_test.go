package handler

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const leasePath = "/apis/coordination.k8s.io/v1/namespaces/ns/leases"

// status decodes an error body, failing the test unless it is a Status
// with code and reason that speaks of the request, not of gRPC.
func status(t *testing.T, resp *http.Response, data []byte, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(data, &s); err != nil || s.Kind != "Status" {
		t.Fatalf("%d %.300s: not a Status (%v)", resp.StatusCode, data, err)
	}
	if resp.StatusCode != code || s.Code != int32(code) || s.Reason != reason {
		t.Fatalf("%d %s, want %d %s: %.300s", resp.StatusCode, s.Reason, code, reason, s.Message)
	}
	for _, internal := range []string{"rpc error", "desc =", "grpc"} {
		if strings.Contains(s.Message, internal) {
			t.Fatalf("message shows etcd's plumbing (%q): %s", internal, s.Message)
		}
	}
	return s
}

// A ConfigMap with 100,000 labels (1.8 MB as sent) passes kube's
// validation: labels are not bounded in number or total size, only each
// one. With the managed fields that record who set each label it is
// 3.7 MB as stored, more than etcd takes in one request. That is the
// client's doing, so a 413 that says so, not a 500 quoting gRPC.
func TestManyLabelsAreTooLarge(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	b.WriteString(`{"metadata":{"name":"labelled","labels":{`)
	for i := range 100000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"label-%d":"v"`, i)
	}
	b.WriteString(`}}}`)
	before := e.etcdState()
	resp, data := e.do("POST", cmPath, b.String())
	s := status(t, resp, data, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge)
	if !strings.Contains(s.Message, "etcd") || !strings.Contains(s.Message, "bytes") {
		t.Errorf("the message does not say what was too large for what: %s", s.Message)
	}
	e.untouched(before, "a ConfigMap too large for etcd")
	e.mustDo("GET", cmPath+"/labelled", "", http.StatusNotFound)
}

// An object over etcd's request limit (1.5 MiB by default) but under the
// registry's 3 MiB body limit is refused with 413 whether etcd refuses it
// (under gRPC's 2 MiB message limit) or etcd's client does (over it), on
// create and on update, and nothing is stored.
func TestOverEtcdLimitIs413(t *testing.T) {
	e := newEnv(t)
	lease := func(name string, size int, rv string) string {
		return fmt.Sprintf(`{"metadata":{"name":%q,"resourceVersion":%q},"spec":{"holderIdentity":%q}}`, name, rv, strings.Repeat("x", size))
	}
	small := e.mustDo("POST", leasePath, lease("small", 10, ""), http.StatusCreated)
	// A Lease update must name the version it replaces (kube's strategy).
	rv := at(small, "metadata.resourceVersion").(string)
	for _, size := range []int{1600 << 10, 2500 << 10} {
		for _, c := range []struct{ method, path, name string }{
			{"POST", leasePath, "big"},
			{"PUT", leasePath + "/small", "small"},
		} {
			t.Run(fmt.Sprintf("%s %d KiB", c.method, size>>10), func(t *testing.T) {
				before := e.etcdState()
				body := lease(c.name, size, "")
				if c.method == "PUT" {
					body = lease(c.name, size, rv)
				}
				resp, data := e.do(c.method, c.path, body)
				s := status(t, resp, data, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge)
				if !strings.Contains(s.Message, "bytes as stored") {
					t.Errorf("the message does not give the object's size: %s", s.Message)
				}
				e.untouched(before, "an object too large for etcd")
			})
		}
	}
	e.mustDo("GET", leasePath+"/big", "", http.StatusNotFound)
}
