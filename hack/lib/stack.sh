# shellcheck shell=bash
# Starting the split stack on loopback, shared by hack/run.sh (make run)
# and hack/bench.sh. Source it, then call stack_start. The caller owns
# the pids array and stops what it holds.
#
# stack_start <dir> <base port> [registry flags…] starts
#   aggregator https://127.0.0.1:<base>    (the only endpoint clients use)
#   registry   https://127.0.0.1:<base+1>  (etcd embedded unless flags say)
#   authz      https://127.0.0.1:<base+2>  (RBAC, fed through the aggregator)
#   authn      https://127.0.0.1:<base+3>  (TokenReview, TokenRequest)
#   admission  https://127.0.0.1:<base+4>  (built-in plugins, fed through the aggregator)
# with logs and state under <dir>, and links an admin kubeconfig (group
# system:masters) at <dir>/kubeconfig. As in the deploys, every hop is
# HTTPS with certificates of the stack's own CA, and the credentials are
# kubesplit-certs' (deploy/certs): backends accept only the aggregator's
# signed identity, admission only the registry's.
#
# <dir> holds tokens and private keys, so it is made 0700 and everything
# the stack writes into it is private to its user (umask 077).

stack_wait_file() {
  for _ in $(seq 1 600); do [ -s "$1" ] && return 0; sleep 0.1; done
  echo "timed out waiting for $1 (see the logs beside it)" >&2
  return 1
}

# stack_dir <dir>: <dir> made (if missing) private to this user. Prints
# its absolute path.
stack_dir() {
  mkdir -p "$1"
  chmod 700 "$1"
  (cd "$1" && pwd)
}

# stack_tokens <dir> <url>: kubesplit-certs' set in <dir>: the CA, every
# service's serving certificate and key, the aggregator's identity key
# pair, the registry's admission key pair, the service-account signing
# key, and the tokens (tokens.csv) and kubeconfigs of the admin
# (admin.kubeconfig) and of the services that reach the API at <url>:
# authn, authz and admission watch it (system:masters, which the
# aggregator allows without asking authz, so start-up cannot deadlock),
# and every backend asks it who may read its /metrics. Beside them, what a
# kube-apiserver needs to use the stages (authz, authn and admission on
# the three ports after the registry's) as its webhooks: webhook-*.kubeconfig,
# kube-authorization-config.yaml, kube-admission-config.yaml and
# kube-admission-webhooks.yaml (see the README). Made once, kept, unless
# the stack moved to another port: then the kubeconfigs would point at
# the old one, so the whole set is made anew.
stack_tokens() {
  local dir base=${2##*:} lo="https://127.0.0.1"
  dir=$(stack_dir "$1")
  if [ -f "$dir/admin.kubeconfig" ] && ! grep -qx "    server: $2" "$dir/admin.kubeconfig"; then
    rm -f "$dir/ca.crt"
  fi
  "${BIN:-bin}/kubesplit-certs" --dir "$dir" --internal-url "$2" --public-url "$2" \
    --authz-url "$lo:$((base + 2))" --authn-url "$lo:$((base + 3))" --admission-url "$lo:$((base + 4))" >/dev/null
}

# stack_grant_webhook_caller <dir> <url> <ca> <token>: applies
# webhook-caller-rbac.yaml (a ClusterRole and its binding) to the stack,
# so the kube-apiserver the webhook kubeconfigs are for may call the
# stages; one already there is kept.
stack_grant_webhook_caller() {
  local doc code kinds=(clusterroles clusterrolebindings)
  for i in 0 1; do
    doc=$(awk -v want="$i" '/^---$/ {n++; next} n == want' "$1/webhook-caller-rbac.yaml")
    code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$3" -H "Authorization: Bearer $4" \
      -H "Content-Type: application/yaml" --data-binary "$doc" "$2/apis/rbac.authorization.k8s.io/v1/${kinds[$i]}")
    case $code in 201 | 409) ;; *)
      echo "applying webhook-caller-rbac.yaml (${kinds[$i]}) answered $code" >&2
      return 1
      ;;
    esac
  done
}

stack_token() { grep ",$2," "$1/tokens.csv" | cut -d, -f1; }

# stack_kubeconfig <path> <server> <ca file> <token>: written private to
# this user, since it holds the token.
stack_kubeconfig() {
  (
    umask 077
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
  )
  chmod 600 "$1"
}

