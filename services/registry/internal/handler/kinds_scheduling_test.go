package handler

func init() {
	for k, v := range map[string]string{
		"scheduling.k8s.io/priorityclasses": `{"value":1000}`,
	} {
		kindSamples[k] = v
	}
}
