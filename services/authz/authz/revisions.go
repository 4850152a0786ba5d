package authz

import (
	"context"
	"sync"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
)

// policyRevisions is the service's one policy revision, over engines that
// each version their own policy differently (RBAC by the etcd revision of
// its objects, the Node graph likewise, a policy file by a count of its
// loads): it is the sum of theirs. Each only grows, so the sum grows with
// every change of any engine, and the aggregator's cache, which drops every
// answer older than the newest revision it hears of, drops them all. With
// RBAC alone the sum is RBAC's own revision, so replicas of the service
// still agree on it.
type policyRevisions struct {
	feed *revision.Feed

	mu    sync.Mutex
	slots []int64
	sum   int64
}

func newPolicyRevisions(feed *revision.Feed) *policyRevisions {
	return &policyRevisions{feed: feed}
}

// source gives one engine its share of the revision.
func (p *policyRevisions) source() revisionSource {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.slots = append(p.slots, 0)
	return revisionSource{p: p, slot: len(p.slots) - 1}
}

// current is the revision every policy loaded so far is at least as new
// as, and whether any engine versions its policy at all.
func (p *policyRevisions) current() (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sum, len(p.slots) > 0
}

// raise sets slot to rev when rev is higher, and publishes the new sum.
func (p *policyRevisions) raise(slot int, rev int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rev <= p.slots[slot] {
		return
	}
	p.sum += rev - p.slots[slot]
	p.slots[slot] = rev
	p.feed.Set(p.sum)
}

// bump moves slot one forward.
func (p *policyRevisions) bump(slot int) {
	p.mu.Lock()
	rev := p.slots[slot] + 1
	p.mu.Unlock()
	p.raise(slot, rev)
}

// revisionSource is one engine's share of the service's revision. An
// engine tells it of a new policy only once the policy answers, so that
// an answer is never labelled newer than the policy it came from.
type revisionSource struct {
	p    *policyRevisions
	slot int
}

// Set records the engine's policy revision (one that only grows, such as
// an etcd revision).
func (s revisionSource) Set(rev int64) { s.p.raise(s.slot, rev) }

// Bump records that the engine loaded a new policy.
func (s revisionSource) Bump() { s.p.bump(s.slot) }

// stamped labels every answer of a with the service's revision as it was
// before a was asked: the policies a used are at least that new. A chain
// of unversioned engines (AlwaysAllow, a Webhook) keeps its own answers'
// revisions.
func stamped(a authz.Authorizer, p *policyRevisions) authz.Authorizer {
	return authz.AuthorizerFunc(func(ctx context.Context, attrs authz.Attributes) (authz.Result, error) {
		rev, versioned := p.current()
		res, err := a.Authorize(ctx, attrs)
		if versioned {
			res.Revision = rev
		}
		return res, err
	})
}
