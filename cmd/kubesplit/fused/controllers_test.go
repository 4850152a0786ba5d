package fused

import (
	"context"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/services/registry/registry"
)

// A --controllers list naming a controller that neither the registry nor
// admission runs stops the start, before anything is started, so that a
// typo does not leave a controller running twice beside a
// kube-controller-manager.
func TestUnknownController(t *testing.T) {
	dir := t.TempDir()
	_, err := Start(context.Background(), Config{CertDir: dir, DataDir: dir,
		Registry: registry.Config{Controllers: []string{"*", "-resourcequota-controller", "-nope"}}})
	if err == nil || !strings.Contains(err.Error(), `"-nope"`) {
		t.Fatalf("start with an unknown controller: %v", err)
	}
}
