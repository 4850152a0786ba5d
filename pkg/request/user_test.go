package request

import (
	"context"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestUser(t *testing.T) {
	if _, ok := UserFrom(context.Background()); ok {
		t.Error("an empty context has a user")
	}
	alice := authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev"}}
	if got, ok := UserFrom(WithUser(context.Background(), alice)); !ok || !reflect.DeepEqual(got, alice) {
		t.Errorf("UserFrom = %+v, %v, want %+v", got, ok, alice)
	}
}

func TestAuditID(t *testing.T) {
	if _, ok := AuditIDFrom(context.Background()); ok {
		t.Error("an empty context has an audit id")
	}
	if got, ok := AuditIDFrom(WithAuditID(context.Background(), "id-1")); !ok || got != "id-1" {
		t.Errorf("AuditIDFrom = %q, %v", got, ok)
	}
}
