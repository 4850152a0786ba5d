package handler

func init() {
	for k, v := range map[string]string{
		"node.k8s.io/runtimeclasses": `{"handler":"runc"}`,
	} {
		kindSamples[k] = v
	}
}
