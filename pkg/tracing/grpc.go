package tracing

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// EtcdDialOptions are the gRPC options that make a client span of each
// etcd call made for a traced request (a Get, a Txn); none when tracing is
// off. Calls outside any trace (the watch cache's, leases') make none, so
// background work does not flood the collector with root spans.
func EtcdDialOptions() []grpc.DialOption {
	if !enabled {
		return nil
	}
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(etcdSpans)}
}

func etcdSpans(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return invoke(ctx, method, req, reply, cc, opts...)
	}
	service, rpc, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	ctx, span := otel.Tracer("github.com/kubesplit/kubesplit/pkg/tracing").Start(ctx, service+"/"+rpc,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", service),
			attribute.String("rpc.method", rpc), attribute.String("db.system", "etcd")))
	defer span.End()
	err := invoke(ctx, method, req, reply, cc, opts...)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}
