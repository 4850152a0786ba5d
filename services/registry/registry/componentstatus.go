package registry

import (
	"context"
	"crypto/tls"

	"k8s.io/kubernetes/pkg/cluster/ports"
	"k8s.io/kubernetes/pkg/probe"
	"k8s.io/kubernetes/pkg/registry/core/componentstatus"
)

// kubeSchedulerPort is kube-scheduler's default secure port, which
// kube-apiserver's componentstatuses probe (kube names it in the
// scheduler's config package, too heavy to import for one number).
const kubeSchedulerPort = 10259

// components are what componentstatuses report on, as kube-apiserver's
// do: a controller-manager and a scheduler on this host's default secure
// ports (a guess kube calls fragile too, kept for kubectl get cs), and
// etcd through the registry's own client.
func (s *Server) components() map[string]componentstatus.Server {
	insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // kube probes these without verifying them
	return map[string]componentstatus.Server{
		"controller-manager": &componentstatus.HttpServer{EnableHTTPS: true, TLSConfig: insecure, Addr: "127.0.0.1",
			Port: ports.KubeControllerManagerPort, Path: "/healthz"},
		"scheduler": &componentstatus.HttpServer{EnableHTTPS: true, TLSConfig: insecure, Addr: "127.0.0.1",
			Port: kubeSchedulerPort, Path: "/healthz"},
		"etcd-0": etcdProbe(s.pingEtcd),
	}
}

// etcdProbe reports etcd's health as kube's etcd component status does:
// "ok" when it answers.
type etcdProbe func(context.Context) error

func (p etcdProbe) DoServerCheck() (probe.Result, string, error) {
	if err := p(context.Background()); err != nil {
		return probe.Failure, "", err
	}
	return probe.Success, "ok", nil
}
