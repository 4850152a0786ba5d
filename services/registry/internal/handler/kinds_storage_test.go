package handler

func init() {
	for k, v := range map[string]string{
		"storage.k8s.io/storageclasses":          `{"provisioner":"example.com/p"}`,
		"storage.k8s.io/csidrivers":              `{"spec":{}}`,
		"storage.k8s.io/csinodes":                `{"spec":{"drivers":[{"name":"example.com","nodeID":"n1"}]}}`,
		"storage.k8s.io/csistoragecapacities":    `{"storageClassName":"sc"}`,
		"storage.k8s.io/volumeattachments":       `{"spec":{"attacher":"example.com","source":{"persistentVolumeName":"pv"},"nodeName":"n1"}}`,
		"storage.k8s.io/volumeattributesclasses": `{"driverName":"example.com","parameters":{"a":"b"}}`,
	} {
		kindSamples[k] = v
	}
}
