package handler

func init() {
	for k, v := range map[string]string{
		"networking.k8s.io/ingresses":       `{"spec":{"defaultBackend":{"service":{"name":"s","port":{"number":80}}}}}`,
		"networking.k8s.io/ingressclasses":  `{"spec":{"controller":"example.com/ingress"}}`,
		"networking.k8s.io/networkpolicies": `{"spec":{"podSelector":{}}}`,
		"networking.k8s.io/servicecidrs":    `{"spec":{"cidrs":["10.96.0.0/16"]}}`,
		"networking.k8s.io/ipaddresses":     `{"spec":{"parentRef":{"resource":"services","name":"s","namespace":"ns"}}}`,
	} {
		kindSamples[k] = v
	}
	kindSampleNames["networking.k8s.io/ipaddresses"] = "10.96.0.10"
}
