package handler

func init() {
	for k, v := range map[string]string{
		"storagemigration.k8s.io/storageversionmigrations": `{"spec":{"resource":{"group":"apps","resource":"deployments"}}}`,
	} {
		kindSamples[k] = v
	}
}
