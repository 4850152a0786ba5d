// Package config holds the load tool's settings and parses them from flags.
package config

import (
	"errors"
	"fmt"
	"time"
)

// Op names a workload.
type Op string

// The workloads the tool can run.
const (
	// OpGet reads random seeded ConfigMaps.
	OpGet Op = "get"
	// OpList lists every object in the namespace.
	OpList Op = "list"
	// OpCreate creates new ConfigMaps with unique names.
	OpCreate Op = "create"
	// OpUpdate rewrites seeded ConfigMaps, each worker its own share.
	OpUpdate Op = "update"
	// OpMixed is 70% get, 10% list, 10% update, 10% create.
	OpMixed Op = "mixed"
	// OpWatch measures how long updates take to reach many watchers.
	OpWatch Op = "watch"
)

// Ops lists every workload, in the order help text shows them.
var Ops = []Op{OpGet, OpList, OpCreate, OpUpdate, OpMixed, OpWatch}

// Seeds reports whether the workload needs ConfigMaps in place before it starts.
func (o Op) Seeds() bool {
	return o == OpGet || o == OpList || o == OpUpdate || o == OpMixed
}

// Content types the client can speak to the server.
const (
	ContentJSON     = "json"
	ContentProtobuf = "protobuf"
)

// Output formats of the report.
const (
	OutputText = "text"
	OutputJSON = "json"
)

// Config is one run of the tool.
type Config struct {
	// Kubeconfig is the path of the kubeconfig; empty means the usual
	// $KUBECONFIG or ~/.kube/config.
	Kubeconfig string
	// Op is the workload to run.
	Op Op
	// Concurrency is the number of workers sending requests at once.
	Concurrency int
	// Duration is how long requests are sent; for watch, the span the
	// updates are spread over.
	Duration time.Duration
	// Objects is how many ConfigMaps are seeded for get, list, update and mixed.
	Objects int
	// Size is the number of bytes of data in each ConfigMap.
	Size int
	// Namespace is where everything is created; it is created if absent.
	Namespace string
	// Watchers is the number of concurrent watches for the watch workload.
	Watchers int
	// Updates is the number of updates the watch workload sends.
	Updates int
	// ContentType is ContentJSON or ContentProtobuf.
	ContentType string
	// QPS caps the requests per second of all workers together; 0 is no cap.
	QPS float64
	// Output is OutputText or OutputJSON.
	Output string
	// Keep leaves what the run created in place, so that one run can
	// fill a server for the next (make bench's crowded list).
	Keep bool
}

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid configuration")

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	switch {
	case !validOp(c.Op):
		return bad("--op %q: want one of %v", c.Op, Ops)
	case c.Concurrency < 1:
		return bad("--concurrency must be at least 1")
	case c.Duration <= 0:
		return bad("--duration must be positive")
	case c.Op.Seeds() && c.Objects < 1:
		return bad("--objects must be at least 1 for --op %s", c.Op)
	case (c.Op == OpUpdate || c.Op == OpMixed) && c.Objects < c.Concurrency:
		// Each worker owns its own objects so updates never conflict.
		return bad("--objects (%d) must be at least --concurrency (%d) for --op %s", c.Objects, c.Concurrency, c.Op)
	case c.Size < 0:
		return bad("--size must not be negative")
	case c.Namespace == "":
		return bad("--namespace must not be empty")
	case c.Op == OpWatch && (c.Watchers < 1 || c.Updates < 1):
		return bad("--watchers and --updates must be at least 1 for --op watch")
	case c.ContentType != ContentJSON && c.ContentType != ContentProtobuf:
		return bad("--content-type %q: want json or protobuf", c.ContentType)
	case c.QPS < 0:
		return bad("--qps must not be negative")
	case c.Output != OutputText && c.Output != OutputJSON:
		return bad("--output %q: want text or json", c.Output)
	}
	return nil
}

func validOp(o Op) bool {
	for _, known := range Ops {
		if o == known {
			return true
		}
	}
	return false
}
