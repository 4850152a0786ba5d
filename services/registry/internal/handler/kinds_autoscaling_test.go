package handler

func init() {
	kindSamples["autoscaling/horizontalpodautoscalers"] = `{"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},` +
		`"minReplicas":1,"maxReplicas":3,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]}}`
}
