// Command etcd is the upstream etcd server (go.etcd.io/etcd/server/v3), with
// its own flags, built from the version pinned in hack/kube/go.mod so tests
// can run a real kube-apiserver against the etcd it is released with.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
