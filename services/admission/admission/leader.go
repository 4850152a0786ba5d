package admission

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/controllers"
	"github.com/kubesplit/kubesplit/pkg/leader"
)

// Lease timings: kube-controller-manager's defaults.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// LeasePrefix names the Leases in kube-system that background work runs
// under: kubesplit-admission-<name>.
const LeasePrefix = "kubesplit-admission-"

// job is background work a plugin registered with Deps.Run.
type job struct {
	name string
	run  func(ctx context.Context)
}

// controllerNames are the plugins' background jobs that --controllers
// names, by kube-controller-manager's names for the controllers they
// duplicate: the quota plugin's recount is kube's resourcequota
// controller.
var controllerNames = []struct {
	job   string
	names []string
}{
	{"resourcequota", []string{"resourcequota-controller", "resourcequota"}},
}

// KnownControllers lists the names --controllers knows each background
// job by, kube's first.
func KnownControllers() [][]string {
	known := make([][]string, len(controllerNames))
	for i, c := range controllerNames {
		known[i] = c.names
	}
	return known
}

// controllersOn says which jobs a --controllers list lets run.
func controllersOn(list []string) (map[string]bool, error) {
	on, err := controllers.Enabled(list, KnownControllers())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	runs := map[string]bool{}
	for i, c := range controllerNames {
		runs[c.job] = on[i]
	}
	return runs, nil
}

// leaseIdentity names this replica as a Lease holder.
func leaseIdentity(id string) string {
	if id != "" {
		return id
	}
	host, err := os.Hostname()
	if err != nil {
		host = "admission"
	}
	return host + "_" + rand.String(8)
}

// runLeased runs j while this replica holds its Lease, campaigning again
// whenever leadership is lost, until ctx ends (see leader.Run).
func runLeased(ctx context.Context, client kubernetes.Interface, identity string, j job, log *slog.Logger) {
	leader.Run(ctx, leader.Config{
		Client: client.CoordinationV1(), Namespace: metav1.NamespaceSystem, Name: LeasePrefix + j.name, Identity: identity,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		Log: log.With("job", j.name),
	}, j.run)
}
