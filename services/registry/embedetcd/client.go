package embedetcd

import (
	"crypto/tls"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// NewClient connects to etcd at endpoints, over TLS with tlsConfig when it
// is not nil. etcd's client warns on every retried request, a compacted
// revision included, which is routine for the registry; only its errors
// are logged.
func NewClient(endpoints []string, tlsConfig *tls.Config) (*clientv3.Client, error) {
	logger, err := logutil.CreateDefaultZapLogger(zap.ErrorLevel)
	if err != nil {
		return nil, err
	}
	return clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: logger, TLS: tlsConfig,
		DialOptions: tracing.EtcdDialOptions()})
}
