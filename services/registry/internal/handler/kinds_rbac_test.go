package handler

func init() {
	for k, v := range map[string]string{
		"coordination.k8s.io/leases":                    `{"spec":{"holderIdentity":"me"}}`,
		"rbac.authorization.k8s.io/roles":               `{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`,
		"rbac.authorization.k8s.io/clusterroles":        `{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`,
		"rbac.authorization.k8s.io/rolebindings":        `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"kind":"User","name":"u"}]}`,
		"rbac.authorization.k8s.io/clusterrolebindings": `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"},"subjects":[{"kind":"User","name":"u"}]}`,
	} {
		kindSamples[k] = v
	}
}
