// Command etcd runs a single-member etcd server from etcd's own Go module,
// for benchmarks and tests that need etcd in a process of its own (the
// registry's "external etcd" mode) on a machine without an etcd binary.
// It listens on loopback only and prints its client URL once ready.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	dir := flag.String("data-dir", "", "data directory (required)")
	port := flag.Int("port", 0, "client port on 127.0.0.1 (0 picks one)")
	addressFile := flag.String("address-file", "", "write the client URL here once ready")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "etcd: --data-dir is required")
		os.Exit(2)
	}
	cfg := embed.NewConfig()
	cfg.Dir = *dir
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", *port)}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.LogLevel = "warn"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		os.Exit(1)
	}
	defer e.Close()
	<-e.Server.ReadyNotify()
	endpoint := "http://" + e.Clients[0].Addr().String()
	fmt.Println(endpoint)
	if *addressFile != "" {
		if err := os.WriteFile(*addressFile, []byte(endpoint+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "etcd:", err)
			os.Exit(1)
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	select {
	case <-stop:
	case err := <-e.Err():
		fmt.Fprintln(os.Stderr, "etcd:", err)
		os.Exit(1)
	}
}
