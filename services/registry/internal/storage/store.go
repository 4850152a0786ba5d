package storage

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// maxUpdateAttempts bounds the retries of an update that keeps losing the
// race for its key.
const maxUpdateAttempts = 32

// Store keeps the objects of one resource.
type Store struct {
	info   *resource.Info
	client *clientv3.Client
	cache  *cache
	revs   *revisions
	leases *leases // nil unless objects expire
	stop   func()  // ends the cache of a closable store (see Close)
	// versions keeps objects at another version than the one served.
	versions *versions
	etcd     etcdTimers
	lists    *byteBudget // see listbudget.go
}

// Info describes the resource the store keeps.
func (s *Store) Info() *resource.Info { return s.info }

// UpdateFunc computes an object's next state from its current one, which it
// must not modify. It may be called again with a fresher state when another
// writer got there first.
type UpdateFunc func(cur *Object) (*unstructured.Unstructured, error)

// Create writes a new object. With dryRun, nothing is written and the object
// is returned as it would have been stored.
func (s *Store) Create(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*Object, error) {
	key := s.info.Key(obj.GetNamespace(), obj.GetName())
	data, err := s.versions.encode(obj)
	if err != nil {
		return nil, err
	}
	if dryRun {
		// etcd, not the cache, which may not yet hold a write just made.
		switch _, err := s.read(ctx, key, obj.GetName()); {
		case err == nil:
			return nil, apierrors.NewAlreadyExists(s.groupResource(), obj.GetName())
		case !apierrors.IsNotFound(err):
			return nil, err
		}
		return dryRunObject(obj)
	}
	put, err := s.put(ctx, key, data)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(put).Commit()
	since(s.etcd.create, start)
	if err != nil {
		return nil, writeError(err, len(data))
	}
	if !resp.Succeeded {
		return nil, apierrors.NewAlreadyExists(s.groupResource(), obj.GetName())
	}
	return NewObject(obj, resp.Header.Revision)
}

// Update rewrites an object with the state try computes, retrying on a
// concurrent write. An update that changes nothing writes nothing. An object
// marked for deletion whose finalizers are all gone is deleted instead.
func (s *Store) Update(ctx context.Context, namespace, name string, try UpdateFunc, dryRun bool) (*Object, error) {
	key := s.info.Key(namespace, name)
	cur, _ := s.cache.get(key)
	fromCache := cur != nil
	if cur == nil {
		var err error
		if cur, err = s.read(ctx, key, name); err != nil {
			return nil, err
		}
	}
	for attempt := 0; attempt < maxUpdateAttempts; attempt++ {
		next, err := try(cur)
		if err != nil {
			if fromCache && apierrors.IsConflict(err) {
				// The cache may lag a write made through another replica.
				fromCache = false
				if cur, err = s.read(ctx, key, name); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		stale := fromCache
		fromCache = false
		if cur.unchanged(next) {
			if stale {
				// A no-op only against the cache's copy, which may lag a
				// write made through another replica: ask etcd.
				if cur, err = s.read(ctx, key, name); err != nil {
					return nil, err
				}
				continue
			}
			return cur, nil
		}
		data, err := s.versions.encode(next)
		if err != nil {
			return nil, err
		}
		if dryRun {
			return dryRunObject(next)
		}
		var op clientv3.Op
		if s.finalized(next) {
			op = clientv3.OpDelete(key)
		} else if op, err = s.put(ctx, key, data); err != nil {
			return nil, err
		}
		start := time.Now()
		resp, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", cur.Rev)).
			Then(op).Else(clientv3.OpGet(key)).Commit()
		since(s.etcd.update, start)
		if err != nil {
			return nil, writeError(err, len(data))
		}
		if resp.Succeeded {
			return NewObject(next, resp.Header.Revision)
		}
		if cur, err = s.fromElse(resp, name); err != nil {
			return nil, err
		}
	}
	return nil, apierrors.NewConflict(s.groupResource(), name, errors.New("too many concurrent writers"))
}

// Delete removes an object once check accepts its current state (the
// caller's preconditions). It returns the last state, stamped with the
// revision of the delete.
func (s *Store) Delete(ctx context.Context, namespace, name string, check func(cur *Object) error, dryRun bool) (*Object, error) {
	key := s.info.Key(namespace, name)
	cur, err := s.read(ctx, key, name)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < maxUpdateAttempts; attempt++ {
		if err := check(cur); err != nil {
			return nil, err
		}
		if dryRun {
			return cur, nil
		}
		start := time.Now()
		resp, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", cur.Rev)).
			Then(clientv3.OpDelete(key)).Else(clientv3.OpGet(key)).Commit()
		since(s.etcd.delete, start)
		if err != nil {
			return nil, storageError(err)
		}
		if resp.Succeeded {
			return cur.withRevision(resp.Header.Revision)
		}
		if cur, err = s.fromElse(resp, name); err != nil {
			return nil, err
		}
	}
	return nil, apierrors.NewConflict(s.groupResource(), name, errors.New("too many concurrent writers"))
}

// finalized reports whether obj is marked for deletion with nothing left to
// hold it back.
func (s *Store) finalized(obj *unstructured.Unstructured) bool {
	if obj.GetDeletionTimestamp() == nil || len(obj.GetFinalizers()) > 0 {
		return false
	}
	if g := obj.GetDeletionGracePeriodSeconds(); g != nil && *g > 0 {
		return false // a graceful deletion: its kubelet deletes it
	}
	if s.info.SpecFinalizers {
		f, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "finalizers")
		return len(f) == 0
	}
	return true
}

// read gets an object straight from etcd.
func (s *Store) read(ctx context.Context, key, name string) (*Object, error) {
	defer since(s.etcd.get, time.Now())
	resp, err := s.client.Get(ctx, key)
	if err != nil {
		return nil, storageError(err)
	}
	if len(resp.Kvs) == 0 {
		return nil, apierrors.NewNotFound(s.groupResource(), name)
	}
	return s.versions.decode(resp.Kvs[0].Value, resp.Kvs[0].ModRevision)
}

// fromElse reads the current state from the Else branch of a failed
// compare-and-swap.
func (s *Store) fromElse(resp *clientv3.TxnResponse, name string) (*Object, error) {
	kvs := resp.Responses[0].GetResponseRange().Kvs
	if len(kvs) == 0 {
		return nil, apierrors.NewNotFound(s.groupResource(), name)
	}
	return s.versions.decode(kvs[0].Value, kvs[0].ModRevision)
}

// put is the write of data at key, with a lease when objects expire.
func (s *Store) put(ctx context.Context, key string, data []byte) (clientv3.Op, error) {
	if s.leases == nil {
		return clientv3.OpPut(key, string(data)), nil
	}
	id, err := s.leases.get(ctx)
	if err != nil {
		return clientv3.Op{}, storageError(err)
	}
	return clientv3.OpPut(key, string(data), clientv3.WithLease(id)), nil
}

// dryRunObject is what a dry run returns: the object as it would have been
// stored, its resourceVersion left as the caller sent it.
func dryRunObject(obj *unstructured.Unstructured) (*Object, error) {
	out, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	return &Object{JSON: out, name: obj.GetName(), namespace: obj.GetNamespace(), labels: obj.GetLabels()}, nil
}

func (s *Store) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: s.info.Group, Resource: s.info.Resource}
}
