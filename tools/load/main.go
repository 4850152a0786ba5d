// Command load drives a Kubernetes API server through a kubeconfig with
// client-go and prints throughput and latency. Run it with --help.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/tools/load/internal/client"
	"github.com/kubesplit/kubesplit/tools/load/internal/config"
	"github.com/kubesplit/kubesplit/tools/load/internal/report"
	"github.com/kubesplit/kubesplit/tools/load/internal/runner"
)

// Exit codes, as --help lists them.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := config.Parse(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, config.ErrInvalid):
		fmt.Fprintf(stderr, "load: %v\n", err)
		return exitUsage
	case err != nil:
		return exitUsage // the flag package has printed the error and usage
	}
	restCfg, err := client.RESTConfig(cfg.Kubeconfig, cfg.ContentType)
	if err != nil {
		fmt.Fprintf(stderr, "load: %v\n", err)
		return exitFailed
	}
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		fmt.Fprintf(stderr, "load: %v\n", err)
		return exitFailed
	}
	ctx, cancel := interruptible(stderr)
	defer cancel()
	res, err := runner.Run(ctx, cfg, cs, stderr)
	if res != nil {
		if werr := report.Write(stdout, res, cfg.Output); werr != nil {
			fmt.Fprintf(stderr, "load: write report: %v\n", werr)
			return exitFailed
		}
	}
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case err != nil:
		fmt.Fprintf(stderr, "load: %v\n", err)
		return exitFailed
	}
	if err := res.Check(); err != nil {
		fmt.Fprintf(stderr, "load: FAIL: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// interruptible returns a context cancelled by the first SIGINT or SIGTERM,
// which stops the run and lets it clean up; a second one exits at once, for
// when clean-up hangs.
func interruptible(stderr io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(stderr, "load: interrupted, cleaning up (interrupt again to quit now)")
		cancel()
		<-sig
		os.Exit(exitInterrupted)
	}()
	return ctx, cancel
}
