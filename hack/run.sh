#!/usr/bin/env bash
# make run: kubesplit on loopback for development, one process per stage
# (see hack/lib/stack.sh for the ports and the trust between them), with
# state and logs under .run and an admin kubeconfig at .run/kubeconfig.
# Ctrl-C stops everything it started. KUBESPLIT_RUN_DIR and KUBESPLIT_PORT
# (the aggregator's; the backends take the four after it) move it, as the
# end-to-end test of this script does.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/lib/stack.sh
RUN=${KUBESPLIT_RUN_DIR:-.run}
PORT=${KUBESPLIT_PORT:-6443}
pids=()
stop() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
# Ctrl-C is how a newcomer stops it: a clean exit, not an error.
trap 'stop; exit 0' INT TERM
trap stop EXIT

stack_start "$RUN" "$PORT"
echo
echo "kubesplit is serving at https://127.0.0.1:$PORT (logs in $RUN/*.log)"
echo "  export KUBECONFIG=$PWD/$RUN/kubeconfig"
echo "  kubectl get namespaces"
echo "Ctrl-C stops it."
wait -n "${pids[@]}" || true
echo "a kubesplit process exited; stopping the others (see $RUN/*.log)" >&2
exit 1
