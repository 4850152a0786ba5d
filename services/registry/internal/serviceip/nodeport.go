package serviceip

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// NodePortPrefix is where node ports are held in etcd: one key a port,
// /registry/ranges/servicenodeports/<port>, whose value names the Service
// holding it. A key is written only if absent (an etcd transaction
// comparing its create revision with 0), so a port is never two Services',
// whichever replica allocates it; allocations of different ports never
// conflict, unlike one bitmap every allocation rewrites; and a release or a
// repair acts on one port knowing whose it is.
const NodePortPrefix = "/registry/ranges/servicenodeports/"

// kube's node port allocation errors.
var (
	errPortAllocated = errors.New("provided port is already allocated")
	errPortFull      = errors.New("range is full")
)

// portNotInRangeError is kube's answer to a port outside the range.
type portNotInRangeError struct{ valid string }

func (e *portNotInRangeError) Error() string {
	return fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %s", e.valid)
}

// portHolder is the value of a node port's key.
type portHolder struct {
	owner
	// Created is when the port was taken: repair leaves a young key
	// without its Service alone, as it may belong to a write in flight.
	Created time.Time `json:"created"`
}

func portKey(port int) string { return NodePortPrefix + strconv.Itoa(port) }

// allocatePort takes port for the Service o.
func (a *Allocator) allocatePort(ctx context.Context, o owner, port int) error {
	if !a.nodePorts.Contains(port) {
		return &portNotInRangeError{valid: a.nodePorts.String()}
	}
	ok, err := a.createPortKey(ctx, o, port)
	if err != nil {
		return err
	}
	if !ok {
		return errPortAllocated
	}
	return nil
}

// allocateNextPort takes a free port for the Service o, kube's way: from a
// random place of the range's upper band first, skipping the ports taken.
func (a *Allocator) allocateNextPort(ctx context.Context, o owner) (int, error) {
	used, err := a.usedPorts(ctx)
	if err != nil {
		return 0, err
	}
	var got int
	done, err := scan(uint64(a.nodePorts.Size), portRangeOffset(a.nodePorts.Size), func(i uint64) (bool, error) {
		port := a.nodePorts.Base + int(i)
		if used[port] {
			return false, nil
		}
		ok, err := a.createPortKey(ctx, o, port)
		got = port
		return ok, err
	})
	if err != nil {
		return 0, err
	}
	if !done {
		return 0, errPortFull
	}
	return got, nil
}

// portRangeOffset is kube's size of the node ports' static band:
// min(max(16, size/32), 128), none for 16 ports or fewer.
func portRangeOffset(size int) uint64 {
	return staticBand(uint64(size), 32, 128)
}

// createPortKey writes port's key for o unless it exists.
func (a *Allocator) createPortKey(ctx context.Context, o owner, port int) (bool, error) {
	value, err := json.Marshal(portHolder{owner: o, Created: a.now().UTC()})
	if err != nil {
		return false, err
	}
	key := portKey(port)
	resp, err := a.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value))).Commit()
	if err != nil {
		return false, err
	}
	return resp.Succeeded, nil
}

// usedPorts are the ports whose keys exist.
func (a *Allocator) usedPorts(ctx context.Context) (map[int]bool, error) {
	resp, err := a.client.Get(ctx, NodePortPrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, err
	}
	used := make(map[int]bool, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		if port, err := strconv.Atoi(strings.TrimPrefix(string(kv.Key), NodePortPrefix)); err == nil {
			used[port] = true
		}
	}
	return used, nil
}

// portTaken reports whether port's key exists (a dry run's check).
func (a *Allocator) portTaken(ctx context.Context, port int) (bool, error) {
	resp, err := a.client.Get(ctx, portKey(port), clientv3.WithCountOnly())
	if err != nil {
		return false, err
	}
	return resp.Count > 0, nil
}

// releasePort deletes port's key if the Service o holds it.
func (a *Allocator) releasePort(ctx context.Context, o owner, port int) {
	if err := a.deletePortKey(ctx, port, func(h portHolder) bool { return h.owner == o }); err != nil {
		slog.Error("serviceip: releasing a node port failed; repair removes it", "port", port, "service", o.Namespace+"/"+o.Name, "err", err)
	}
}

// deletePortKey deletes port's key if its holder is still one that drop
// accepts when deleted.
func (a *Allocator) deletePortKey(ctx context.Context, port int, drop func(portHolder) bool) error {
	key := portKey(port)
	resp, err := a.client.Get(ctx, key)
	if err != nil || len(resp.Kvs) == 0 {
		return err
	}
	var h portHolder
	if err := json.Unmarshal(resp.Kvs[0].Value, &h); err == nil && !drop(h) {
		return nil
	}
	_, err = a.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", resp.Kvs[0].ModRevision)).
		Then(clientv3.OpDelete(key)).Commit()
	return err
}
