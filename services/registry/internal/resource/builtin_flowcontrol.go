package resource

// flowcontrol is flowcontrol.apiserver.k8s.io/v1.
func flowcontrol() []*Info {
	return nil
}
