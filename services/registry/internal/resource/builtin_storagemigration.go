package resource

// storagemigration is storagemigration.k8s.io/v1.
func storagemigration() []*Info {
	return nil
}
