package config

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// usageHeader opens --help: what the tool does before the flag list.
const usageHeader = `load drives a Kubernetes API server through a kubeconfig and reports
throughput and latency.

Usage: load --kubeconfig PATH --op get|list|create|update|mixed|watch [flags]

The namespace is created if absent, seeded with --objects ConfigMaps of --size
bytes (get, list, update, mixed), and everything the run created is deleted at
the end, on Ctrl-C too. Setup and clean-up are not measured.

  get     GET of random seeded ConfigMaps
  list    LIST of every object in the namespace
  create  CREATE of new ConfigMaps with unique names
  update  UPDATE of seeded ConfigMaps; each worker owns a share and writes with
          the resourceVersion of its own last write, so there are no conflicts
  mixed   70% get, 10% list, 10% update, 10% create
  watch   --watchers watches, then --updates updates to one ConfigMap spread
          over --duration; reports delivery latency and fails on a lost event

Exit status: 0 ok, 1 error rate over 1%, a lost watch event or a failed run,
2 bad flags, 130 interrupted.

Flags:
`

// Parse reads the command line (without the program name). Help and usage
// errors are written to errOut; on -h it returns flag.ErrHelp.
func Parse(args []string, errOut io.Writer) (Config, error) {
	var c Config
	var op string
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprint(errOut, usageHeader)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "path of the kubeconfig (default $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&op, "op", "", "workload: get, list, create, update, mixed or watch (required)")
	fs.IntVar(&c.Concurrency, "concurrency", 16, "workers sending requests at once (watch: unused, one writer)")
	fs.DurationVar(&c.Duration, "duration", 20*time.Second, "how long to send requests (watch: the span updates are spread over; the run gives up at duration+30s)")
	fs.IntVar(&c.Objects, "objects", 100, "ConfigMaps to seed for get, list, update and mixed")
	fs.IntVar(&c.Size, "size", 1024, "bytes of data in each ConfigMap")
	fs.StringVar(&c.Namespace, "namespace", "", "namespace to work in, created if absent (default load-<random>)")
	fs.IntVar(&c.Watchers, "watchers", 50, "concurrent watches (watch)")
	fs.IntVar(&c.Updates, "updates", 200, "updates sent to the watched ConfigMap (watch)")
	fs.StringVar(&c.ContentType, "content-type", ContentJSON, "wire format of requests and responses: json or protobuf")
	fs.Float64Var(&c.QPS, "qps", 0, "cap on requests per second over all workers; 0 is unlimited (client-go's own limiter is always off)")
	fs.StringVar(&c.Output, "output", OutputText, "report format: text or json")
	fs.BoolVar(&c.Keep, "keep", false, "leave the namespace and the ConfigMaps the run created, to fill a server before another run")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("%w: unexpected arguments %q", ErrInvalid, fs.Args())
	}
	c.Op = Op(op)
	if c.Namespace == "" {
		c.Namespace = "load-" + RandomSuffix(5)
	}
	return c, c.Validate()
}

// RandomSuffix returns n random characters valid in a Kubernetes name, so
// concurrent runs do not collide.
func RandomSuffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // no vowels: no accidental words
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
}
