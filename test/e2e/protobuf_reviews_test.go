package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// mediaTypes records, per review resource, the Content-Type of what
// client-go sent and of what came back, to prove the reviews travelled as
// protobuf and not through some JSON fallback.
type mediaTypes struct {
	mu   sync.Mutex
	seen map[string][2]string
}

// recording is client-go's transport, recording into seen.
type recording struct {
	next http.RoundTripper
	seen *mediaTypes
}

func (r recording) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	resource := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
	r.seen.mu.Lock()
	defer r.seen.mu.Unlock()
	r.seen.seen[resource] = [2]string{req.Header.Get("Content-Type"), resp.Header.Get("Content-Type")}
	return resp, nil
}

func (m *mediaTypes) of(resource string) [2]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[resource]
}

// reviewerUser is a static-token user both the aggregator and authn know,
// so that a TokenReview of its token, which authn answers, recognises it.
// The admin's token is only in the aggregator's token file, which
// StartStack does not give authn.
const reviewerUser = `reviewer-token-0123456789,reviewer,uid-reviewer,"auditors"`

// TestReviewsInProtobufThroughAggregator: client-go's typed clients, which
// send built-in kinds as protobuf by default, create SubjectAccessReviews
// and TokenReviews through the aggregator of the whole split stack, and
// get protobuf answers with the same decisions JSON clients get.
func TestReviewsInProtobufThroughAggregator(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "authn-tokens.csv")
	if err := os.WriteFile(tokens, []byte(reviewerUser+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := framework.StartStack(t, framework.StackOptions{
		Users: []string{reviewerUser},
		Args:  map[string][]string{framework.StageAuthn: {"--token-auth-file", tokens}},
	})
	cfg := s.RESTConfig(t, s.AdminToken)
	record := &mediaTypes{seen: map[string][2]string{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recording{next: rt, seen: record} })
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	protobuf := [2]string{runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf}

	t.Run("SubjectAccessReview", func(t *testing.T) {
		cases := []struct {
			user    string
			groups  []string
			allowed bool
		}{
			{"nobody", nil, false},
			{"root", []string{"system:masters"}, true},
		}
		for _, c := range cases {
			got, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx(t), &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: c.user, Groups: c.groups,
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "delete", Resource: "secrets"}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s: %v", c.user, err)
			}
			if got.Status.Allowed != c.allowed || got.Spec.User != c.user {
				t.Errorf("%s: status %+v, spec user %q; want allowed %v", c.user, got.Status, got.Spec.User, c.allowed)
			}
			if m := record.of("subjectaccessreviews"); m != protobuf {
				t.Errorf("%s: sent %q, answered %q; want protobuf both ways", c.user, m[0], m[1])
			}
		}
	})

	t.Run("TokenReview", func(t *testing.T) {
		got, err := admin.AuthenticationV1().TokenReviews().Create(ctx(t), &authenticationv1.TokenReview{
			Spec: authenticationv1.TokenReviewSpec{Token: strings.Split(reviewerUser, ",")[0]},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Status.Authenticated || got.Status.User.Username != "reviewer" || !slices.Contains(got.Status.User.Groups, "auditors") {
			t.Errorf("status %+v, want authenticated reviewer in auditors", got.Status)
		}
		if m := record.of("tokenreviews"); m != protobuf {
			t.Errorf("sent %q, answered %q; want protobuf both ways", m[0], m[1])
		}
	})
}
