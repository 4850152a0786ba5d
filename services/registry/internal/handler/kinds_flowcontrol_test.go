package handler

func init() {
	for k, v := range map[string]string{
		"flowcontrol.apiserver.k8s.io/flowschemas": `{"spec":{"priorityLevelConfiguration":{"name":"workload-low"},"matchingPrecedence":1000,` +
			`"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"Group","group":{"name":"system:authenticated"}}],` +
			`"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["configmaps"],"namespaces":["*"]}]}]}}`,
		"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": `{"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":10,` +
			`"limitResponse":{"type":"Queue","queuing":{"queues":8,"handSize":4,"queueLengthLimit":50}}}}}`,
	} {
		kindSamples[k] = v
	}
}
