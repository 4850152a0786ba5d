package controller

import (
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

func TestConfigDefaults(t *testing.T) {
	c, err := Config{REST: &rest.Config{Host: "http://127.0.0.1:1"}}.complete()
	if err != nil {
		t.Fatal(err)
	}
	if c.LeaseNamespace != "kube-system" || c.LeaseDuration != 15*time.Second ||
		c.RenewDeadline != 10*time.Second || c.RetryPeriod != 2*time.Second {
		t.Fatalf("defaults not applied: %+v", c)
	}
	if c.Identity == "" || c.Logger == nil {
		t.Fatal("identity or logger not defaulted")
	}
}

func TestConfigRejects(t *testing.T) {
	rc := &rest.Config{Host: "http://127.0.0.1:1"}
	for name, c := range map[string]Config{
		"no REST":               {},
		"lease not over renew":  {REST: rc, LeaseDuration: time.Second, RenewDeadline: time.Second},
		"renew not over retry":  {REST: rc, LeaseDuration: 3 * time.Second, RenewDeadline: time.Second, RetryPeriod: time.Second},
		"negative retry period": {REST: rc, RetryPeriod: -time.Second},
	} {
		if _, err := c.complete(); err == nil || !strings.HasPrefix(err.Error(), "controller:") {
			t.Errorf("%s: complete() = %v, want an error", name, err)
		}
	}
}

// Run refuses a bad Config at once instead of failing in the background.
func TestRunRejectsBadConfig(t *testing.T) {
	if err := Run(t.Context(), Config{}); err == nil {
		t.Fatal("Run accepted a Config without REST")
	}
}
