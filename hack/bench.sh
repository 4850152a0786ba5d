#!/usr/bin/env bash
# make bench: the Go benchmarks of the registry's hot paths, then the load
# tool against a registry backed by an etcd in a process of its own (and,
# for comparison, with its embedded etcd), reporting throughput, latency
# and the registry's resident memory. Everything listens on loopback and
# stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
DURATION=${DURATION:-20s}
CONCURRENCY=${CONCURRENCY:-16}
OUT=${OUT:-.run/bench}
mkdir -p "$OUT"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

echo "== Go benchmarks (registry in-process, client-go over loopback)"
go test -run '^$' -bench . -benchtime "${BENCHTIME:-2000x}" ./services/registry/registry/ | grep -E '^(Benchmark|ok)'

wait_file() { for _ in $(seq 1 600); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "timed out waiting for $1" >&2; return 1; }

# start_registry <name> [registry flags…]: starts a registry, writes its
# kubeconfig to $OUT/<name>.kubeconfig and its pid to $OUT/<name>.pid.
start_registry() {
  local name=$1; shift
  rm -rf "$OUT/$name"; mkdir -p "$OUT/$name"
  "$BIN/registry" --insecure-allow-unauthenticated --bind-address 127.0.0.1:0 \
    --address-file "$OUT/$name/addr" --data-dir "$OUT/$name/etcd" "$@" >"$OUT/$name/log" 2>&1 &
  pids+=($!); echo $! >"$OUT/$name.pid"
  wait_file "$OUT/$name/addr"
  cat >"$OUT/$name.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: $(cat "$OUT/$name/addr")}}]
users: [{name: u, user: {}}]
contexts: [{name: k, context: {cluster: k, user: u}}]
current-context: k
KC
}

rss_mb() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
hwm_mb() { awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }

run_load() {
  local name=$1 pid
  pid=$(cat "$OUT/$name.pid")
  echo "== load against the registry ($name), concurrency $CONCURRENCY, $DURATION each; RSS at start: $(rss_mb "$pid") MB"
  for op in get list create update mixed; do
    "$BIN/load" --kubeconfig "$OUT/$name.kubeconfig" --op "$op" --concurrency "$CONCURRENCY" \
      --duration "$DURATION" --objects 100 --size 1024 --content-type json
  done
  "$BIN/load" --kubeconfig "$OUT/$name.kubeconfig" --op watch --watchers 50 --updates 200 --content-type json
  echo "registry ($name) resident memory: now $(rss_mb "$pid") MB, peak $(hwm_mb "$pid") MB"
}

# External etcd: etcd in its own process, so the registry's memory is its own.
rm -rf "$OUT/etcd"; mkdir -p "$OUT/etcd"
"$BIN/etcd" --data-dir "$OUT/etcd/data" --address-file "$OUT/etcd/addr" >"$OUT/etcd/log" 2>&1 &
pids+=($!)
wait_file "$OUT/etcd/addr"
start_registry external --etcd-servers "$(cat "$OUT/etcd/addr")" --disable-controllers
run_load external

start_registry embedded --disable-controllers
run_load embedded
