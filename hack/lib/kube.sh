# shellcheck shell=bash
# Starting a real kube-apiserver v1.37.2 and its own etcd on loopback, to
# measure kubesplit beside it (hack/bench.sh). Source hack/lib/stack.sh
# first; the caller owns the pids array and stops what it holds.
#
# kube_start <dir> <base port> <kube bin dir> starts
#   kube-apiserver https://127.0.0.1:<base>
#   etcd           http://127.0.0.1:<base+1> (peer <base+2>)
# from hack/kube-binaries.sh's build, with kubesplit-certs' set in <dir>
# (the aggregator's serving certificate, the service-account key, the
# tokens: admin in system:masters) and Node,RBAC authorization, as the
# control-plane test starts it. It returns once /readyz passes; the pids
# go to KUBE_APISERVER_PID and KUBE_ETCD_PID.
kube_start() {
  local dir=$1 base=$2 kube=$3 url="https://127.0.0.1:$2"
  local etcd="http://127.0.0.1:$((base + 1))" peer="http://127.0.0.1:$((base + 2))"
  umask 077
  dir=$(stack_dir "$dir")
  rm -rf "$dir/etcd"
  stack_tokens "$dir" "$url"
  local launched
  launched=$(stack_now_ms)
  "$kube/etcd" --name kube --data-dir "$dir/etcd" --listen-client-urls "$etcd" --advertise-client-urls "$etcd" \
    --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" --initial-cluster "kube=$peer" \
    --initial-cluster-state new --log-level warn >"$dir/etcd.log" 2>&1 &
  pids+=($!)
  KUBE_ETCD_PID=$!
  # kube-apiserver's own default for a loopback advertise address would
  # publish it as the kubernetes Service's endpoint, which may not be
  # loopback: no reconciler.
  "$kube/kube-apiserver" --bind-address 127.0.0.1 --secure-port "$base" --advertise-address 127.0.0.1 \
    --endpoint-reconciler-type none --etcd-servers "$etcd" \
    --tls-cert-file "$dir/aggregator.crt" --tls-private-key-file "$dir/aggregator.key" \
    --token-auth-file "$dir/tokens.csv" --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$dir/sa.pub" --service-account-signing-key-file "$dir/sa.key" \
    --service-cluster-ip-range 10.0.0.0/24 >"$dir/kube-apiserver.log" 2>&1 &
  pids+=($!)
  KUBE_APISERVER_PID=$!
  ln -sfn admin.kubeconfig "$dir/kubeconfig"
  stack_wait_ready "$url" "$dir/ca.crt" "$(stack_token "$dir" admin)"
  stack_ready_since "$dir" "$launched"
}
