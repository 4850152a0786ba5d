#!/usr/bin/env bash
# Starts kubesplit on loopback for development: the registry with an
# embedded etcd under .run/, and an admin kubeconfig at .run/kubeconfig.
# Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=.run
PORT=${KUBESPLIT_PORT:-6444}
mkdir -p "$RUN"
rm -f "$RUN/registry.addr"

bin/registry --insecure-allow-unauthenticated --bind-address "127.0.0.1:$PORT" \
  --data-dir "$RUN/etcd" --address-file "$RUN/registry.addr" &
pid=$!
stop() { kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }
# Ctrl-C is how a newcomer stops it: a clean exit, not an error.
trap 'stop; exit 0' INT TERM
trap stop EXIT

for _ in $(seq 1 300); do
  [ -s "$RUN/registry.addr" ] && break
  kill -0 $pid 2>/dev/null || { echo "registry exited"; exit 1; }
  sleep 0.1
done
url=$(cat "$RUN/registry.addr")
cat >"$RUN/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: kubesplit
  cluster: {server: $url}
users:
- name: admin
  user: {}
contexts:
- name: kubesplit
  context: {cluster: kubesplit, user: admin}
current-context: kubesplit
KUBECONFIG
echo
echo "kubesplit is serving at $url"
echo "  export KUBECONFIG=$PWD/$RUN/kubeconfig"
echo "  kubectl get namespaces"
echo "Ctrl-C stops it."
wait $pid
