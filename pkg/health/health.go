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
)

// Check is one named health check.
type Check struct {
	Name string
	Func func(ctx context.Context) error
}

// Ping is a check that always passes.
var Ping = Check{Name: "ping", Func: func(context.Context) error { return nil }}

// Handler serves one endpoint (for example /readyz) over checks.
func Handler(endpoint string, checks ...Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		only := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, endpoint), "/")
		excluded := map[string]bool{}
		for _, e := range r.URL.Query()["exclude"] {
			excluded[e] = true
		}
		var b strings.Builder
		failed, ran := false, false
		for _, c := range checks {
			if excluded[c.Name] || (only != "" && c.Name != only) {
				continue
			}
			ran = true
			if err := c.Func(r.Context()); err != nil {
				failed = true
				fmt.Fprintf(&b, "[-]%s failed: %v\n", c.Name, err)
			} else {
				fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
			}
		}
		if only != "" && !ran {
			http.Error(w, fmt.Sprintf("no check named %q", only), http.StatusNotFound)
			return
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
