package registry

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
	"github.com/kubesplit/kubesplit/services/registry/internal/serviceip"
)

// controllerStopWait bounds how long Close waits for the controllers to
// hand back their leases.
const controllerStopWait = 10 * time.Second

// startControllers runs the housekeeping controllers, each holding a Lease
// so that with several replicas only one runs it. The returned function
// stops them and waits until they have let their leases go.
func startControllers(parent context.Context, base controller.Config) (stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := controller.Run(ctx, base); err != nil && ctx.Err() == nil {
			slog.Error("controllers stopped", "err", err)
		}
	}()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(controllerStopWait):
			slog.Warn("controllers did not stop in time")
		}
	}
}

// controllerConfig is what the controllers need from the registry's
// configuration: the kubernetes Service's cluster IP and the root CA.
func controllerConfig(cfg Config, rest *rest.Config) (controller.Config, error) {
	c := controller.Config{REST: rest, Controllers: cfg.Controllers}
	ips, err := cfg.serviceIPs()
	if err != nil {
		return c, err
	}
	c.KubernetesServiceIP = serviceip.KubernetesServiceIP(ips.ServiceCIDRs[0])
	if cfg.RootCAFile != "" {
		if c.RootCA, err = readRootCA(cfg.RootCAFile); err != nil {
			return c, err
		}
	}
	return c, nil
}

// readRootCA reads --root-ca-file, refusing one with no certificate in
// it, as kube-controller-manager does.
func readRootCA(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--root-ca-file: %w", err)
	}
	if _, err := certutil.ParseCertsPEM(data); err != nil {
		return nil, fmt.Errorf("error parsing root-ca-file at %s: %w", path, err)
	}
	return data, nil
}

// KnownControllers lists the names --controllers knows each housekeeping
// controller by, kube's first: for a process that shares one list among
// several services (controllers.Share).
func KnownControllers() [][]string { return controller.Known() }
