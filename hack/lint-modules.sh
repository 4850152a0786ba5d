#!/usr/bin/env bash
# Checks each module on its own, as `go build` in a checkout of just that
# module would see it: with GOWORK=off its go.mod and go.sum (and replace
# lines) alone must build it, and `go mod tidy -diff` says whether they list
# exactly what it imports. The workspace hides both kinds of drift, since
# go.work supplies every module's requirements to every other.
set -euo pipefail
cd "$(dirname "$0")/.."
# hack/kube stays out, as it does of go.work (see hack/sync-go-work.sh):
# building it compiles kube's e2e suite, which is slow.
mods=$(git ls-files --cached --others --exclude-standard '*go.mod' | grep -v testdata | grep -vx 'hack/kube/go.mod' | xargs -n1 dirname | sort)
status=0
for m in $mods; do
  if ! out=$(cd "$m" && GOWORK=off go build ./... 2>&1); then
    echo "$m: GOWORK=off go build ./... fails:" >&2
    echo "$out" >&2
    status=1
  fi
  if ! out=$(cd "$m" && GOWORK=off go mod tidy -diff 2>&1); then
    echo "$m: go.mod/go.sum not tidy (run go mod tidy there):" >&2
    echo "$out" >&2
    status=1
  fi
done
exit $status
