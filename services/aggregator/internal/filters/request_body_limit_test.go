package filters

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

const testBodyLimit = 1000

// bodyLimitServer serves POST /api/v1/namespaces/ns/configmaps through the
// limit, with a handler that reads the body as the proxy does: 413 when
// reading fails with *http.MaxBytesError, else 201 and the length read.
func bodyLimitServer(t *testing.T) (url string, reached *atomic.Int32) {
	t.Helper()
	limit, err := WithRequestBodyLimit(testBodyLimit)
	if err != nil {
		t.Fatal(err)
	}
	reached = &atomic.Int32{}
	srv := newServer(t, []func(http.Handler) http.Handler{limit}, func(r chi.Router) {
		r.Post("/api/v1/namespaces/ns/configmaps", func(w http.ResponseWriter, r *http.Request) {
			reached.Add(1)
			body, err := io.ReadAll(r.Body)
			if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
				apierror.Write(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("read %d", len(body))))
				return
			}
			w.WriteHeader(http.StatusCreated)
			_, _ = fmt.Fprint(w, len(body))
		})
	})
	return srv.URL, reached
}

// A body whose Content-Length is over the limit is refused with 413 at
// once: the answer comes while the client has sent none of it, and no
// handler after the filter runs.
func TestBodyOverLimitRefusedBeforeReading(t *testing.T) {
	url, reached := bodyLimitServer(t)
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), waitLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	_, err = fmt.Fprintf(conn, "POST /api/v1/namespaces/ns/configmaps HTTP/1.1\r\nHost: test\r\nContent-Length: %d\r\n\r\n", 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body was sent: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if s := statusOf(t, resp, body); s.Reason != metav1.StatusReasonRequestEntityTooLarge || s.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d %s: %s, want 413 RequestEntityTooLarge", resp.StatusCode, s.Reason, body)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the handler ran %d times for a refused body", n)
	}
}

// A body of unknown length is counted as it is read: reading stops past
// the limit with *http.MaxBytesError, having read one byte more than the
// limit and no further, which the reader answers 413.
func TestChunkedBodyOverLimitStopsReading(t *testing.T) {
	url, _ := bodyLimitServer(t)
	resp, body := postChunked(t, url, 4<<20)
	if s := statusOf(t, resp, body); s.Reason != metav1.StatusReasonRequestEntityTooLarge {
		t.Fatalf("status %d %s: %s, want 413", resp.StatusCode, s.Reason, body)
	} else if want := fmt.Sprintf("read %d", testBodyLimit+1); !strings.Contains(s.Message, want) {
		t.Fatalf("the handler %q, want it to have %s bytes", s.Message, want)
	}
}

// Bodies within the limit, of known length or not, and requests without a
// body pass whole.
func TestBodyWithinLimitPasses(t *testing.T) {
	url, _ := bodyLimitServer(t)
	for _, n := range []int{0, testBodyLimit} {
		req, err := http.NewRequest(http.MethodPost, url+"/api/v1/namespaces/ns/configmaps", strings.NewReader(strings.Repeat("x", n)))
		if err != nil {
			t.Fatal(err)
		}
		resp, body := send(t, http.DefaultClient, req)
		if resp.StatusCode != http.StatusCreated || string(body) != fmt.Sprint(n) {
			t.Errorf("a body of %d bytes: %d %s", n, resp.StatusCode, body)
		}
	}
	resp, body := postChunked(t, url, testBodyLimit)
	if resp.StatusCode != http.StatusCreated || string(body) != fmt.Sprint(testBodyLimit) {
		t.Errorf("a chunked body at the limit: %d %s", resp.StatusCode, body)
	}
}

func TestBodyLimitMustBePositive(t *testing.T) {
	if _, err := WithRequestBodyLimit(0); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
}

// postChunked posts n bytes of unknown length, so the client sends them
// chunked.
func postChunked(t *testing.T, url string, n int) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/api/v1/namespaces/ns/configmaps",
		io.MultiReader(strings.NewReader(strings.Repeat("x", n))))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1
	return send(t, &http.Client{Timeout: waitLimit}, req)
}
