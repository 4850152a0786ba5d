package admission

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// answering serves code and body, with $UID in body replaced by the uid of
// the review it answers, so that an answer is for the request unless the
// case says otherwise.
func answering(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		out := body
		if err := json.NewDecoder(r.Body).Decode(&review); err == nil && review.Request != nil {
			out = strings.ReplaceAll(out, "$UID", string(review.Request.UID))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(out))
	}
}

// answer is an AdmissionReview answer whose response has the given JSON
// fields after uid.
func answer(fields string) string {
	return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"$UID"` + fields + `}}`
}

// redirecting sends the review elsewhere, where a GET is allowed: a client
// following the redirect would turn the POST into that GET.
func redirecting() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/admit", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	mux.Handle("/elsewhere", answering(200, answer(`,"allowed":true`)))
	return mux
}

func clientFor(t *testing.T, h http.Handler) *WebhookClient {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewWebhookClient(WebhookConfig{URL: srv.URL + "/admit", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWebhookBadAnswersNeverAllow: every answer the client cannot trust is
// an error with no result.
func TestWebhookBadAnswersNeverAllow(t *testing.T) {
	// "eyJ9" is base64 for a JSON patch that is not one; W10= is "[]".
	addLabel := `"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscy94IiwidmFsdWUiOiJ5In1d"`
	cases := []struct {
		name string
		h    http.Handler
		want error
	}{
		{"500", answering(500, answer(`,"allowed":true`)), ErrUnavailable},
		{"403", answering(403, answer(`,"allowed":true`)), ErrUnavailable},
		{"redirect", redirecting(), ErrUnavailable},
		{"not JSON", answering(200, "<html>allowed</html>"), ErrMalformedReview},
		{"empty", answering(200, ""), ErrMalformedReview},
		{"no type", answering(200, `{"response":{"uid":"$UID","allowed":true}}`), ErrMalformedReview},
		{"v1beta1", answering(200, strings.Replace(answer(`,"allowed":true`), "/v1", "/v1beta1", 1)), ErrMalformedReview},
		{"another kind", answering(200, strings.Replace(answer(`,"allowed":true`), "AdmissionReview", "TokenReview", 1)), ErrMalformedReview},
		{"no response", answering(200, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), ErrMalformedReview},
		{"uid mismatch", answering(200, strings.Replace(answer(`,"allowed":true`), "$UID", "another-request", 1)), ErrMalformedReview},
		{"no uid", answering(200, strings.Replace(answer(`,"allowed":true`), "$UID", "", 1)), ErrMalformedReview},
		{"patch without patchType", answering(200, answer(`,"allowed":true,"patch":`+addLabel)), ErrMalformedReview},
		{"patchType without patch", answering(200, answer(`,"allowed":true,"patchType":"JSONPatch"`)), ErrMalformedReview},
		{"merge patch", answering(200, answer(`,"allowed":true,"patchType":"MergePatch","patch":`+addLabel)), ErrMalformedReview},
		{"patch is not a JSON patch", answering(200, answer(`,"allowed":true,"patchType":"JSONPatch","patch":"eyJ9"`)), ErrMalformedReview},
		{"patch is not base64", answering(200, answer(`,"allowed":true,"patchType":"JSONPatch","patch":"[]"`)), ErrMalformedReview},
		{"too large", answering(200, answer(`,"allowed":true`)+strings.Repeat(" ", MaxReviewBytes)), ErrMalformedReview},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			attrs := write(admissionv1.Create, pod(), nil)
			res, err := clientFor(t, c.h).Admit(context.Background(), &attrs)
			if !errors.Is(err, c.want) || res != nil {
				t.Errorf("got %+v, %v; want no result and %v", res, err, c.want)
			}
		})
	}
}

func TestWebhookReadsAnswers(t *testing.T) {
	// kube's dispatcher takes any 2xx; an empty JSON patch is no patch.
	h := answering(201, answer(`,"allowed":true,"patchType":"JSONPatch","patch":"W10=","warnings":["w"]`))
	attrs := write(admissionv1.Create, pod(), nil)
	res, err := clientFor(t, h).Admit(context.Background(), &attrs)
	if err != nil || !res.Allowed || string(res.Patch) != "[]" || len(res.Warnings) != 1 {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// TestWebhookSendsAFreshUID: each review has its own uid, so that an answer
// to another one (a confused or replaying webhook) is rejected.
func TestWebhookSendsAFreshUID(t *testing.T) {
	var uids []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&review) != nil ||
			review.TypeMeta != reviewTypeMeta || review.Request == nil {
			http.Error(w, "bad review", 400)
			return
		}
		uids = append(uids, string(review.Request.UID))
		_, _ = w.Write([]byte(strings.Replace(answer(`,"allowed":true`), "$UID", string(review.Request.UID), 1)))
	})
	c := clientFor(t, h)
	for range 2 {
		attrs := write(admissionv1.Create, pod(), nil)
		if _, err := c.Admit(context.Background(), &attrs); err != nil {
			t.Fatal(err)
		}
	}
	if len(uids) != 2 || uids[0] == "" || uids[0] == uids[1] {
		t.Errorf("uids %q", uids)
	}
}

// newSlowServer never answers, until the client goes away or the test
// ends.
func newSlowServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		// The server only notices the client leaving once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}

// TestWebhookFailsClosed: a webhook that is down or slow is an error, and a
// chain holding it, as the registry does, answers nothing.
func TestWebhookFailsClosed(t *testing.T) {
	down := httptest.NewServer(NewAdmissionReviewHandler(allowAll))
	downURL := down.URL
	down.Close()

	slow := newSlowServer(t)

	for name, url := range map[string]string{"down": downURL, "slow": slow.URL} {
		c, err := NewWebhookClient(WebhookConfig{URL: url, Timeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		attrs := write(admissionv1.Create, pod(), nil)
		if res, err := c.Admit(context.Background(), &attrs); !errors.Is(err, ErrUnavailable) || res != nil {
			t.Errorf("%s: got %+v, %v; want ErrUnavailable", name, res, err)
		}
		chain := mustChain(t, Mutating(c), requireLabel("team"))
		if res, err := chain.Admit(context.Background(), &attrs); !errors.Is(err, ErrUnavailable) || res != nil {
			t.Errorf("%s: chain got %+v, %v; want ErrUnavailable", name, res, err)
		}
	}
}

func TestWebhookHonoursCallerDeadline(t *testing.T) {
	slow := newSlowServer(t)
	c, err := NewWebhookClient(WebhookConfig{URL: slow.URL, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	attrs := write(admissionv1.Create, pod(), nil)
	if res, err := c.Admit(ctx, &attrs); !errors.Is(err, ErrUnavailable) || res != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestNewWebhookClientValidates(t *testing.T) {
	for _, cfg := range []WebhookConfig{
		{},
		{URL: "admission:8443/admit"},
		{URL: "ftp://admission/"},
		{URL: "https://"},
		{URL: "https://admission", Timeout: -time.Second},
	} {
		if _, err := NewWebhookClient(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: error %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
