#!/usr/bin/env bash
# make bench: the Go benchmarks of the registry's hot paths, then the load
# tool (client-go, JSON) against several stacks side by side, all up at
# once, the runs alternating between them round by round:
#   kube      kube-apiserver v1.37.2 and its etcd, built by
#             hack/kube-binaries.sh (the control-plane test's tooling)
#   split     the five services as make run starts them (etcd embedded
#             in the registry), through the aggregator
#   fused     bin/kubesplit, the same stages called in one process
#   registry  the registry alone on an etcd of its own, no identity
#             checks: storage's own cost (not in the default set)
#   traced    split, exporting every span to bin/otlpsink (not in the
#             default set)
# Every stack is loaded as a user of its own that RBAC authorizes through
# a ClusterRoleBinding (not system:masters), except registry, which has no
# authorization. For each run it records the load tool's report and the
# CPU each process spent; then each stack's resident memory and its time
# from launch to ready; and prints them as Markdown tables
# (tools/load/benchtable) with the ratios split ÷ kube and split ÷ fused.
# Everything listens on loopback and stops by itself.
#
#   BENCH_STACKS  the stacks (default: kube split fused); the first is
#                 what the others are compared with
#   ROUNDS        rounds of every operation (default 2)
#   DURATION      each run's length (default 8s)
#   CONCURRENCY   the load tool's workers (default 16)
#   BENCH_OPS     the operations of each round (default: get list create
#                 update mixed)
#   WATCHERS      watchers of the watch run, each sent 200 updates
#                 (default 1000, 0 skips it)
#   CROWD         ConfigMaps put in another namespace before the list runs
#                 once more (row list-crowded; default 100000, 0 skips)
#   SETTLE        seconds each stack is left to settle before the next
#                 starts (default 10)
#   BENCH_GO      0 skips the Go benchmarks
#   OUT           where results and logs go (default .run/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/lib/stack.sh
. hack/lib/kube.sh
BIN=${BIN:-bin}
STACKS=(${BENCH_STACKS:-kube split fused})
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-8s}
CONCURRENCY=${CONCURRENCY:-16}
WATCHERS=${WATCHERS:-1000}
CROWD=${CROWD:-100000}
read -ra OPS <<<"${BENCH_OPS:-get list create update mixed}"
OUT=${OUT:-.run/bench}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RESULTS=$OUT/results
rm -rf "$RESULTS"
TCK=$(getconf CLK_TCK)
pids=()
# cleanup: every process asked to stop at once (one stopping first could
# hold up another's shutdown: kube-apiserver waits for its etcd), and
# killed if still there after 15 s.
cleanup() {
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  (sleep 15 && kill -KILL "${pids[@]}" 2>/dev/null) &
  local killer=$!
  wait "${pids[@]}" 2>/dev/null || true
  kill "$killer" 2>/dev/null || true
  pids=()
}
trap cleanup EXIT INT TERM

# Each stack's kubeconfig for the load tool, and its processes as
# "name=pid" words (what memory and CPU are summed over).
declare -A KC PROCS

if [ "${BENCH_GO:-1}" != 0 ]; then
  echo "== Go benchmarks (registry in-process, client-go over loopback)"
  go test -run '^$' -bench . -benchtime "${BENCHTIME:-2000x}" ./services/registry/registry/ | grep -E '^(Benchmark|ok)'
fi

# proc_sum <field> <stack>: the sum of a /proc/<pid>/status field (kB)
# over the stack's processes, in MB.
proc_sum() {
  local files=()
  for np in ${PROCS[$2]}; do files+=("/proc/${np#*=}/status"); done
  awk -v f="$1:" '$1 == f {s += $2} END {printf "%.0f", s/1024}' "${files[@]}"
}

# cpu_seconds <stack>: "name seconds" of CPU spent so far, per process.
cpu_seconds() {
  for np in ${PROCS[$1]}; do
    # The command name (field 2) has no spaces here, so fields count plainly.
    awk -v n="${np%=*}" -v t="$TCK" '{print n, ($14 + $15) / t}' "/proc/${np#*=}/stat"
  done
}

# ready_ms <stack> <ms>: records the time from launch to ready: for the
# kube and split stacks what their start functions measured around their
# launches (stack_ready_since), without the set-up before or after.
ready_ms() {
  mkdir -p "$RESULTS/$1"
  awk -v ms="$2" 'BEGIN {printf "%.2f\n", ms / 1000}' >"$RESULTS/$1/ready"
}

# bench_user <dir> <url> <ca>: a user of its own (token in <dir>'s
# tokens.csv before the server starts), cluster-admin through a
# ClusterRoleBinding so that authorization decides, as for any user; its
# kubeconfig at <dir>/bench.kubeconfig.
bench_token() {
  echo "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'),bench,bench,\"bench\"" >>"$1/tokens.csv"
}
bench_user() {
  kubectl --kubeconfig "$1/kubeconfig" create clusterrolebinding bench-admin --clusterrole cluster-admin --group bench >/dev/null
  stack_kubeconfig "$1/bench.kubeconfig" "$2" "$3" "$(stack_token "$1" bench)"
}

