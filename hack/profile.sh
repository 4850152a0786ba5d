#!/usr/bin/env bash
# Profiles of the split stack under the load tool: make run's stack on
# loopback, the load tool running one operation (as make bench does), and
# meanwhile a CPU profile of every backend and the aggregator, each summed
# up as its top functions (go tool pprof -top); then each process's resident
# memory and what its Go heap holds. Where make bench's figures say how fast
# and how big, these say where the time and the memory go.
#
#   hack/profile.sh [op…]   operations, default: get create (watch: WATCHERS
#                           watches, each sent 200 updates over the profile)
#   SECONDS_PROFILED        length of each profile (default 8)
#   OUT                     profiles and summaries (default .run/profile)
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/lib/stack.sh
BIN=${BIN:-bin}
OUT=${OUT:-.run/profile}
SECS=${SECONDS_PROFILED:-8}
WATCHERS=${WATCHERS:-1000}
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(get create)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT INT TERM

dir=$OUT/stack
port=16483
stack_start "$dir" "$port" --controllers=customresourcedefinition
admin=$(stack_token "$dir" admin)
declare -A ports=([aggregator]=$port [registry]=$((port + 1)) [authz]=$((port + 2)) [authn]=$((port + 3)) [admission]=$((port + 4)))

for op in "${ops[@]}"; do
  echo "== $op: the load tool for $((SECS + 4)) s, profiles of ${SECS} s from its second second"
  args=()
  [ "$op" != watch ] || args=(--watchers "$WATCHERS" --updates 200)
  "$BIN/load" --kubeconfig "$dir/kubeconfig" --op "$op" --duration "$((SECS + 4))s" --content-type json "${args[@]}" >"$OUT/$op.load" 2>&1 &
  load=$!
  # A watch run opens its watches first; its profile starts with the updates.
  for _ in $(seq 600); do [ "$op" != watch ] || grep -q '^sending' "$OUT/$op.load" && break; sleep 0.1; done
  sleep 2
  curls=()
  for s in "${!ports[@]}"; do
    curl -fsS --cacert "$dir/ca.crt" -H "Authorization: Bearer $admin" -o "$OUT/$op.$s.pprof" \
      "https://127.0.0.1:${ports[$s]}/debug/pprof/profile?seconds=$SECS" &
    curls+=($!)
  done
  wait "$load" || echo "   the load tool failed (see $OUT/$op.load)" >&2
  wait "${curls[@]}" || echo "   a profile could not be fetched" >&2
  grep 'requests/s\|delivery' "$OUT/$op.load" || true
  for s in aggregator registry authz authn admission; do
    go tool pprof -top -nodecount=20 "$OUT/$op.$s.pprof" 2>/dev/null >"$OUT/$op.$s.top" || continue
    echo "-- $s: $(grep -m1 'Total samples' "$OUT/$op.$s.top" | sed 's/^ *//')"
  done
done
# Where the memory is after the runs: each process's resident size, and
# the Go heap of each by what allocated what it holds.
echo "== resident memory after the runs, and each Go heap's biggest holders"
for s in aggregator registry authz authn admission; do
  rss=$(awk '$1 == "VmRSS:" {printf "%.0f", $2 / 1024}' "/proc/$(cat "$dir/$s.pid")/status")
  curl -fsS --cacert "$dir/ca.crt" -H "Authorization: Bearer $admin" -o "$OUT/heap.$s.pprof" \
    "https://127.0.0.1:${ports[$s]}/debug/pprof/heap" || continue
  go tool pprof -top -sample_index=inuse_space -nodecount=15 "$OUT/heap.$s.pprof" 2>/dev/null >"$OUT/heap.$s.top" || true
  echo "-- $s: resident $rss MB; heap in use: $(grep -m1 'Showing nodes accounting' "$OUT/heap.$s.top" | sed 's/.* of //; s/ total//')"
done
echo "profiles and their top functions: $OUT"
