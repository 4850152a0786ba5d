package authz

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
)

// engineCase is one review and the decision an engine owes it; failed
// says the answer also carries an evaluation error (a webhook that could
// not be asked).
type engineCase struct {
	name   string
	a      authz.Attributes
	want   authz.Decision
	failed bool
}

// checkBoth asks every case of e's chain twice: in process, and through
// the service's HTTP SubjectAccessReview handler as the aggregator does.
func checkBoth(t *testing.T, e engines, cases []engineCase) {
	t.Helper()
	url, client := selfServer(t, e)
	overHTTP, err := authz.NewWebhookClient(authz.WebhookConfig{URL: url + authz.SubjectAccessReviewPath, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for via, a := range map[string]authz.Authorizer{"in process": e.authorizer, "over HTTP": overHTTP} {
			res, err := a.Authorize(context.Background(), c.a)
			if (err != nil) != c.failed {
				t.Errorf("%s, %s: error %v, want one: %v", c.name, via, err, c.failed)
			}
			if res.Decision != c.want {
				t.Errorf("%s, %s: %v (%q), want %v", c.name, via, res.Decision, res.Reason, c.want)
			}
		}
	}
}

// decision asks a in process.
func decision(t *testing.T, a authz.Authorizer, attrs authz.Attributes) authz.Decision {
	t.Helper()
	res, err := a.Authorize(context.Background(), attrs)
	if err != nil {
		t.Fatal(err)
	}
	return res.Decision
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	// Written aside and renamed in, as an editor or a ConfigMap volume
	// does, so the watch never reads half a file.
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// buildTest builds cfg's chain for the test's lifetime, publishing on feed.
func buildTest(t *testing.T, cfg Config, feed *revision.Feed) (engines, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return buildChain(ctx, cfg.withDefaults(), feed)
}

// waitForDecision waits until a answers attrs with want, and returns how
// long that took.
func waitForDecision(t *testing.T, a authz.Authorizer, attrs authz.Attributes, want authz.Decision) time.Duration {
	t.Helper()
	start := time.Now()
	for deadline := start.Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if decision(t, a, attrs) == want {
			return time.Since(start)
		}
	}
	t.Fatalf("still not %v after 5s", want)
	return 0
}

func user(name string, groups ...string) authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: name, Groups: groups}
}

func resourceReq(u authenticationv1.UserInfo, verb, ns, resource, name string) authz.Attributes {
	return authz.Attributes{User: u, Verb: verb, Namespace: ns, Resource: resource, Name: name, ResourceRequest: true, APIVersion: "v1"}
}
