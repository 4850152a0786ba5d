package authz

import (
	"context"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
)

// TestPolicyRevisionsSum: the service's revision is the sum of its
// engines', moves with a change of any, never goes back, and is what the
// answers carry.
func TestPolicyRevisionsSum(t *testing.T) {
	feed := revision.NewFeed()
	p := newPolicyRevisions(feed)
	a := stamped(authz.AlwaysAllow(), p)
	if res, _ := a.Authorize(context.Background(), authz.Attributes{}); res.Revision != 0 {
		t.Errorf("unversioned chain's answer at %d, want 0", res.Revision)
	}
	rbac, file := p.source(), p.source()
	rbac.Set(40)
	file.Bump()
	file.Bump()
	rbac.Set(30) // older: ignored
	if rev, _ := feed.Current(); rev != 42 {
		t.Errorf("feed at %d, want 40+2", rev)
	}
	if res, _ := a.Authorize(context.Background(), authz.Attributes{}); res.Revision != 42 {
		t.Errorf("answer at %d, want 42", res.Revision)
	}
	rbac.Set(41)
	if rev, _ := feed.Current(); rev != 43 {
		t.Errorf("feed at %d, want 41+2", rev)
	}
}
