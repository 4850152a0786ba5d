package etcdtest

import (
	"context"
	"testing"
	"time"
)

// TestStartServesBothClients checks that the client Start returns and one
// made by Connect reach the same running etcd.
func TestStartServesBothClients(t *testing.T) {
	endpoint, c := Start(t)
	other := Connect(t, endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}
	resp, err := other.Get(ctx, "/k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get through second client = %v, %v", resp, err)
	}
}
