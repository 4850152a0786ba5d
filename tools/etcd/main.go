// Command etcd runs a single-member etcd server from etcd's own Go module,
// for benchmarks and tests that need etcd in a process of its own (the
// registry's "external etcd" mode) on a machine without an etcd binary.
// It listens only on a unix socket that its user alone may reach (see
// services/registry/embedetcd), and prints its client URL once ready.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubesplit/kubesplit/services/registry/embedetcd"
)

func main() {
	dir := flag.String("data-dir", "", "data directory (required)")
	addressFile := flag.String("address-file", "", "write the client URL here once ready")
	flag.Parse()
	if err := run(*dir, *addressFile); err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		os.Exit(1)
	}
}

func run(dir, addressFile string) error {
	if dir == "" {
		return fmt.Errorf("--data-dir is required")
	}
	e, err := embedetcd.Start(dir)
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Println(e.Endpoint())
	if addressFile != "" {
		if err := os.WriteFile(addressFile, []byte(e.Endpoint()+"\n"), 0o644); err != nil {
			return err
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	select {
	case <-stop:
		return nil
	case err := <-e.Err():
		return err
	}
}
