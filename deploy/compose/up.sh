#!/usr/bin/env bash
# `make compose-up`: start the stack of docker-compose.yml, wait until the
# aggregator is ready, and copy the admin kubeconfig the init step made to
# $KUBECONFIG_OUT (default .run/compose.kubeconfig).
#
#   COMPOSE (default docker-compose; "docker compose" works too)
#   COMPOSE_PROJECT_NAME (default kubesplit)   extra arguments go to `up`
set -euo pipefail
cd "$(dirname "$0")/../.."
compose=(${COMPOSE:-docker-compose} -f deploy/compose/docker-compose.yml -p "${COMPOSE_PROJECT_NAME:-kubesplit}")
out=${KUBECONFIG_OUT:-.run/compose.kubeconfig}

"${compose[@]}" up -d "$@"
agg=$("${compose[@]}" ps -q aggregator | head -1)
mkdir -p "$(dirname "$out")"
docker cp "$agg:/certs/admin.kubeconfig" "$out"
chmod 600 "$out"
# Point it at the published port, wherever KUBESPLIT_PUBLISH put it.
addr=$("${compose[@]}" port aggregator 6443 | head -1)
kubectl --kubeconfig "$out" config set-cluster kubesplit --server "https://${addr/0.0.0.0/127.0.0.1}" >/dev/null
for _ in $(seq 1 120); do
  if kubectl --kubeconfig "$out" get --raw /readyz >/dev/null 2>&1 &&
    kubectl --kubeconfig "$out" get namespace kube-system >/dev/null 2>&1; then
    echo "ready: export KUBECONFIG=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
    exit 0
  fi
  sleep 1
done
echo "the stack did not become ready in 120 s; see: ${compose[*]} logs" >&2
kubectl --kubeconfig "$out" get --raw '/readyz?verbose' >&2 || true
exit 1
