package handler

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Concurrent full lists of a large collection cost the registry next to
// nothing beyond the cache that holds it: each list is written from the
// items' stored encodings instead of being assembled, so what a list
// allocates does not grow with the collection. Assembled, every list
// allocated the whole collection again (40 lists of 30 MB took the
// registry to 3.1 GB).
func TestConcurrentListsDoNotCopyTheCollection(t *testing.T) {
	const (
		items       = 16
		itemSize    = 900 << 10 // under a ConfigMap's 1 MiB
		concurrency = 8
	)
	e := newEnv(t)
	value := strings.Repeat("x", itemSize)
	for i := range items {
		e.mustDo("POST", cmPath, fmt.Sprintf(`{"metadata":{"name":"big-%d"},"data":{"v":%q}}`, i, value), http.StatusCreated)
	}
	collection := uint64(items * itemSize)
	for _, accept := range []string{"application/json", protobufMedia} {
		t.Run(accept, func(t *testing.T) {
			list := func() error {
				req, _ := http.NewRequest("GET", e.url+cmPath, nil)
				req.Header.Set("Accept", accept)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				n, err := io.Copy(io.Discard, resp.Body)
				if err == nil && (resp.StatusCode != http.StatusOK || uint64(n) < collection) {
					err = fmt.Errorf("%d, %d bytes", resp.StatusCode, n)
				}
				return err
			}
			// The first list computes each item's protobuf once, kept
			// with the cached object for every later reader.
			if err := list(); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var wg sync.WaitGroup
			errs := make(chan error, concurrency)
			for range concurrency {
				wg.Go(func() { errs <- list() })
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d concurrent lists of %d MB allocated %.1f MB in all (%.1f%% of one copy each)",
				concurrency, collection>>20, float64(allocated)/(1<<20), 100*float64(allocated)/float64(concurrency*collection))
			if allocated > concurrency*collection/8 {
				t.Errorf("%d concurrent lists of %d MB allocated %d MB, more than an eighth of a copy each",
					concurrency, collection>>20, allocated>>20)
			}
		})
	}
}
