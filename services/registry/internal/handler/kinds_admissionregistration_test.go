package handler

func init() {
	hook := `{"name":"w.example.com","clientConfig":{"url":"https://example.com/hook"},"sideEffects":"None","admissionReviewVersions":["v1"]}`
	for k, v := range map[string]string{
		"admissionregistration.k8s.io/mutatingwebhookconfigurations":     `{"webhooks":[` + hook + `]}`,
		"admissionregistration.k8s.io/validatingwebhookconfigurations":   `{"webhooks":[` + hook + `]}`,
		"admissionregistration.k8s.io/validatingadmissionpolicies":       `{"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},"validations":[{"expression":"true"}]}}`,
		"admissionregistration.k8s.io/validatingadmissionpolicybindings": `{"spec":{"policyName":"p","validationActions":["Deny"]}}`,
		"admissionregistration.k8s.io/mutatingadmissionpolicies": `{"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},` +
			`"reinvocationPolicy":"Never","mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"mutated\": \"true\"}}}"}}]}}`,
		// A paramRef is checked against the writer's permissions:
		// TestPolicyParamsNeedTheWritersReadAccess.
		"admissionregistration.k8s.io/mutatingadmissionpolicybindings": `{"spec":{"policyName":"p"}}`,
	} {
		kindSamples[k] = v
	}
}
