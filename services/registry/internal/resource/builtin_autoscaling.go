package resource

// autoscaling is autoscaling: HorizontalPodAutoscalers.
func autoscaling() []*Info {
	return nil
}
