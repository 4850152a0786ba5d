package observe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/metrics"
)

// api is an API server as a backend's Guard sees it: TokenReviews answered
// from a token file, SubjectAccessReviews by a rule that lets group
// "monitoring" get /metrics, both real handlers over HTTP; it counts the
// reviews it answers.
type api struct {
	*httptest.Server
	reviews atomic.Int32
}

func startAPI(t *testing.T) *api {
	t.Helper()
	file := t.TempDir() + "/tokens.csv"
	tokens := "monitor-token,monitor,uid-1,\"monitoring\"\nother-token,other,uid-2,\"others\"\n"
	if err := os.WriteFile(file, []byte(tokens), 0o600); err != nil {
		t.Fatal(err)
	}
	tf, err := authn.NewTokenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rule := authz.AuthorizerFunc(func(_ context.Context, a authz.Attributes) (authz.Result, error) {
		for _, g := range a.User.Groups {
			if g == "monitoring" && !a.ResourceRequest && a.Verb == "get" && a.Path == MetricsPath {
				return authz.Result{Decision: authz.DecisionAllow}, nil
			}
		}
		return authz.Result{Decision: authz.DecisionNoOpinion}, nil
	})
	a := &api{}
	mux := http.NewServeMux()
	mux.Handle(authn.TokenReviewPath, authn.NewTokenReviewHandler(tf))
	mux.Handle(authz.SubjectAccessReviewPath, authz.NewSubjectAccessReviewHandler(rule))
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.reviews.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func guarded(t *testing.T, d Delegate) http.Handler {
	t.Helper()
	guard, err := Guard(d)
	if err != nil {
		t.Fatal(err)
	}
	return Endpoints(metrics.NewRegistry(), guard)(http.NotFoundHandler())
}

func request(t *testing.T, h http.Handler, path, token string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// Guard lets through exactly the readers the API vouches for, for the path
// they may read.
func TestGuardAsksTheAPI(t *testing.T) {
	a := startAPI(t)
	h := guarded(t, Delegate{URL: a.URL, Client: a.Client()})
	cases := []struct {
		path, token string
		code        int
	}{
		{MetricsPath, "", http.StatusUnauthorized},
		{MetricsPath, "not-a-token", http.StatusUnauthorized},
		{MetricsPath, "other-token", http.StatusForbidden},
		{ProfilePath, "monitor-token", http.StatusForbidden},
		{MetricsPath, "monitor-token", http.StatusOK},
	}
	for _, c := range cases {
		if rec := request(t, h, c.path, c.token); rec.Code != c.code {
			t.Errorf("%s with %q: %d, want %d: %s", c.path, c.token, rec.Code, c.code, rec.Body)
		}
	}
	if rec := request(t, h, MetricsPath, "monitor-token"); !strings.Contains(rec.Body.String(), "go_goroutines") {
		t.Errorf("/metrics served no Go runtime metrics: %.200s", rec.Body)
	}
	// Paths that are not the guard's go on, unguarded.
	if rec := request(t, h, "/api", ""); rec.Code != http.StatusNotFound {
		t.Errorf("/api: %d, want the next handler's 404", rec.Code)
	}
}

// Answers are reused for CacheTTL, so a scraper every few seconds costs
// the API one review pair, not one per scrape.
func TestGuardCachesAnswers(t *testing.T) {
	a := startAPI(t)
	h := guarded(t, Delegate{URL: a.URL, Client: a.Client()})
	request(t, h, MetricsPath, "monitor-token")
	asked := a.reviews.Load()
	if asked != 2 {
		t.Fatalf("the first scrape asked %d reviews, want a TokenReview and a SubjectAccessReview", asked)
	}
	for range 3 {
		if rec := request(t, h, MetricsPath, "monitor-token"); rec.Code != http.StatusOK {
			t.Fatalf("scrape again: %d", rec.Code)
		}
	}
	if got := a.reviews.Load(); got != asked {
		t.Errorf("three more scrapes asked %d more reviews, want 0", got-asked)
	}
}

// An API that cannot answer is a 503 with Retry-After, never a pass; a
// backend without an API lets nobody in.
func TestGuardFailsClosed(t *testing.T) {
	a := startAPI(t)
	h := guarded(t, Delegate{URL: a.URL, Client: a.Client()})
	a.Close()
	rec := request(t, h, MetricsPath, "monitor-token")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("API down: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	none := guarded(t, Delegate{})
	if rec := request(t, none, MetricsPath, "monitor-token"); rec.Code != http.StatusForbidden {
		t.Errorf("no API: %d, want 403", rec.Code)
	}
}
