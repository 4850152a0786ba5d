#!/usr/bin/env bash
# Builds the real Kubernetes v1.37.2 binaries (kube-apiserver,
# kube-controller-manager, kube-scheduler), the etcd they are released with and
# kwok, from the module in hack/kube, into a cache outside the tree:
#   ${KUBESPLIT_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubesplit/kube-v1.37.2}/bin
# so tests can compare kubesplit with kube. A cold build takes about ten
# minutes on two cores; a warm run only checks the stamps. Each binary is
# rebuilt when its stamp (sha256 of hack/kube's go.mod, go.sum and sources,
# this script and the Go version) differs, and written atomically. Concurrent
# runs take turns on a lock in the cache dir. Progress goes to stderr; the
# last line on stdout is the bin directory (KUBESPLIT_KUBE_BIN for tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/hack/kube-binaries.sh"
mod="$root/hack/kube"
KUBE_VERSION=v1.37.2
GO=${GO:-go}
cache=${KUBESPLIT_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubesplit/kube-$KUBE_VERSION}
bin="$cache/bin"
mkdir -p "$bin"

# name=package, built as $bin/name (go build names a binary after the last
# element of its package path, which is each name here).
targets=(
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler
  etcd=github.com/kubesplit/kubesplit/hack/kube/cmd/etcd
  kwok=sigs.k8s.io/kwok/cmd/kwok
)

exec 9>"$cache/lock"
if ! flock -n 9; then
  echo "kube-binaries: waiting for another build in $cache" >&2
  flock 9
fi

stamp=$(
  {
    cat "$mod/go.mod" "$mod/go.sum" "$script"
    find "$mod" -name '*.go' -print0 | sort -z | xargs -0 cat
    "$GO" env GOVERSION
  } | sha256sum | cut -d' ' -f1
)

names=() pkgs=()
for t in "${targets[@]}"; do
  name=${t%%=*}
  if [ -x "$bin/$name" ] && [ "$(cat "$bin/.$name.stamp" 2>/dev/null)" = "$stamp" ]; then
    continue
  fi
  names+=("$name")
  pkgs+=("${t#*=}")
done

if [ ${#names[@]} -gt 0 ]; then
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "kube-binaries: building ${names[*]} (kube $KUBE_VERSION) into $bin" >&2
  # The version the binaries report (kube's own build sets these the same way).
  ldflags=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=37 -X $p.gitTreeState=clean"
  done
  start=$(date +%s)
  # One go build for all of them: they share most packages, and the link
  # steps run in parallel. GOWORK=off: hack/kube is not in go.work.
  (cd "$mod" && CGO_ENABLED=0 GOWORK=off "$GO" build -trimpath -ldflags "-s -w$ldflags" -o "$tmp/" "${pkgs[@]}") >&2
  for name in "${names[@]}"; do
    echo "$stamp" >"$tmp/.$name.stamp"
    mv -f "$tmp/$name" "$bin/$name"
    mv -f "$tmp/.$name.stamp" "$bin/.$name.stamp"
  done
  echo "kube-binaries: built in $(($(date +%s) - start))s" >&2
fi
echo "$bin"
