package authn

import (
	"context"
	"testing"
)

func TestAudiencesContext(t *testing.T) {
	if _, ok := AudiencesFrom(WithAudiences(context.Background(), nil)); ok {
		t.Error("no audiences counts as audiences")
	}
	if got, ok := AudiencesFrom(WithAudiences(context.Background(), []string{"api"})); !ok || len(got) != 1 || got[0] != "api" {
		t.Errorf("got %v %v", got, ok)
	}
}
