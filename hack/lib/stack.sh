# shellcheck shell=bash
# Starting the split stack on loopback, shared by hack/run.sh (make run)
# and hack/bench.sh. Source it, then call stack_start. The caller owns
# the pids array and stops what it holds.
#
# stack_start <dir> <base port> [registry flags…] starts
#   aggregator https://127.0.0.1:<base>    (the only endpoint clients use)
#   registry   http://127.0.0.1:<base+1>   (etcd embedded unless flags say)
#   authz      http://127.0.0.1:<base+2>   (RBAC, fed through the aggregator)
#   authn      http://127.0.0.1:<base+3>   (TokenReview, TokenRequest)
#   admission  http://127.0.0.1:<base+4>   (built-in plugins, fed through the aggregator)
# with logs and state under <dir>, and writes an admin kubeconfig (group
# system:masters) to <dir>/kubeconfig. Backends accept only the
# aggregator's signed identity, admission only the registry's.

stack_wait_file() {
  for _ in $(seq 1 600); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "timed out waiting for $1 (see the logs beside it)" >&2
  return 1
}

# stack_tokens <dir>: the admin's token and the credentials the services
# use to reach the API through the aggregator: authn, authz and admission
# watch it (system:masters, which the aggregator allows without asking
# authz, so start-up cannot deadlock), and every backend asks it who may
# read its /metrics. Made once, kept (remade when a service's is missing).
stack_tokens() {
  grep -q ",system:kubesplit:registry," "$1/tokens.csv" 2>/dev/null && return 0
  tok() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
  (
    umask 077
    echo "$(tok),admin,admin,\"system:masters\""
    for s in registry authn authz admission; do echo "$(tok),system:kubesplit:$s,$s,\"system:masters\""; done
  ) >"$1/tokens.csv"
  chmod 600 "$1/tokens.csv"
}

stack_token() { grep ",$2," "$1/tokens.csv" | cut -d, -f1; }

# stack_kubeconfig <path> <server> <ca file> <token>
stack_kubeconfig() {
  cat >"$1" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: kubesplit
  cluster: {server: "$2", certificate-authority: "$3"}
users:
- name: user
  user: {token: "$4"}
contexts:
- name: kubesplit
  context: {cluster: kubesplit, user: user}
current-context: kubesplit
KUBECONFIG
}

# stack_launch <dir> <name> <binary> [flags…]: one process, its log and
# address file under <dir>.
stack_launch() {
  local dir=$1 name=$2 bin=$3; shift 3
  "$bin" --address-file "$dir/$name.addr" "$@" >"$dir/$name.log" 2>&1 &
  pids+=($!)
  echo $! >"$dir/$name.pid"
}

stack_start() {
  local dir=$1 base=$2; shift 2
  local bin=${BIN:-bin} url="https://127.0.0.1:$base"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  rm -f "$dir"/*.addr
  stack_tokens "$dir"
  local ca="$dir/aggregator/ca.crt" identity="$dir/aggregator/identity.pub"

  stack_launch "$dir" aggregator "$bin/aggregator" --bind-address "127.0.0.1:$base" --cert-dir "$dir/aggregator" \
    --token-auth-file "$dir/tokens.csv" --authorization-mode Webhook \
    --registry-url "http://127.0.0.1:$((base + 1))" --authz-url "http://127.0.0.1:$((base + 2))" \
    --authn-url "http://127.0.0.1:$((base + 3))"
  stack_wait_file "$dir/aggregator.addr"

  for s in registry authz authn admission; do
    stack_kubeconfig "$dir/$s.kubeconfig" "$url" "$ca" "$(stack_token "$dir" "system:kubesplit:$s")"
  done
  # The registry signs its AdmissionReviews with a key of its own, made
  # on its first start; admission trusts its public half.
  stack_launch "$dir" registry "$bin/registry" --bind-address "127.0.0.1:$((base + 1))" --data-dir "$dir/etcd" \
    --identity-public-key-file "$identity" --admission-url "http://127.0.0.1:$((base + 4))" \
    --admission-identity-key-file "$dir/registry/admission.key" --kubeconfig "$dir/registry.kubeconfig" "$@"
  stack_launch "$dir" authz "$bin/authz" --bind-address "127.0.0.1:$((base + 2))" \
    --identity-public-key-file "$identity" --kubeconfig "$dir/authz.kubeconfig"
  stack_launch "$dir" authn "$bin/authn" --bind-address "127.0.0.1:$((base + 3))" --cert-dir "$dir/authn" \
    --token-auth-file "$dir/tokens.csv" \
    --identity-public-key-file "$identity" --kubeconfig "$dir/authn.kubeconfig"
  stack_wait_file "$dir/registry/admission.key.pub"
  stack_launch "$dir" admission "$bin/admission" --bind-address "127.0.0.1:$((base + 4))" \
    --identity-public-key-file "$dir/registry/admission.key.pub" --kubeconfig "$dir/admission.kubeconfig"
  for s in registry authz authn admission; do stack_wait_file "$dir/$s.addr"; done
  stack_kubeconfig "$dir/kubeconfig" "$url" "$ca" "$(stack_token "$dir" admin)"
  stack_wait_ready "$url" "$ca" "$(stack_token "$dir" admin)"
}

# stack_wait_ready <url> <ca> <token>: until the aggregator's /readyz
# passes, which needs every upstream ready, and the system namespaces
# exist (the registry creates them once admission answers).
stack_wait_ready() {
  for _ in $(seq 1 600); do
    curl -fsS --cacert "$2" "$1/readyz" >/dev/null 2>&1 &&
      curl -fsS --cacert "$2" -H "Authorization: Bearer $3" "$1/api/v1/namespaces/kube-system" >/dev/null 2>&1 &&
      return 0
    sleep 0.1
  done
  echo "the stack did not become ready in 60 s; /readyz says:" >&2
  curl -sS --cacert "$2" "$1/readyz?verbose" >&2 || true
  return 1
}
