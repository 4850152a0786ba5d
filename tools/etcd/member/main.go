// Command member is etcd itself, from etcd's own Go module at the version
// the project uses: the same flags and environment variables (ETCD_*) as
// the official etcd binary, for the etcd image of deploy/ where no
// official image can be pulled. `make images` installs it as
// /usr/local/bin/etcd, where the official image keeps it too.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
