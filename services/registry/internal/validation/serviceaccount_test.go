package validation

import "testing"

func TestValidateServiceAccount(t *testing.T) {
	base := object(t, `
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: default}
secrets: [{name: builder-token}]
imagePullSecrets: [{name: registry}]
automountServiceAccountToken: false
`)
	runValidation(t, ValidateServiceAccount, []validationCase{
		{name: "valid", obj: base},
		{name: "update", obj: with(t, base, edit{"automountServiceAccountToken", true}), old: base},
		{name: "wrong type", obj: with(t, base, edit{"automountServiceAccountToken", "yes"}),
			want: []string{"[]: Invalid value"}},
	})
}
