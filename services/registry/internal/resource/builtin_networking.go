package resource

// networking is networking.k8s.io/v1.
func networking() []*Info {
	return nil
}
