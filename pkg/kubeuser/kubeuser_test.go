package kubeuser

import (
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// A user goes to kube's form and back unchanged, extra values included,
// and a user without extra gets none (not an empty map).
func TestRoundTrip(t *testing.T) {
	for _, u := range []authenticationv1.UserInfo{
		{Username: "alice", UID: "1", Groups: []string{"a", "b"}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"x", "y"}}},
		{Username: "bob"},
	} {
		kube := FromUserInfo(u)
		if kube.GetName() != u.Username || !reflect.DeepEqual(kube.GetGroups(), u.Groups) {
			t.Errorf("%s: %+v", u.Username, kube)
		}
		if back := ToUserInfo(kube); !reflect.DeepEqual(back, u) {
			t.Errorf("round trip: %+v, want %+v", back, u)
		}
	}
}
