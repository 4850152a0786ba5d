#!/usr/bin/env bash
# Builds one image per service FROM scratch (deploy/images/Dockerfile), plus
# kubesplit-certs (the compose stack's init step) and etcd from etcd's own
# Go module at the version the project uses. Called by `make images`, which
# builds bin/ first.
#
#   IMAGE_REPO (default kubesplit)  IMAGE_TAG (default dev)
#   ETCD_IMAGE (default $IMAGE_REPO/etcd:<etcd's module version>)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=${IMAGE_REPO:-kubesplit}
tag=${IMAGE_TAG:-dev}
bin=${BIN:-bin}
ctx_root=${IMAGE_CONTEXT:-.run/images}
ca=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[ -s "$ca" ] || { echo "no CA bundle at $ca (set CA_BUNDLE)" >&2; exit 1; }

etcd_version=$(cd tools/etcd && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
etcd_image=${ETCD_IMAGE:-$repo/etcd:$etcd_version}

# stage <name> <binary file>: a build context holding only what the
# Dockerfile copies, so nothing else of the tree is sent to the engine.
stage() {
  local dir="$ctx_root/$1"
  rm -rf "$dir"
  mkdir -p "$dir/rootfs/certs" "$dir/rootfs/tmp" "$dir/rootfs/var/lib/etcd"
  cp "$2" "$dir/$1"
  cp "$ca" "$dir/ca-certificates.crt"
  echo "$dir"
}

build() { # build <name> <binary file> <image>
  local dir
  dir=$(stage "$1" "$2")
  # The legacy builder warns on stderr on every build: show its output
  # only when the build fails.
  local out
  if ! out=$(docker build -q -f deploy/images/Dockerfile --build-arg "BINARY=$1" -t "$3" "$dir" 2>&1); then
    echo "$out" >&2
    return 1
  fi
  rm -rf "$dir" # a copy of the binary, no longer needed
  echo "built $3"
}

for s in registry aggregator authn authz admission; do
  build "$s" "$bin/$s" "$repo/$s:$tag"
done
build kubesplit-certs "$bin/kubesplit-certs" "$repo/certs:$tag"
mkdir -p "$ctx_root"
CGO_ENABLED=0 go build -trimpath -o "$ctx_root/etcd.bin" ./tools/etcd/member
build etcd "$ctx_root/etcd.bin" "$etcd_image"
rm -f "$ctx_root/etcd.bin"
