package resource

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/csinode"
	"k8s.io/kubernetes/pkg/registry/storage/csistoragecapacity"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"

	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
)

// storage is storage.k8s.io/v1.
func storage() []*Info {
	const g = "storage.k8s.io"
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "storageclasses", Kind: "StorageClass", Singular: "storageclass",
			ShortNames: []string{"sc"}},
			storageclass.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "csidrivers", Kind: "CSIDriver", Singular: "csidriver"},
			csidriver.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "csinodes", Kind: "CSINode", Singular: "csinode",
			StatusSubresource: true},
			csinode.Strategy, status(csinode.StatusStrategy)),
		defaultTable(kube(&Info{Group: g, Version: "v1", Resource: "csistoragecapacities", Kind: "CSIStorageCapacity",
			Singular: "csistoragecapacity", Namespaced: true},
			csistoragecapacity.Strategy, nil)),
		kube(&Info{Group: g, Version: "v1", Resource: "volumeattachments", Kind: "VolumeAttachment", Singular: "volumeattachment",
			StatusSubresource: true},
			volumeattachment.Strategy, status(volumeattachment.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "volumeattributesclasses", Kind: "VolumeAttributesClass",
			Singular: "volumeattributesclass", ShortNames: []string{"vac"}},
			volumeattributesclass.Strategy, nil),
	}
}

// defaultTable makes info print as kube-apiserver's default table
// convertor prints it (NAME, CREATED AT) instead of through kube's printer,
// for the kinds whose kube storage is built that way (CSIStorageCapacity).
func defaultTable(info *Info) *Info {
	info.Strategy = defaultTableStrategy{info.Strategy}
	return info
}

type defaultTableStrategy struct{ Strategy }

func (defaultTableStrategy) TableColumns() []metav1.TableColumnDefinition {
	return printers.Columns(printers.Default).TableColumns()
}

func (defaultTableStrategy) TableCells(u *unstructured.Unstructured) []any {
	return printers.Columns(printers.Default).TableCells(u)
}
