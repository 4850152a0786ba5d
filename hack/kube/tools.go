//go:build tools

// Package kube pins the upstream Kubernetes binaries that
// hack/kube-binaries.sh builds (kube-apiserver, kube-controller-manager,
// kube-scheduler, etcd and kwok), so `go mod tidy` keeps them in go.mod.
// It is a module of its own and not in go.work: its replace directives map
// every Kubernetes staging module to v0.37.2 and would otherwise apply to the
// whole workspace. Build it with GOWORK=off.
package kube

import (
	_ "go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
