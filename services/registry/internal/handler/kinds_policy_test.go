package handler

func init() {
	kindSamples["policy/poddisruptionbudgets"] = `{"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"a"}}}}`
}
