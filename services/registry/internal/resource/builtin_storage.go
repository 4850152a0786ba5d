package resource

// storage is storage.k8s.io/v1.
func storage() []*Info {
	return nil
}
