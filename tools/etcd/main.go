// Command etcd runs a single-member etcd server from etcd's own Go module,
// for benchmarks and tests that need etcd in a process of its own (the
// registry's "external etcd" mode) on a machine without an etcd binary.
// It listens on loopback only and prints its client URL once ready.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubesplit/kubesplit/pkg/embedetcd"
)

func main() {
	dir := flag.String("data-dir", "", "data directory (required)")
	port := flag.Int("port", 0, "client port on 127.0.0.1 (0 picks one)")
	addressFile := flag.String("address-file", "", "write the client URL here once ready")
	flag.Parse()
	if err := run(*dir, *port, *addressFile); err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		os.Exit(1)
	}
}

func run(dir string, port int, addressFile string) error {
	if dir == "" {
		return fmt.Errorf("--data-dir is required")
	}
	e, err := embedetcd.Start(dir, port)
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
