package handler

func init() {
	for k, v := range map[string]string{
		"apps/deployments": `{"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`,
	} {
		kindSamples[k] = v
	}
}
