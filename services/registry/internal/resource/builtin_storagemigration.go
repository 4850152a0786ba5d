package resource

import (
	svm "k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration"
)

// storagemigration is storagemigration.k8s.io/v1.
func storagemigration() []*Info {
	return []*Info{
		kube(&Info{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations",
			Kind: "StorageVersionMigration", Singular: "storageversionmigration", StatusSubresource: true},
			svm.Strategy, status(svm.StatusStrategy)),
	}
}
