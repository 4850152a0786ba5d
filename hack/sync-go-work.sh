#!/usr/bin/env bash
# Regenerates go.work from the go.mod files in the tree, so the workspace
# always lists every module and nothing else. With --check it only reports
# whether the committed go.work is in sync (used by `make check-work` and CI).
set -euo pipefail
cd "$(dirname "$0")/.."
# hack/kube is left out on purpose: it only builds the upstream Kubernetes
# binaries (hack/kube-binaries.sh, always with GOWORK=off), and its replace
# directives pin every k8s.io staging module to kube's release, which in a
# workspace would be forced on every module. In go.work, `make lint` and
# `make test` (which vet and test every workspace module) would also compile
# kube's e2e suite it imports (hack/kube/e2e.go), about ten minutes a run.
mods=$(git ls-files --cached --others --exclude-standard '*go.mod' | grep -v testdata | grep -vx 'hack/kube/go.mod' | xargs -n1 dirname | sort)
want=$(mktemp)
trap 'rm -f "$want"' EXIT
{
  echo "go 1.26.0"
  echo
  echo "use ("
  for m in $mods; do echo "	./$m"; done
  echo ")"
} >"$want"
if [ "${1:-}" = "--check" ]; then
  if ! diff -u go.work "$want"; then
    echo "go.work is out of sync with the go.mod files: run hack/sync-go-work.sh" >&2
    exit 1
  fi
  exit 0
fi
cp "$want" go.work
