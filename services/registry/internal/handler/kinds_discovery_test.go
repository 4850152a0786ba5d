package handler

func init() {
	for k, v := range map[string]string{
		"discovery.k8s.io/endpointslices": `{"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"name":"http","port":80,"protocol":"TCP"}]}`,
	} {
		kindSamples[k] = v
	}
}
