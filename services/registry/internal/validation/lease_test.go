package validation

import "testing"

func TestValidateLease(t *testing.T) {
	base := object(t, `
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader, namespace: kube-system}
spec: {holderIdentity: a, leaseDurationSeconds: 15, leaseTransitions: 2}
`)
	runValidation(t, ValidateLease, []validationCase{
		{name: "valid", obj: base},
		{name: "duration positive", obj: with(t, base, edit{"spec.leaseDurationSeconds", 0}),
			want: []string{"spec.leaseDurationSeconds: Invalid value"}},
		{name: "transitions non-negative", obj: with(t, base, edit{"spec.leaseTransitions", -1}),
			want: []string{"spec.leaseTransitions: Invalid value"}},
		{name: "strategy enum", obj: with(t, base, edit{"spec.strategy", "Newest"}),
			want: []string{"spec.strategy: Unsupported value"}},
		{name: "known strategy", obj: with(t, base, edit{"spec.strategy", "OldestEmulationVersion"}, edit{"spec.preferredHolder", "b"})},
		{name: "preferredHolder needs a strategy", obj: with(t, base, edit{"spec.preferredHolder", "b"}),
			want: []string{"spec.preferredHolder: Forbidden"}},
	})
}
