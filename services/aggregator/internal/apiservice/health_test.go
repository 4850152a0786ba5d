package apiservice

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"

	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// localAPIService is an APIService served by the upstreams, with no
// status yet.
func localAPIService(name, group, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"group": group, "version": version, "groupPriorityMinimum": int64(1000), "versionPriority": int64(100)},
	}}
}

// silentBackend accepts connections and never answers, so a discovery
// check of it lasts its whole timeout.
func silentBackend(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	return "https://" + ln.Addr().String()
}

// The controller's state, as the aggregator's health checks read it:
// nothing before the first sync; then a local APIService counts once it
// is marked Available, a remote one once its backend has been checked,
// whether it passed or not.
func TestHealthState(t *testing.T) {
	remote := wardle(silentBackend(t), testpki.New(t, "wardle").PEM())
	c, _, client := newController(t, nil, localAPIService("v1.example.com", "example.com", "v1"), remote)
	for name, check := range map[string]func() error{
		"InformerSynced": c.InformerSynced, "Registered": c.Registered, "LocalAvailable": c.LocalAvailable, "RemoteChecked": c.RemoteChecked,
	} {
		if err := check(); err == nil {
			t.Errorf("%s passed before any sync", name)
		}
	}
	if _, synced := c.Known("v1.example.com"); synced {
		t.Error("Known says synced before any sync")
	}

	syncOnce(t, c, client)
	if err := c.Registered(); err != nil {
		t.Errorf("Registered after a sync: %v", err)
	}
	if err := c.LocalAvailable(); err == nil || !strings.Contains(err.Error(), "v1.example.com") {
		t.Errorf("LocalAvailable before the condition was read back = %v, want v1.example.com pending", err)
	}
	if err := c.RemoteChecked(); err == nil || !strings.Contains(err.Error(), "v1alpha1.wardle.example.com") {
		t.Errorf("RemoteChecked while the backend's first check hangs = %v, want wardle pending", err)
	}
	if known, synced := c.Known("v1.example.com"); !known || !synced {
		t.Errorf("Known(v1.example.com) = %v, %v", known, synced)
	}
	if known, _ := c.Known("v1.nope.example.com"); known {
		t.Error("Known(v1.nope.example.com) = true")
	}

	polltest.Until(t, waitLimit, "the local APIService to be marked and the backend checked", func() bool {
		syncOnce(t, c, client)
		return c.LocalAvailable() == nil && c.RemoteChecked() == nil
	})
	if got := availableOf(t, client, "v1alpha1.wardle.example.com"); got.Status != statusFalse {
		t.Errorf("wardle Available = %+v: RemoteChecked passes for an unavailable backend, which is its status", got)
	}
}

// Routes refusing the APIServices fail Registered with the reason.
func TestHealthRegisteredReportsInstallErrors(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{GVR: "APIServiceList"}, wardle("https://127.0.0.1:1", nil))
	c, err := New(Config{Client: client, Routes: refusingRoutes{}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stopAll)
	syncOnce(t, c, client)
	if err := c.Registered(); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("Registered with routes refusing = %v", err)
	}
}

// Run reports the informer synced, and syncs at once after it.
func TestHealthAfterRun(t *testing.T) {
	c, _, _ := newController(t, nil, localAPIService("v1.example.com", "example.com", "v1"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	start := time.Now()
	polltest.Until(t, waitLimit, "the informer and the first sync", func() bool {
		return c.InformerSynced() == nil && c.Registered() == nil
	})
	polltest.Until(t, waitLimit, "the local APIService to be Available", func() bool { return c.LocalAvailable() == nil })
	t.Logf("synced and available after %v", time.Since(start))
}

type refusingRoutes struct{}

func (refusingRoutes) SetAPIServices([]discovery.APIService) error { return errors.New("no room") }
