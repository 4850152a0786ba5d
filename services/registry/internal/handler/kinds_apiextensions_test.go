package handler

func init() {
	const key = "apiextensions.k8s.io/customresourcedefinitions"
	kindSamples[key] = `{"spec":{"group":"samples.example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	// A CRD's name is its plural and group.
	kindSampleNames[key] = "gadgets.samples.example.com"
}