start_kube() {
  local dir=$OUT/kube kube
  kube=$(hack/kube-binaries.sh | tail -n1)
  rm -rf "$dir"
  stack_tokens "$dir" https://127.0.0.1:16473
  bench_token "$dir"
  kube_start "$dir" 16473 "$kube"
  ready_ms kube "$(cat "$dir/ready.ms")"
  bench_user "$dir" https://127.0.0.1:16473 "$dir/ca.crt"
  KC[kube]=$dir/bench.kubeconfig
  PROCS[kube]="kube-apiserver=$KUBE_APISERVER_PID etcd=$KUBE_ETCD_PID"
}

# start_split_like <name> <port>: make run's stack (etcd embedded in the
# registry), with only the custom resource controller of the registry's
# own (kube-apiserver runs that one itself; the others are
# kube-controller-manager's).
start_split_like() {
  local name=$1 port=$2 dir=$OUT/$1
  rm -rf "$dir"
  bench_tokens_for "$dir" "https://127.0.0.1:$port"
  stack_start "$dir" "$port" --controllers=customresourcedefinition
  ready_ms "$name" "$(cat "$dir/ready.ms")"
  bench_user "$dir" "https://127.0.0.1:$port" "$dir/ca.crt"
  KC[$name]=$dir/bench.kubeconfig
  local s procs=""
  for s in aggregator registry authz authn admission; do
    procs+=" $s=$(cat "$dir/$s.pid")"
  done
  PROCS[$name]=$procs
}
bench_tokens_for() { stack_tokens "$1" "$2" && bench_token "$1"; }

start_split() { start_split_like split 16443; }

# start_traced: the split stack exporting every span (OTLP over HTTP,
# sampler always on) to a collector of its own (bin/otlpsink), to measure
# what tracing costs when it is on.
start_traced() {
  local dir=$OUT/traced-sink
  mkdir -p "$dir"
  "$BIN/otlpsink" --address-file "$dir/otlp.addr" >"$dir/otlp.log" 2>&1 &
  pids+=($!)
  stack_wait_file "$dir/otlp.addr"
  OTEL_EXPORTER_OTLP_ENDPOINT=$(cat "$dir/otlp.addr") OTEL_TRACES_SAMPLER=always_on start_split_like traced 16463
}

start_fused() {
  local dir=$OUT/fused url=https://127.0.0.1:16453 t0
  rm -rf "$dir"
  mkdir -p "$dir"
  bench_tokens_for "$dir" "$url"
  t0=$(stack_now_ms)
  "$BIN/kubesplit" --bind-address 127.0.0.1:16453 --cert-dir "$dir/certs" --data-dir "$dir/etcd" \
    --controllers=customresourcedefinition --token-auth-file "$dir/tokens.csv" --address-file "$dir/addr" >"$dir/log" 2>&1 &
  pids+=($!)
  PROCS[fused]="kubesplit=$!"
  stack_wait_file "$dir/addr"
  stack_kubeconfig "$dir/kubeconfig" "$url" "$dir/certs/ca.crt" "$(stack_token "$dir" admin)"
  stack_wait_ready "$url" "$dir/certs/ca.crt" "$(stack_token "$dir" admin)"
  ready_ms fused "$(($(stack_now_ms) - t0))"
  bench_user "$dir" "$url" "$dir/certs/ca.crt"
  KC[fused]=$dir/bench.kubeconfig
}

start_registry() {
  local dir=$OUT/registry t0
  rm -rf "$dir"
  mkdir -p "$dir"
  t0=$(stack_now_ms)
  "$BIN/etcd" --data-dir "$dir/etcd" --address-file "$dir/etcd.addr" >"$dir/etcd.log" 2>&1 &
  pids+=($!)
  local etcd=$!
  stack_wait_file "$dir/etcd.addr"
  "$BIN/registry" --insecure-allow-unauthenticated --bind-address 127.0.0.1:0 --disable-controllers \
    --etcd-servers "$(cat "$dir/etcd.addr")" --address-file "$dir/addr" >"$dir/log" 2>&1 &
  pids+=($!)
  PROCS[registry]="registry=$! etcd=$etcd"
  stack_wait_file "$dir/addr"
  until curl -fsS "$(cat "$dir/addr")/readyz" >/dev/null 2>&1; do sleep 0.1; done
  ready_ms registry "$(($(stack_now_ms) - t0))"
  cat >"$dir/bench.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: $(cat "$dir/addr")}}]
users: [{name: u, user: {}}]
contexts: [{name: k, context: {cluster: k, user: u}}]
current-context: k
KC
  KC[registry]=$dir/bench.kubeconfig
}

