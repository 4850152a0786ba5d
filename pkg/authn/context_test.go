package authn

import (
	"context"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestUserContext(t *testing.T) {
	if _, ok := UserFrom(context.Background()); ok {
		t.Error("user in an empty context")
	}
	if _, ok := UserFrom(WithUser(context.Background(), nil)); ok {
		t.Error("a nil user counts as a user")
	}
	u := &authenticationv1.UserInfo{Username: "alice"}
	if got, ok := UserFrom(WithUser(context.Background(), u)); !ok || got != u {
		t.Errorf("got %v %v", got, ok)
	}
}

func TestAudiencesContext(t *testing.T) {
	if _, ok := AudiencesFrom(WithAudiences(context.Background(), nil)); ok {
		t.Error("no audiences counts as audiences")
	}
	if got, ok := AudiencesFrom(WithAudiences(context.Background(), []string{"api"})); !ok || len(got) != 1 || got[0] != "api" {
		t.Errorf("got %v %v", got, ok)
	}
}
