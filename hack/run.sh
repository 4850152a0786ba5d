#!/usr/bin/env bash
# Starts kubesplit on loopback for development, one process per stage:
#   aggregator https://127.0.0.1:6443  (the only endpoint clients use)
#   registry   http://127.0.0.1:6444   (etcd embedded, data under .run/etcd)
#   authz      http://127.0.0.1:6445   (RBAC, fed through the aggregator)
#   authn      http://127.0.0.1:6446   (TokenReview, TokenRequest)
# and writes an admin kubeconfig (group system:masters) to .run/kubeconfig.
# Backends accept only the aggregator's signed identity. Ctrl-C stops
# everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=.run
mkdir -p "$RUN"
pids=()
stop() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
# Ctrl-C is how a newcomer stops it: a clean exit, not an error.
trap 'stop; exit 0' INT TERM
trap stop EXIT

wait_file() {
  for _ in $(seq 1 300); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "timed out waiting for $1 (see $RUN/*.log)" >&2
  exit 1
}

# Tokens: the admin's, and the credentials authn and authz use to watch the
# API through the aggregator (system:masters, which the aggregator allows
# without asking authz, so start-up cannot deadlock). Made once, kept.
if [ ! -s "$RUN/tokens.csv" ]; then
  tok() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
  umask 077
  {
    echo "$(tok),admin,admin,\"system:masters\""
    echo "$(tok),system:kubesplit:authn,authn,\"system:masters\""
    echo "$(tok),system:kubesplit:authz,authz,\"system:masters\""
  } >"$RUN/tokens.csv"
  umask 022
fi
token() { grep ",$1," "$RUN/tokens.csv" | cut -d, -f1; }

# kubeconfig <path> <token>: a kubeconfig for the aggregator.
kubeconfig() {
  cat >"$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: kubesplit
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: "$PWD/$RUN/aggregator/ca.crt"}
users:
- name: user
  user: {token: "$2"}
contexts:
- name: kubesplit
  context: {cluster: kubesplit, user: user}
current-context: kubesplit
KUBECONFIG
}

rm -f "$RUN"/*.addr
bin/aggregator --bind-address 127.0.0.1:6443 --cert-dir "$RUN/aggregator" --token-auth-file "$RUN/tokens.csv" \
  --registry-url http://127.0.0.1:6444 --authn-url http://127.0.0.1:6446 --authz-url http://127.0.0.1:6445 \
  --authorization-mode Webhook --address-file "$RUN/aggregator.addr" >"$RUN/aggregator.log" 2>&1 &
pids+=($!)
wait_file "$RUN/aggregator.addr"
identity="$RUN/aggregator/identity.pub"

bin/registry --bind-address 127.0.0.1:6444 --data-dir "$RUN/etcd" --identity-public-key-file "$identity" \
  --address-file "$RUN/registry.addr" >"$RUN/registry.log" 2>&1 &
pids+=($!)
wait_file "$RUN/registry.addr"

kubeconfig "$RUN/authz.kubeconfig" "$(token system:kubesplit:authz)"
bin/authz --bind-address 127.0.0.1:6445 --identity-public-key-file "$identity" --kubeconfig "$RUN/authz.kubeconfig" \
  --address-file "$RUN/authz.addr" >"$RUN/authz.log" 2>&1 &
pids+=($!)

kubeconfig "$RUN/authn.kubeconfig" "$(token system:kubesplit:authn)"
bin/authn --bind-address 127.0.0.1:6446 --cert-dir "$RUN/authn" --identity-public-key-file "$identity" \
  --kubeconfig "$RUN/authn.kubeconfig" --address-file "$RUN/authn.addr" >"$RUN/authn.log" 2>&1 &
pids+=($!)
wait_file "$RUN/authz.addr"
wait_file "$RUN/authn.addr"

kubeconfig "$RUN/kubeconfig" "$(token admin)"
echo
echo "kubesplit is serving at https://127.0.0.1:6443 (logs in $RUN/*.log)"
echo "  export KUBECONFIG=$PWD/$RUN/kubeconfig"
echo "  kubectl get namespaces"
echo "Ctrl-C stops it."
wait -n "${pids[@]}" || true
echo "a kubesplit process exited; stopping the others (see $RUN/*.log)" >&2
exit 1
