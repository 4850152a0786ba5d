package authz

import (
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

func TestFromRequestInfo(t *testing.T) {
	user := authenticationv1.UserInfo{Username: "alice"}
	cases := []struct {
		method, path string
		want         Attributes
	}{
		{"GET", "/api/v1/namespaces/ns/pods/p/log", Attributes{User: user, ResourceRequest: true, Verb: "get",
			Namespace: "ns", APIVersion: "v1", Resource: "pods", Subresource: "log", Name: "p"}},
		{"POST", "/apis/apps/v1/namespaces/ns/deployments", Attributes{User: user, ResourceRequest: true, Verb: "create",
			Namespace: "ns", APIGroup: "apps", APIVersion: "v1", Resource: "deployments"}},
		{"DELETE", "/api/v1/nodes/n1", Attributes{User: user, ResourceRequest: true, Verb: "delete",
			APIVersion: "v1", Resource: "nodes", Name: "n1"}},
		{"GET", "/healthz", Attributes{User: user, Verb: "get", Path: "/healthz"}},
		{"GET", "/apis/apps/v1", Attributes{User: user, Verb: "get", Path: "/apis/apps/v1"}},
	}
	for _, c := range cases {
		got := FromRequestInfo(user, requestinfo.Parse(c.method, c.path, ""))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.method, c.path, got, c.want)
		}
	}
	if got := FromRequestInfo(user, nil); got.Verb != "" || got.ResourceRequest {
		t.Errorf("nil info: %+v", got)
	}
}
