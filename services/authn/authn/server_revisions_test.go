package authn

import (
	"context"
	"github.com/kubesplit/kubesplit/pkg/revision/revisiontest"
	"net/http"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/revision"
)

// TestServerRevisionsFollowDeletions: the aggregator's stream (and only
// its) counts ServiceAccount deletions, and Close ends it.
func TestServerRevisionsFollowDeletions(t *testing.T) {
	s, signer, client := testServer(t)
	waitReady(t, s)
	req, _ := http.NewRequest(http.MethodGet, s.URL()+revision.Path, nil)
	if code, body := do(t, req); code != http.StatusUnauthorized {
		t.Errorf("stream without assertion = %d %s, want 401", code, body)
	}
	signed := &http.Client{Transport: signer.Transport(http.DefaultTransport, authenticationv1.UserInfo{Username: "agg"}, Audience)}
	resp, err := signed.Get(s.URL() + revision.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := revisiontest.Lines(resp.Body)
	if rev, _ := revisiontest.Next(t, lines); rev != 0 {
		t.Fatalf("first line = %d, want 0", rev)
	}
	if err := client.CoreV1().ServiceAccounts("default").Delete(context.Background(), "robot", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if rev, _ := revisiontest.Next(t, lines); rev != 1 {
		t.Fatalf("after deleting robot = %d, want 1", rev)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	if _, ok := revisiontest.Next(t, lines); ok {
		t.Fatal("stream still open after Close")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on the stream")
	}
}
