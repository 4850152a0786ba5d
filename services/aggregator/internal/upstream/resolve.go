package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
)

// Resolve looks up every DNS name of the upstream again and updates its
// endpoints: an address that appeared becomes an endpoint, checked at once
// and used once healthy; an address that disappeared is dropped. A lookup
// that fails keeps the name's previous addresses (a DNS blip must not empty
// the upstream; their health checks still apply), except "no such host",
// which is an answer: the name has no addresses now. The errors of failed
// lookups are returned, joined.
func (u *Upstream) Resolve(ctx context.Context) error {
	addrs, errs := u.lookupAll(ctx)
	added := u.apply(addrs)
	u.checkAll(ctx, added)
	return errors.Join(errs...)
}

// lookupAll resolves every source; a nil entry means "keep the previous
// addresses".
func (u *Upstream) lookupAll(ctx context.Context) ([][]string, []error) {
	addrs := make([][]string, len(u.sources))
	var errs []error
	for i, src := range u.sources {
		if src.isIP {
			addrs[i] = []string{src.host}
			continue
		}
		got, err := u.lookup(ctx, src.host)
		if err != nil {
			u.log.Warn("upstream lookup failed", "upstream", u.name, "host", src.host, "err", err)
			errs = append(errs, fmt.Errorf("upstream %q: resolving %s: %w", u.name, src.host, err))
			continue
		}
		addrs[i] = got
	}
	return addrs, errs
}

// lookup resolves one name, with "no such host" as an empty answer.
func (u *Upstream) lookup(ctx context.Context, host string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, u.checkTimeout)
	defer cancel()
	got, err := u.resolver.LookupHost(ctx, host)
	if dnsErr := (*net.DNSError)(nil); errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	got = slices.Clone(got)
	slices.Sort(got)
	return slices.Compact(got), nil
}

// apply makes the endpoints those of addrs, keeping the state of the ones
// that stay, and returns the URLs of the new ones.
func (u *Upstream) apply(addrs [][]string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	old := make(map[string]*endpoint, len(u.eps))
	for _, ep := range u.eps {
		old[ep.url.String()] = ep
	}
	seen := map[string]bool{}
	var eps []*endpoint
	var added []string
	for i, src := range u.sources {
		if addrs[i] != nil {
			u.resolved[i] = addrs[i]
		}
		for _, addr := range u.resolved[i] {
			ep := u.endpointFor(src, addr, old)
			key := ep.url.String()
			if seen[key] {
				continue
			}
			seen[key] = true
			if old[key] == nil {
				added = append(added, key)
			}
			eps = append(eps, ep)
		}
	}
	u.eps = eps
	u.publish()
	return added
}

// endpointFor returns the existing endpoint for addr of src, or a new one
// that has not been checked yet.
func (u *Upstream) endpointFor(src source, addr string, old map[string]*endpoint) *endpoint {
	target := src.endpointURL(addr)
	if ep := old[target.String()]; ep != nil {
		return ep
	}
	ep := &endpoint{url: target, err: errNotChecked}
	if !src.isIP {
		ep.serverName = src.host
	}
	return ep
}

// checkAll checks the endpoints whose URLs are keys, concurrently, and
// records the outcomes.
func (u *Upstream) checkAll(ctx context.Context, keys []string) {
	var wg sync.WaitGroup
	for _, key := range keys {
		wg.Go(func() { u.setHealth(key, u.probe(ctx, key)) })
	}
	wg.Wait()
}
