#!/usr/bin/env bash
# Profiles of the split stack under the load tool: make run's stack on
# loopback, the load tool running one operation (as make bench does), and
# meanwhile a CPU profile of every backend and the aggregator, each summed
# up as its top functions (go tool pprof -top); where make bench's figures
# say how fast, these say where the time goes.
#
#   hack/profile.sh [op…]   operations, default: get create
#   SECONDS_PROFILED        length of each profile (default 8)
#   OUT                     profiles and summaries (default .run/profile)
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/lib/stack.sh
BIN=${BIN:-bin}
OUT=${OUT:-.run/profile}
SECS=${SECONDS_PROFILED:-8}
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
  "$BIN/load" --kubeconfig "$dir/kubeconfig" --op "$op" --duration "$((SECS + 4))s" --content-type json >"$OUT/$op.load" 2>&1 &
  load=$!
  sleep 2
  curls=()
  for s in "${!ports[@]}"; do
    curl -fsS --cacert "$dir/ca.crt" -H "Authorization: Bearer $admin" -o "$OUT/$op.$s.pprof" \
      "https://127.0.0.1:${ports[$s]}/debug/pprof/profile?seconds=$SECS" &
    curls+=($!)
  done
  wait "$load" || echo "   the load tool failed (see $OUT/$op.load)" >&2
  wait "${curls[@]}" || echo "   a profile could not be fetched" >&2
  grep 'requests/s' "$OUT/$op.load" || true
  for s in aggregator registry authz authn admission; do
    go tool pprof -top -nodecount=20 "$OUT/$op.$s.pprof" 2>/dev/null >"$OUT/$op.$s.top" || continue
    echo "-- $s: $(grep -m1 'Total samples' "$OUT/$op.$s.top" | sed 's/^ *//')"
  done
done
echo "profiles and their top functions: $OUT"
