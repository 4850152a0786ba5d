package plugin

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

func TestForbiddenNames(t *testing.T) {
	attrs := func(obj string, name string) *admission.Attributes {
		return &admission.Attributes{Resource: metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			Name: name, Object: runtime.RawExtension{Raw: []byte(obj)}}
	}
	cases := map[string]struct {
		attrs *admission.Attributes
		want  string
	}{
		"name":         {attrs(`{"metadata":{"name":"d"}}`, ""), `deployments.apps "d" is forbidden: no`},
		"generateName": {attrs(`{"metadata":{"generateName":"d-"}}`, ""), `deployments.apps "d-" is forbidden: no`},
		"request name": {attrs(``, "old"), `deployments.apps "old" is forbidden: no`},
		"unknown":      {attrs(`not json`, ""), `deployments.apps "Unknown" is forbidden: no`},
	}
	for name, c := range cases {
		res := Forbidden(c.attrs, errors.New("no"))
		if res.Allowed || res.Status.Code != http.StatusForbidden || res.Status.Reason != metav1.StatusReasonForbidden || res.Status.Message != c.want {
			t.Errorf("%s: got %+v, want %q", name, res.Status, c.want)
		}
	}
}

func TestPatch(t *testing.T) {
	var p Patch
	if res, err := p.Result(); err != nil || !res.Allowed || res.Patch != nil {
		t.Fatalf("empty patch: %+v, %v", res, err)
	}
	p.Add("/metadata/annotations/"+Pointer("a/b~c"), "v")
	res, err := p.Result()
	if err != nil {
		t.Fatal(err)
	}
	out, err := admission.ApplyPatch([]byte(`{"metadata":{"annotations":{}}}`), res.Patch)
	if err != nil || string(out) != `{"metadata":{"annotations":{"a/b~c":"v"}}}` {
		t.Fatalf("%s, %v", out, err)
	}
}

func TestWaitSynced(t *testing.T) {
	if err := WaitSynced(context.Background(), func() bool { return true }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := WaitSynced(ctx, func() bool { return false }); !errors.Is(err, ErrNotReady) {
		t.Fatalf("err %v", err)
	}
}
