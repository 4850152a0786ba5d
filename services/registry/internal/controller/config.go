package controller

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/leaderelection"
)

// Defaults for Config, kube-controller-manager's own.
const (
	defaultLeaseDuration  = 15 * time.Second
	defaultRenewDeadline  = 10 * time.Second
	defaultRetryPeriod    = 2 * time.Second
	defaultLeaseNamespace = "kube-system"
)

// complete fills in defaults and rejects what leader election would refuse,
// so a bad Config fails at start-up instead of in a background goroutine.
func (c Config) complete() (Config, error) {
	if c.REST == nil {
		return c, errors.New("controller: Config.REST is required")
	}
	if c.Identity == "" {
		host, _ := os.Hostname()
		c.Identity = host + "_" + string(uuid.NewUUID())
	}
	if c.LeaseNamespace == "" {
		c.LeaseNamespace = defaultLeaseNamespace
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = defaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = defaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = defaultRetryPeriod
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.LeaseDuration < 0 || c.RenewDeadline < 0 || c.RetryPeriod < 0 {
		return c, errors.New("controller: lease timings must be positive")
	}
	if c.LeaseDuration <= c.RenewDeadline {
		return c, fmt.Errorf("controller: LeaseDuration %v must exceed RenewDeadline %v", c.LeaseDuration, c.RenewDeadline)
	}
	if c.RenewDeadline <= time.Duration(leaderelection.JitterFactor*float64(c.RetryPeriod)) {
		return c, fmt.Errorf("controller: RenewDeadline %v must exceed %v times RetryPeriod %v",
			c.RenewDeadline, leaderelection.JitterFactor, c.RetryPeriod)
	}
	return c, nil
}
