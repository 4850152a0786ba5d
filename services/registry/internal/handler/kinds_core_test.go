package handler

func init() {
	for k, v := range map[string]string{
		"core/namespaces":      `{}`,
		"core/configmaps":      `{"data":{"k":"v"}}`,
		"core/secrets":         `{"stringData":{"k":"v"}}`,
		"core/serviceaccounts": `{}`,
		"core/events":          `{"involvedObject":{"kind":"Pod","name":"p","namespace":"ns"},"reason":"Started","message":"m"}`,
		"core/pods":            `{"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
		"core/services":        `{"spec":{"ports":[{"port":80}]}}`,
		"core/limitranges":     `{"spec":{"limits":[{"type":"Container","default":{"cpu":"1"}}]}}`,
		"core/resourcequotas":  `{"spec":{"hard":{"pods":"10"}}}`,
	} {
		kindSamples[k] = v
	}
}
