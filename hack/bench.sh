#!/usr/bin/env bash
# make bench: the Go benchmarks of the registry's hot paths, then the load
# tool (client-go, JSON) against three compositions, each on an etcd of its
# own in a process of its own:
#   registry  the registry alone, no identity checks: storage's own cost
#   split     the five services as make run starts them, through the
#             aggregator, as a user authorized by RBAC (not system:masters)
#   fused     bin/kubesplit, the same stages called in one process
#   traced    split, exporting every span to bin/otlpsink (not in the
#             default set: BENCH_CONFIGS=traced)
# reporting throughput, latency and resident memory. Everything listens on
# loopback and stops by itself. BENCH_CONFIGS picks a subset.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/lib/stack.sh
BIN=${BIN:-bin}
DURATION=${DURATION:-20s}
CONCURRENCY=${CONCURRENCY:-16}
OUT=${OUT:-.run/bench}
CONFIGS=${BENCH_CONFIGS:-registry split fused}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; pids=(); }
trap cleanup EXIT INT TERM

echo "== Go benchmarks (registry in-process, client-go over loopback)"
go test -run '^$' -bench . -benchtime "${BENCHTIME:-2000x}" ./services/registry/registry/ | grep -E '^(Benchmark|ok)'

rss_mb() { awk '/VmRSS/ {s += $2} END {printf "%.0f", s/1024}' $(for p in "$@"; do echo "/proc/$p/status"; done); }
hwm_mb() { awk '/VmHWM/ {s += $2} END {printf "%.0f", s/1024}' $(for p in "$@"; do echo "/proc/$p/status"; done); }

# start_etcd <dir>: an etcd of its own; sets ETCD to its client URL.
start_etcd() {
  rm -rf "$1"; mkdir -p "$1"
  "$BIN/etcd" --data-dir "$1/data" --address-file "$1/addr" >"$1/log" 2>&1 &
  pids+=($!)
  stack_wait_file "$1/addr"
  ETCD=$(cat "$1/addr")
}

# run_load <name> <kubeconfig> <pid…>: the sequence of operations, then
# the memory of the processes named.
run_load() {
  local name=$1 kc=$2; shift 2
  echo "== $name: concurrency $CONCURRENCY, $DURATION each; resident memory at start: $(rss_mb "$@") MB"
  for op in get list create update mixed; do
    "$BIN/load" --kubeconfig "$kc" --op "$op" --concurrency "$CONCURRENCY" \
      --duration "$DURATION" --objects 100 --size 1024 --content-type json
  done
  "$BIN/load" --kubeconfig "$kc" --op watch --watchers 50 --updates 200 --content-type json
  echo "$name resident memory: now $(rss_mb "$@") MB, peak $(hwm_mb "$@") MB (sum over its processes)"
}

bench_registry() {
  local dir=$OUT/registry
  rm -rf "$dir"; mkdir -p "$dir"
  start_etcd "$dir/etcd"
  "$BIN/registry" --insecure-allow-unauthenticated --bind-address 127.0.0.1:0 --disable-controllers \
    --etcd-servers "$ETCD" --address-file "$dir/addr" >"$dir/log" 2>&1 &
  pids+=($!)
  local pid=$!
  stack_wait_file "$dir/addr"
  cat >"$dir/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: $(cat "$dir/addr")}}]
users: [{name: u, user: {}}]
contexts: [{name: k, context: {cluster: k, user: u}}]
current-context: k
KC
  run_load "registry alone" "$dir/kubeconfig" "$pid"
}

# bench_tokens <dir> <url>: the stack's credentials for <url> and the
# bench user's token, in group bench.
bench_tokens() {
  stack_tokens "$1" "$2"
  echo "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'),bench,bench,\"bench\"" >>"$1/tokens.csv"
}

# bench_user <dir> <url> <ca>: a user of its own, cluster-admin through a
# ClusterRoleBinding (so authz decides, as for any user), and its
# kubeconfig at <dir>/bench.kubeconfig.
bench_user() {
  kubectl --kubeconfig "$1/kubeconfig" create clusterrolebinding bench-admin --clusterrole cluster-admin --group bench >/dev/null
  stack_kubeconfig "$1/bench.kubeconfig" "$2" "$3" "$(stack_token "$1" bench)"
}

bench_split() {
  local dir=$OUT/split
  rm -rf "$dir"; mkdir -p "$dir"
  start_etcd "$OUT/split-etcd"
  bench_tokens "$dir" https://127.0.0.1:16443
  local first=${#pids[@]}
  stack_start "$dir" 16443 --etcd-servers "$ETCD" --controllers=customresourcedefinition
  bench_user "$dir" https://127.0.0.1:16443 "$dir/ca.crt"
  run_load "split (five processes, through the aggregator)" "$dir/bench.kubeconfig" "${pids[@]:$first}"
}

# bench_traced: the split stack exporting every span (OTLP over HTTP,
# sampler always on) to a collector of its own (bin/otlpsink), to measure
# what tracing costs when it is on.
bench_traced() {
  local dir=$OUT/traced
  rm -rf "$dir"; mkdir -p "$dir"
  "$BIN/otlpsink" --address-file "$dir/otlp.addr" >"$dir/otlp.log" 2>&1 &
  pids+=($!)
  stack_wait_file "$dir/otlp.addr"
  start_etcd "$OUT/traced-etcd"
  bench_tokens "$dir" https://127.0.0.1:16463
  local first=${#pids[@]}
  OTEL_EXPORTER_OTLP_ENDPOINT=$(cat "$dir/otlp.addr") OTEL_TRACES_SAMPLER=always_on \
    stack_start "$dir" 16463 --etcd-servers "$ETCD" --controllers=customresourcedefinition
  bench_user "$dir" https://127.0.0.1:16463 "$dir/ca.crt"
  run_load "split, every span exported" "$dir/bench.kubeconfig" "${pids[@]:$first}"
}

bench_fused() {
  local dir=$OUT/fused
  rm -rf "$dir"; mkdir -p "$dir"
  start_etcd "$OUT/fused-etcd"
  bench_tokens "$dir" https://127.0.0.1:16453
  "$BIN/kubesplit" --bind-address 127.0.0.1:16453 --cert-dir "$dir/certs" --etcd-servers "$ETCD" --controllers=customresourcedefinition \
    --token-auth-file "$dir/tokens.csv" --address-file "$dir/addr" >"$dir/log" 2>&1 &
  pids+=($!)
  local pid=$!
  stack_wait_file "$dir/addr"
  stack_kubeconfig "$dir/kubeconfig" https://127.0.0.1:16453 "$dir/certs/ca.crt" "$(stack_token "$dir" admin)"
  stack_wait_ready https://127.0.0.1:16453 "$dir/certs/ca.crt" "$(stack_token "$dir" admin)"
  bench_user "$dir" https://127.0.0.1:16453 "$dir/certs/ca.crt"
  run_load "fused (one process)" "$dir/bench.kubeconfig" "$pid"
}

for c in $CONFIGS; do
  "bench_$c"
  cleanup
done