# stack_launch <dir> <name> <binary> [flags…]: one process, its log and
# address file under <dir>, serving HTTPS with <dir>/<name>.crt.
stack_launch() {
  local dir=$1 name=$2 bin=$3; shift 3
  "$bin" --address-file "$dir/$name.addr" --tls-cert-file "$dir/$name.crt" --tls-private-key-file "$dir/$name.key" \
    "$@" >"$dir/$name.log" 2>&1 &
  pids+=($!)
  echo $! >"$dir/$name.pid"
}

# stack_advertise_flags: the aggregator's --advertise-address, for its
# entry in the kubernetes Service's endpoints. It listens on loopback,
# which an Endpoints may not hold, so it advertises $KUBESPLIT_ADVERTISE_ADDRESS
# or else the host's first address (kube-apiserver's own default when its
# bind address is unspecified); with neither, it advertises nothing.
stack_advertise_flags() {
  local address=${KUBESPLIT_ADVERTISE_ADDRESS:-$(hostname -I 2>/dev/null | awk '{print $1}')}
  if [ -n "$address" ]; then echo "--advertise-address $address"; fi
}

stack_start() {
  local dir=$1 base=$2; shift 2
  local bin=${BIN:-bin} url="https://127.0.0.1:$base" lo="https://127.0.0.1"
  local advertise
  read -ra advertise <<<"$(stack_advertise_flags)"
  # Whatever the services write under <dir> (logs, generated keys) is
  # theirs alone too.
  umask 077
  dir=$(stack_dir "$dir")
  rm -f "$dir"/*.addr
  stack_tokens "$dir" "$url"
  local ca="$dir/ca.crt"

  local launched
  launched=$(stack_now_ms)
  stack_launch "$dir" aggregator "$bin/aggregator" --bind-address "127.0.0.1:$base" --cert-dir "$dir/aggregator" \
    --identity-key-file "$dir/identity.key" --token-auth-file "$dir/tokens.csv" --authorization-mode Webhook \
    --proxy-client-cert-file "$dir/front-proxy-client.crt" --proxy-client-key-file "$dir/front-proxy-client.key" \
    --requestheader-client-ca-file "$dir/front-proxy-ca.crt" --upstream-ca-file "$ca" \
    --registry-url "$lo:$((base + 1))" --authz-url "$lo:$((base + 2))" --authn-url "$lo:$((base + 3))" \
    ${advertise[@]+"${advertise[@]}"}
  stack_launch "$dir" registry "$bin/registry" --bind-address "127.0.0.1:$((base + 1))" --data-dir "$dir/etcd" \
    --identity-public-key-file "$dir/identity.pub" --admission-url "$lo:$((base + 4))" --admission-ca-file "$ca" \
    --admission-identity-key-file "$dir/registry-admission.key" --kubeconfig "$dir/registry.kubeconfig" \
    --root-ca-file "$ca" "$@"
  stack_launch "$dir" authz "$bin/authz" --bind-address "127.0.0.1:$((base + 2))" \
    --identity-public-key-file "$dir/identity.pub" --kubeconfig "$dir/authz.kubeconfig" --client-ca-file "$dir/webhook-client-ca.crt"
  stack_launch "$dir" authn "$bin/authn" --bind-address "127.0.0.1:$((base + 3))" --cert-dir "$dir/authn" \
    --token-auth-file "$dir/tokens.csv" --service-account-signing-key-file "$dir/sa.key" \
    --identity-public-key-file "$dir/identity.pub" --kubeconfig "$dir/authn.kubeconfig" --client-ca-file "$dir/webhook-client-ca.crt"
  stack_launch "$dir" admission "$bin/admission" --bind-address "127.0.0.1:$((base + 4))" \
    --identity-public-key-file "$dir/registry-admission.pub" --kubeconfig "$dir/admission.kubeconfig" \
    --client-ca-file "$dir/webhook-client-ca.crt"
  for s in aggregator registry authz authn admission; do stack_wait_file "$dir/$s.addr"; done
  ln -sfn admin.kubeconfig "$dir/kubeconfig"
  stack_wait_ready "$url" "$ca" "$(stack_token "$dir" admin)"
  stack_ready_since "$dir" "$launched"
  stack_grant_webhook_caller "$dir" "$url" "$ca" "$(stack_token "$dir" admin)"
}

stack_now_ms() { date +%s%3N; }

# stack_ready_since <dir> <launched ms>: writes <dir>/ready.ms, the
# milliseconds from the first process's launch to the stack answering
# (make bench's launch-to-ready).
stack_ready_since() { echo $(($(stack_now_ms) - $2)) >"$1/ready.ms"; }

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
