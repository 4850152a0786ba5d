// Package health serves /healthz, /livez and /readyz the way
// kube-apiserver does: named checks, "ok" when all pass, ?verbose for a
// line per check, ?exclude=<name> to skip one, and /readyz/<name> for a
// single check. They need no credentials, so probes work.
package health

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DefaultTimeout bounds every check a handler runs: one still running
// then is reported failed, and the answer does not wait for it. Checks
// that ask another service bound themselves more tightly.
const DefaultTimeout = 3 * time.Second

// Check is one named health check.
type Check struct {
	Name string
	Func func(ctx context.Context) error
}

// Ping is a check that always passes.
var Ping = Check{Name: "ping", Func: func(context.Context) error { return nil }}

// Handler serves one endpoint (for example /readyz) over checks. The
// checks run concurrently, each bounded by DefaultTimeout, so that the
// answer takes as long as the slowest check, at most the bound; the lines
// keep the checks' order.
func Handler(endpoint string, checks ...Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		only := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, endpoint), "/")
		excluded := map[string]bool{}
		for _, e := range r.URL.Query()["exclude"] {
			excluded[e] = true
		}
		var run []Check
		for _, c := range checks {
			if excluded[c.Name] || (only != "" && c.Name != only) {
				continue
			}
			run = append(run, c)
		}
		if only != "" && len(run) == 0 {
			http.Error(w, fmt.Sprintf("no check named %q", only), http.StatusNotFound)
			return
		}
		var b strings.Builder
		failed := false
		for i, err := range runAll(r.Context(), run) {
			if err != nil {
				failed = true
				fmt.Fprintf(&b, "[-]%s failed: %v\n", run[i].Name, err)
			} else {
				fmt.Fprintf(&b, "[+]%s ok\n", run[i].Name)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, verbose := r.URL.Query()["verbose"]
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", b.String(), strings.TrimPrefix(endpoint, "/"))
			return
		}
		if verbose {
			fmt.Fprintf(w, "%s%s check passed\n", b.String(), strings.TrimPrefix(endpoint, "/"))
			return
		}
		fmt.Fprint(w, "ok")
	})
}

// runAll runs checks concurrently and returns their outcomes in order. A
// check that has not returned by DefaultTimeout (or by the end of ctx)
// fails with that reason; its goroutine is left to notice its context
// ended.
func runAll(ctx context.Context, checks []Check) []error {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	type outcome struct {
		i   int
		err error
	}
	results := make(chan outcome, len(checks)) // buffered: a late check never blocks
	for i, c := range checks {
		go func() {
			results <- outcome{i, safely(ctx, c.Func)}
		}()
	}
	errs := make([]error, len(checks))
	pending := len(checks)
	done := make([]bool, len(checks))
	for pending > 0 {
		select {
		case o := <-results:
			errs[o.i], done[o.i] = o.err, true
			pending--
		case <-ctx.Done():
			for i := range checks {
				if !done[i] {
					errs[i] = fmt.Errorf("no answer within %v", DefaultTimeout)
				}
			}
			return errs
		}
	}
	return errs
}

// safely runs f, turning a panic into a failure: a broken check must not
// take the server's health endpoint down with it.
func safely(ctx context.Context, f func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("check panicked: %v", p)
		}
	}()
	return f(ctx)
}
