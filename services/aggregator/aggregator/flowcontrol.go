package aggregator

import (
	"context"
	"sync"

	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	fcmetrics "k8s.io/apiserver/pkg/util/flowcontrol/metrics"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// registerFlowControlMetrics registers kube's apiserver_flowcontrol_*
// metrics in kube's global registry, once per process (the fused binary
// may start several aggregators).
var registerFlowControlMetrics sync.Once

// startFlowControl, when cfg enables it, runs kube's API Priority and Fairness controller on
// this replica: it follows the cluster's FlowSchemas and
// PriorityLevelConfigurations in the registry, writes their status
// conditions as kube-apiserver does (each replica, by server-side apply
// under kube's field manager), and shares out the seats of the two
// max-inflight limits
// among the priority levels. Every aggregator replica runs its own, as
// every kube-apiserver does. It stops with ctx.
func startFlowControl(ctx context.Context, cfg Config, restCfg *rest.Config) (utilflowcontrol.Interface, error) {
	if !cfg.EnablePriorityAndFairness {
		return nil, nil
	}
	client, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, err
	}
	registerFlowControlMetrics.Do(fcmetrics.Register)
	informers := kubeinformers.NewSharedInformerFactory(client, 0)
	fc := utilflowcontrol.New(informers, client.FlowcontrolV1(), cfg.MaxRequestsInflight+cfg.MaxMutatingRequestsInflight)
	informers.Start(ctx.Done())
	go func() { _ = fc.Run(ctx.Done()) }()
	return fc, nil
}
