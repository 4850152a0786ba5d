package identity

import (
	"context"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestUserInfoRoundTrip(t *testing.T) {
	info := alice.ToUserInfo()
	want := authenticationv1.UserInfo{
		Username: "alice", UID: "uid-1", Groups: []string{"dev", "system:authenticated"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes": {"read", "write"}},
	}
	if !reflect.DeepEqual(info, want) {
		t.Fatalf("ToUserInfo = %+v, want %+v", info, want)
	}
	if back := FromUserInfo(info); !reflect.DeepEqual(back, alice) {
		t.Fatalf("FromUserInfo = %+v, want %+v", back, alice)
	}
	info.Groups[0] = "changed"
	if alice.Groups[0] != "dev" {
		t.Error("ToUserInfo shares Groups with the User")
	}
}

func TestContext(t *testing.T) {
	if _, ok := UserFrom(context.Background()); ok {
		t.Error("empty context has a user")
	}
	u, ok := UserFrom(WithUser(context.Background(), alice))
	if !ok || !reflect.DeepEqual(u, alice) {
		t.Errorf("UserFrom = %+v, %v", u, ok)
	}
}
