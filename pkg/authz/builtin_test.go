package authz

import (
	"context"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestBuiltins(t *testing.T) {
	masters := Attributes{User: authenticationv1.UserInfo{Username: "root", Groups: []string{"dev", SystemMastersGroup}}}
	cases := []struct {
		name  string
		a     Authorizer
		attrs Attributes
		want  Decision
	}{
		{"always allow", AlwaysAllow(), Attributes{}, DecisionAllow},
		{"always deny", AlwaysDeny(), masters, DecisionDeny},
		{"system:masters", SystemMasters(), masters, DecisionAllow},
		{"not system:masters", SystemMasters(), Attributes{User: alice}, DecisionNoOpinion},
		{"a user named system:masters is not the group", SystemMasters(), Attributes{User: authenticationv1.UserInfo{Username: SystemMastersGroup}}, DecisionNoOpinion},
	}
	for _, c := range cases {
		res, err := c.a.Authorize(context.Background(), c.attrs)
		if err != nil || res.Decision != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, res.Decision, err, c.want)
		}
	}
}