# load <stack> <row> <round> [flags…]: one run of the load tool, its report
# and the CPU each of the stack's processes spent meanwhile. The row is the
# operation, or the operation and what sets the run apart (list-crowded).
load() {
  local stack=$1 op=$2 round=$3 dir=$RESULTS/$1; shift 3
  mkdir -p "$dir"
  cpu_seconds "$stack" >"$dir/cpu.before"
  "$BIN/load" --kubeconfig "${KC[$stack]}" --op "${op%%-*}" --content-type json --output json "$@" \
    >"$dir/$op.$round.json" 2>"$dir/$op.$round.log" ||
    echo "   $stack $op: the load tool failed (see $dir/$op.$round.log)" >&2
  cpu_seconds "$stack" | awk 'NR == FNR {before[$1] = $2; next} {printf "%s %.3f\n", $1, $2 - before[$1]}' \
    "$dir/cpu.before" - >"$dir/$op.$round.cpu"
  rm "$dir/cpu.before"
  # The report's first rate and p99 are the run's own (a mixed run's per
  # kind follow); a watch run's last p99 is its delivery latency.
  awk -v s="$stack" -v o="$op" '/"requests_per_second"/ && r == "" {gsub(/,/, ""); r = $2}
    /"p99_ms"/ && (p == "" || o == "watch") {gsub(/,/, ""); p = $2}
    END {printf "   %-9s %-7s %8.0f req/s  p99 %.1f ms\n", s, o, r, p}' "$dir/$op.$round.json"
}

# Each stack starts once the one before has settled: kube-apiserver keeps
# both cores busy for seconds after it is ready, which the next stack's
# launch-to-ready would otherwise pay.
for s in "${STACKS[@]}"; do
  echo "== starting $s"
  "start_$s"
  sleep "${SETTLE:-10}"
done

# Each round starts with the next stack, so none is always first.
n=${#STACKS[@]}
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round of $ROUNDS: ${OPS[*]}, concurrency $CONCURRENCY, $DURATION each"
  for op in "${OPS[@]}"; do
    for i in $(seq 0 $((n - 1))); do
      load "${STACKS[$(((i + round - 1) % n))]}" "$op" "$round" \
        --concurrency "$CONCURRENCY" --duration "$DURATION" --objects 100 --size 1024
    done
  done
done
if [ "$WATCHERS" -gt 0 ]; then
  echo "== watch: $WATCHERS watchers × 200 updates"
  for s in "${STACKS[@]}"; do
    load "$s" watch 1 --watchers "$WATCHERS" --updates 200
  done
fi
for s in "${STACKS[@]}"; do
  echo "$(proc_sum VmRSS "$s") $(proc_sum VmHWM "$s")" >"$RESULTS/$s/memory"
  for np in ${PROCS[$s]}; do
    awk -v n="${np%=*}" '$1 == "VmRSS:" {printf "%s %.0f\n", n, $2 / 1024}' "/proc/${np#*=}/status"
  done >"$RESULTS/$s/memory.procs"
done

# What a list in one namespace costs beside many objects of its resource
# elsewhere: the list runs again once another namespace holds $CROWD
# ConfigMaps (kept from a seeding run), as row list-crowded.
if [ "$CROWD" -gt 0 ]; then
  echo "== list beside $CROWD ConfigMaps in another namespace"
  for s in "${STACKS[@]}"; do
    "$BIN/load" --kubeconfig "${KC[$s]}" --op get --namespace crowd --objects "$CROWD" --size 1024 --duration 1s --keep \
      >/dev/null 2>"$RESULTS/$s/crowd.log" || echo "   $s: seeding failed (see $RESULTS/$s/crowd.log)" >&2
  done
  for round in $(seq 1 "$ROUNDS"); do
    for i in $(seq 0 $((n - 1))); do
      load "${STACKS[$(((i + round - 1) % n))]}" list-crowded "$round" \
        --concurrency "$CONCURRENCY" --duration "$DURATION" --objects 100 --size 1024
    done
  done
fi
cleanup

ratios=""
for s in "${STACKS[@]:1}"; do ratios+="$s/${STACKS[0]},"; done
if [[ " ${STACKS[*]} " == *" split "* && " ${STACKS[*]} " == *" fused "* ]]; then ratios+="split/fused"; fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then commit+=" with uncommitted changes"; fi
{
  echo "make bench, $(date -u +%F), commit $commit, on $(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)."
  echo "client-go, JSON, concurrency $CONCURRENCY, $DURATION per run, $ROUNDS rounds alternating between the stacks, 100 ConfigMaps of 1 KiB; list-crowded lists them with $CROWD more in another namespace (measured after memory); the load tool shares the cores with the servers."
  echo
  "$BIN/benchtable" --dir "$RESULTS" --stacks "$(IFS=,; echo "${STACKS[*]}")" --ratios "${ratios%,}"
} | tee "$OUT/table.md"
echo "tables: $OUT/table.md"
