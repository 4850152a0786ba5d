package embedetcd

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestStart(t *testing.T) {
	e, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c, err := NewClient([]string{e.Endpoint()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(ctx, "/k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get = %v, %v", resp, err)
	}
}

// TestOnlyItsUserReachesIt: etcd answers anyone who reaches it, Secrets
// included, so nothing but the process's own user may. It listens on no
// TCP port (client or peer), only on a unix socket in a directory that
// this user owns and nobody else may enter; Close removes it.
func TestOnlyItsUserReachesIt(t *testing.T) {
	e, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			e.Close()
		}
	}()
	for _, l := range e.etcd.Clients {
		if l.Addr().Network() != "unix" {
			t.Errorf("client listener on %s %s, want a unix socket only", l.Addr().Network(), l.Addr())
		}
	}
	for _, p := range e.etcd.Peers {
		t.Errorf("peer listener on %s %s, want none", p.Addr().Network(), p.Addr())
	}
	u, err := url.Parse(e.Endpoint())
	if err != nil || u.Scheme != "unix" {
		t.Fatalf("endpoint %q: want unix:///path (%v)", e.Endpoint(), err)
	}
	dir := filepath.Dir(u.Path)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory %s has mode %v, want 0700", dir, fi.Mode().Perm())
	}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Getuid() {
		t.Errorf("socket directory owned by uid %d, want %d", st.Uid, os.Getuid())
	}
	e.Close()
	closed = true
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("socket directory %s left behind after Close: %v", dir, err)
	}
}
