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
# With --e2e (or KUBESPLIT_KUBE_E2E=1) it also builds kube's e2e test binary,
# e2e.test (go test -c k8s.io/kubernetes/test/e2e), for hack/conformance.sh;
# that adds several minutes to a cold build, so `make test` leaves it out.
set -euo pipefail
e2e=${KUBESPLIT_KUBE_E2E:-0}
for arg in "$@"; do
  case $arg in
  --e2e) e2e=1 ;;
  *) echo "usage: $0 [--e2e]" >&2; exit 2 ;;
  esac
done
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

# current NAME: whether $bin/NAME exists and was built from these inputs.
current() {
  [ -x "$bin/$1" ] && [ "$(cat "$bin/.$1.stamp" 2>/dev/null)" = "$stamp" ]
}

# install NAME...: moves each built binary and its stamp from $tmp into $bin.
install() {
  for name in "$@"; do
    echo "$stamp" >"$tmp/.$name.stamp"
    mv -f "$tmp/$name" "$bin/$name"
    mv -f "$tmp/.$name.stamp" "$bin/.$name.stamp"
  done
}

names=() pkgs=()
for t in "${targets[@]}"; do
  name=${t%%=*}
  current "$name" && continue
  names+=("$name")
  pkgs+=("${t#*=}")
done
build_e2e=0
if [ "$e2e" = 1 ] && ! current e2e.test; then
  build_e2e=1
fi

if [ ${#names[@]} -gt 0 ] || [ $build_e2e = 1 ]; then
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # The version the binaries report (kube's own build sets these the same way).
  ldflags=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=37 -X $p.gitTreeState=clean"
  done
  start=$(date +%s)
fi

if [ ${#names[@]} -gt 0 ]; then
  echo "kube-binaries: building ${names[*]} (kube $KUBE_VERSION) into $bin" >&2
  # One go build for all of them: they share most packages, and the link
  # steps run in parallel. GOWORK=off: hack/kube is not in go.work.
  (cd "$mod" && CGO_ENABLED=0 GOWORK=off "$GO" build -trimpath -ldflags "-s -w$ldflags" -o "$tmp/" "${pkgs[@]}") >&2
  install "${names[@]}"
fi

if [ $build_e2e = 1 ]; then
  echo "kube-binaries: building e2e.test (kube $KUBE_VERSION) into $bin" >&2
  # The suite is the test of package test/e2e, so go test -c builds it;
  # hack/kube/e2e.go keeps the modules it needs in go.mod.
  (cd "$mod" && CGO_ENABLED=0 GOWORK=off "$GO" test -c -trimpath -ldflags "-s -w$ldflags" -o "$tmp/e2e.test" k8s.io/kubernetes/test/e2e) >&2
  install e2e.test
fi

if [ ${#names[@]} -gt 0 ] || [ $build_e2e = 1 ]; then
  echo "kube-binaries: built in $(($(date +%s) - start))s" >&2
fi
echo "$bin"
