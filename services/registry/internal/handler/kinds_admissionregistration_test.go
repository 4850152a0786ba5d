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
		// With a paramRef, which kube refuses when the strategy has no resource resolver.
		"admissionregistration.k8s.io/mutatingadmissionpolicybindings": `{"spec":{"policyName":"p","paramRef":{"name":"params","parameterNotFoundAction":"Deny"}}}`,
	} {
		kindSamples[k] = v
	}
}
