package embedetcd

import (
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// NewClient connects to etcd at endpoints. etcd's client warns on every
// retried request, a compacted revision included, which is routine for the
// registry; only its errors are logged.
func NewClient(endpoints []string) (*clientv3.Client, error) {
	logger, err := logutil.CreateDefaultZapLogger(zap.ErrorLevel)
	if err != nil {
		return nil, err
	}
	return clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: logger})
}
