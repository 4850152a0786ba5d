package openapi

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestOperationID(t *testing.T) {
	cases := []struct {
		verb string
		gv   schema.GroupVersion
		rest string
		want string
	}{
		{"read", schema.GroupVersion{Version: "v1"}, "NamespacedPod", "readCoreV1NamespacedPod"},
		{"patch", schema.GroupVersion{Version: "v1"}, "Namespace", "patchCoreV1Namespace"},
		{"delete", schema.GroupVersion{Group: "apps", Version: "v1"}, "CollectionNamespacedDeployment", "deleteAppsV1CollectionNamespacedDeployment"},
		{"list", schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "ClusterRole", "listRbacAuthorizationV1ClusterRole"},
		{"watch", schema.GroupVersion{Group: "stable.example.com", Version: "v1beta1"}, "CronTabList", "watchStableExampleComV1beta1CronTabList"},
	}
	for _, tc := range cases {
		if got := operationID(tc.verb, tc.gv, tc.rest); got != tc.want {
			t.Errorf("operationID(%q, %v, %q) = %q, want %q", tc.verb, tc.gv, tc.rest, got, tc.want)
		}
	}
}

func TestOperationTag(t *testing.T) {
	cases := map[schema.GroupVersion]string{
		{Version: "v1"}:                                        "core_v1",
		{Group: "apps", Version: "v1"}:                         "apps_v1",
		{Group: "rbac.authorization.k8s.io", Version: "v1"}:    "rbacAuthorization_v1",
		{Group: "admissionregistration.k8s.io", Version: "v1"}: "admissionregistration_v1",
		{Group: "stable.example.com", Version: "v1"}:           "stableExampleCom_v1",
	}
	for gv, want := range cases {
		if got := operationTag(gv); got != want {
			t.Errorf("operationTag(%v) = %q, want %q", gv, got, want)
		}
	}
}

func TestIdentifier(t *testing.T) {
	cases := []struct {
		in    string
		upper bool
		want  string
	}{
		{"rbac.authorization", false, "rbacAuthorization"},
		{"rbac.authorization", true, "RbacAuthorization"},
		{"v1beta1", true, "V1beta1"},
		{"my-group_x", false, "myGroup_x"},
		{"9lives", false, "Lives"}, // a leading digit is dropped and capitalizes what follows
	}
	for _, tc := range cases {
		if got := identifier(tc.in, tc.upper); got != tc.want {
			t.Errorf("identifier(%q, %v) = %q, want %q", tc.in, tc.upper, got, tc.want)
		}
	}
}
