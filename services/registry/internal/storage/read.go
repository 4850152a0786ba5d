package storage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadOptions say how fresh a read must be, as kube's resourceVersion and
// resourceVersionMatch parameters do.
type ReadOptions struct {
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
}

// ListOptions are a list's selectors, page and freshness.
type ListOptions struct {
	ReadOptions
	Selector
	Limit    int64
	Continue string
}

// ListResult is one page of a list.
type ListResult struct {
	Items     []*Object
	Rev       int64
	Continue  string
	Remaining *int64
	// release gives back the list budget the items hold (listbudget.go).
	release func()
}

// Release says the caller is done with the items, whose memory then no
// longer counts against the lists in flight. Every caller of List calls it.
func (r *ListResult) Release() {
	if r.release != nil {
		r.release()
		r.release = nil
	}
}

// Get returns one object. Without a resourceVersion it is a consistent
// read: it waits until the cache holds every write made before the call.
func (s *Store) Get(ctx context.Context, namespace, name string, opts ReadOptions) (*Object, error) {
	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact {
		return nil, apierrors.NewBadRequest("resourceVersionMatch is not allowed on get")
	}
	if err := s.waitFor(ctx, opts.ResourceVersion, rv); err != nil {
		return nil, err
	}
	obj, _ := s.cache.get(s.info.Key(namespace, name))
	if obj == nil {
		return nil, apierrors.NewNotFound(s.groupResource(), name)
	}
	return obj, nil
}

// query reads what a list or watch asks for: its resourceVersion, and the
// filter of its namespace and selectors.
func (s *Store) query(namespace string, opts ReadOptions, sel Selector) (int64, filter, error) {
	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return 0, filter{}, err
	}
	match, err := sel.matcher(s.info)
	if err != nil {
		return 0, filter{}, err
	}
	return rv, filter{prefix: s.info.NamespacePrefix(namespace), match: match}, nil
}

// waitFor makes the cache fresh enough for a read at resourceVersion:
// current for "", as it stands for "0", at least rv otherwise.
func (s *Store) waitFor(ctx context.Context, resourceVersion string, rv int64) error {
	switch resourceVersion {
	case "0":
		return s.cache.waitUntil(ctx, 0, s.revs.requestProgress)
	case "":
		cur, err := s.revs.current(ctx)
		if err != nil {
			return storageError(err)
		}
		rv = cur
	}
	return s.cache.waitUntil(ctx, rv, s.revs.requestProgress)
}

// List returns the objects in namespace ("" for all) that match. Pages
// (limit/continue) and exact resourceVersions are read from etcd at one
// revision, so every page is of the same snapshot; other lists come from
// the cache.
func (s *Store) List(ctx context.Context, namespace string, opts ListOptions) (*ListResult, error) {
	rv, f, err := s.query(namespace, opts.ReadOptions, opts.Selector)
	if err != nil {
		return nil, err
	}
	prefix, match := f.prefix, f.match
	switch {
	case opts.Continue != "":
		return s.listEtcd(ctx, prefix, opts, match)
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact:
		if rv == 0 {
			return nil, apierrors.NewBadRequest("resourceVersionMatch=Exact needs a resourceVersion other than 0")
		}
		return s.listEtcd(ctx, prefix, opts, match)
	case opts.Limit > 0 && opts.ResourceVersion == "":
		return s.listEtcd(ctx, prefix, opts, match)
	}
	if err := s.waitFor(ctx, opts.ResourceVersion, rv); err != nil {
		return nil, err
	}
	items, cacheRev := s.cache.list(prefix, match)
	return &ListResult{Items: items, Rev: cacheRev}, nil
}

// continueToken is the opaque continue value: the revision of the
// snapshot and the key to start the next page at.
type continueToken struct {
	APIVersion string `json:"v"`
	Rev        int64  `json:"rv"`
	Start      string `json:"start"`
}

func encodeContinue(rev int64, start string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", Rev: rev, Start: start})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil || t.APIVersion != "meta.k8s.io/v1" || t.Rev == 0 || t.Rev < -1 {
		return t, apierrors.NewBadRequest("continue key is not valid")
	}
	return t, nil
}

// listEtcd reads one page from etcd at a fixed revision.
func (s *Store) listEtcd(ctx context.Context, prefix string, opts ListOptions, match func(*Object) bool) (*ListResult, error) {
	start, rev := prefix, int64(0)
	if opts.Continue != "" {
		t, err := decodeContinue(opts.Continue)
		if err != nil {
			return nil, err
		}
		start, rev = prefix+t.Start, max(t.Rev, 0) // -1: at the latest revision
	} else if opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact {
		rev, _ = parseRV(opts.ResourceVersion)
	}
	res := &ListResult{}
	var held int64 // list budget taken for the items
	overBudget := false
	next := "" // where the next page starts, when there is one
	batch := opts.Limit
	if batch <= 0 || batch > 1000 {
		batch = 1000
	}
	defer since(s.etcd.list, time.Now())
	rev, err := scan(ctx, s.client, start, clientv3.GetPrefixRangeEnd(prefix), rev, batch,
		func(kv *mvccpb.KeyValue, more bool, left int64) bool {
			obj, err := s.versions.decode(kv.Value, kv.ModRevision)
			if err != nil || !match(obj) {
				return false
			}
			if !s.lists.take(int64(len(obj.JSON)), held) {
				overBudget = true
				return true
			}
			held += int64(len(obj.JSON))
			res.Items = append(res.Items, obj)
			if opts.Limit == 0 || int64(len(res.Items)) < opts.Limit {
				return false
			}
			if more {
				next = string(kv.Key[len(prefix):]) + "\x00"
				if opts.Selector.Empty() {
					res.Remaining = &left
				}
			}
			return true
		})
	res.release = func() { s.lists.give(held) }
	switch {
	case err != nil:
		res.Release()
		return nil, listError(err, opts.Continue != "", rev, start[len(prefix):])
	case overBudget:
		res.Release()
		return nil, errListBudget()
	}
	res.Rev = rev
	if next != "" {
		res.Continue = encodeContinue(rev, next)
	}
	return res, nil
}

// listError explains why etcd refused a read at a fixed revision. A
// continued list whose revision was compacted away is kube's 410 carrying
// a token that continues from the same key at the latest revision (rv
// -1), so a client may finish the list, inconsistently, as kube lets it.
func listError(err error, continued bool, rev int64, start string) error {
	switch {
	case err == rpctypes.ErrCompacted && continued:
		gone := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter, or use the continue token in this response to retrieve " +
			"the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that " +
			"were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
		gone.ErrStatus.ListMeta.Continue = encodeContinue(-1, start)
		return gone
	case err == rpctypes.ErrCompacted:
		return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", rev))
	case err == rpctypes.ErrFutureRev:
		return apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d", rev), 1)
	}
	return storageError(err)
}

// parseRV reads a resourceVersion parameter.
func parseRV(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseInt(s, 10, 64)
	if err != nil || rv < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", s))
	}
	return rv, nil
}

// Holds reports whether namespace holds at least one object, from the
// cache as it stands; known is false until the cache has filled.
func (s *Store) Holds(namespace string) (holds, known bool) {
	if !s.Ready() {
		return false, false
	}
	return s.cache.any(s.info.NamespacePrefix(namespace)), true
}
