package serve

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"
)

// probeTimeout bounds one --probe-url check: container runtimes give a
// health check a few seconds, and a probe that hangs is a failed one.
const probeTimeout = 3 * time.Second

// Probe GETs url (a service's own /readyz or /livez) and returns nil for
// a 2xx answer. It is the health check of images without a shell or curl:
// the service's binary checks itself (`registry --probe-url
// https://127.0.0.1:6444/readyz`). The certificate is not verified: the
// probe sends no credentials and reads only the status of an endpoint
// that needs none, on an address the container owns.
func Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // see above
	resp, err := (&http.Client{Transport: t}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s\n%s", url, resp.Status, body)
	}
	return nil
}
