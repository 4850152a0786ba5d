#!/usr/bin/env bash
# make conformance: Kubernetes' own [Conformance] tests (kube's e2e.test,
# v1.37.2) against kubesplit and against a real kube-apiserver, each with
# kube-controller-manager, kube-scheduler and kwok's fake nodes, and a
# summary of each test's result on both (issue 13). The tests are those
# test/conformance/selection.txt selects: the ones that need no container
# runtime (see its comments). It runs TestConformance in test/e2e, which
# starts everything on loopback ports it picks and stops it by PID.
#
#   KUBESPLIT_CONFORMANCE_DIR       reports, logs and summary.md (default .run/conformance)
#   KUBESPLIT_CONFORMANCE_MINUTES   ginkgo's timeout per server, in minutes (default 60)
#   KUBESPLIT_CONFORMANCE_FOCUS     a regular expression of tests run instead of the selection
#   KUBESPLIT_CONFORMANCE_SKIP      a regular expression of tests left out
#   KUBESPLIT_CONFORMANCE_LABELS    ginkgo's label filter (default Conformance)
#   KUBESPLIT_CONFORMANCE_PARALLEL  1: both servers at once
#
# The first run builds e2e.test (hack/kube-binaries.sh --e2e), several
# minutes more on a cold cache.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
BIN=${BIN:-bin}
out=${KUBESPLIT_CONFORMANCE_DIR:-.run/conformance}
minutes=${KUBESPLIT_CONFORMANCE_MINUTES:-60}
case $minutes in '' | *[!0-9]*)
  echo "KUBESPLIT_CONFORMANCE_MINUTES must be a whole number of minutes, not '$minutes'" >&2
  exit 2
  ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
kube_bin=$(hack/kube-binaries.sh --e2e | tail -n1)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then commit+=" (with uncommitted changes)"; fi

# go test's own timeout covers both servers' runs one after the other,
# their start-up and the summary.
KUBESPLIT_BIN=$(cd "$BIN" && pwd) KUBESPLIT_KUBE_BIN=$kube_bin \
  KUBESPLIT_CONFORMANCE_DIR=$out KUBESPLIT_CONFORMANCE_TIMEOUT=${minutes}m KUBESPLIT_CONFORMANCE_COMMIT=$commit \
  "$GO" test -count=1 -timeout "$((2 * minutes + 20))m" -run '^TestConformance$' -v ./test/e2e 2>&1 | tee "$out/go-test.log"
echo "summary: $out/summary.md"
