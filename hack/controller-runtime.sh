#!/usr/bin/env bash
# make controller-runtime: controller-runtime's own envtest suites
# (pkg/client, pkg/cache and pkg/builder of sigs.k8s.io/controller-runtime,
# whose release v0.25.2 requires k8s.io v0.37.x) against two servers, with
# USE_EXISTING_CLUSTER=true, so envtest starts nothing and installs its
# CRDs into the server it is given:
#   kube       kube-apiserver v1.37.2 and its etcd (hack/lib/kube.sh, from
#              hack/kube-binaries.sh's cache) and a kube-controller-manager
#              running only the controllers kubesplit runs itself
#   kubesplit  the five services as make run starts them (hack/lib/stack.sh,
#              from $BIN)
# Each suite runs on a freshly started server (empty etcd) on each, since
# one suite's leftovers fail the next one's list specs; kube first, then
# kubesplit, with the same ginkgo seed. The counts per suite and server,
# and the specs that pass on kube but fail on kubesplit, are computed from
# ginkgo's JSON reports into <dir>/summary.md. It exits 1 when such a spec
# (or a report) is missing, 0 otherwise: specs failing on both servers are
# envtest's assumptions about a bare server (kube-root-ca.crt ConfigMaps and
# default ServiceAccounts that both servers' controllers create).
#
#   BIN                  kubesplit's binaries (default bin; make build)
#   KUBESPLIT_CR_DIR     source, test binaries, server state and logs,
#                        ginkgo's JSON and JUnit reports, summary.md
#                        (default .run/controller-runtime)
#   KUBESPLIT_CR_PORT    first loopback port (default 16543): kube-apiserver
#                        on it, its etcd on the two after, its
#                        kube-controller-manager on the third after; kubesplit
#                        on the five from PORT+10. Apart from make run's
#                        (6443..6447), make bench's and make profile's
#                        (16443..16487).
#   KUBESPLIT_CR_SUITES  the packages under pkg/ (default: client cache builder)
#   KUBESPLIT_CR_FOCUS   a ginkgo focus regular expression (default: every spec)
#   KUBESPLIT_CR_SEED    ginkgo's random seed, the same on both servers
#                        (default: the time)
#   KUBESPLIT_CR_MINUTES timeout of each suite on each server (default 25)
#   KUBESPLIT_CR_NICE    the niceness everything runs at, servers included,
#                        so that both get the same share (default 15; 0 keeps it)
#
# A cold module and build cache adds a few minutes of downloading and
# compiling; every later run recompiles only controller-runtime's packages.
set -euo pipefail

# Everything at a lower priority, servers too, so that both servers share
# the machine alike with whatever else runs on it (and yield to it). Done
# by running this script again under nice, before the cd, while $0 still
# names it: nice's -n is an increment everywhere, unlike renice's.
nice_by=${KUBESPLIT_CR_NICE:-15}
if [ "$nice_by" != 0 ] && [ -z "${KUBESPLIT_CR_NICED:-}" ]; then
  KUBESPLIT_CR_NICED=1 exec nice -n "$nice_by" "$0" "$@"
fi
cd "$(dirname "$0")/.."

. hack/lib/stack.sh
. hack/lib/kube.sh
GO=${GO:-go}
BIN=${BIN:-bin}
export BIN # stack.sh and kube.sh take kubesplit-certs from it
CR_MODULE=sigs.k8s.io/controller-runtime
CR_VERSION=v0.25.2
out=${KUBESPLIT_CR_DIR:-.run/controller-runtime}
base=${KUBESPLIT_CR_PORT:-16543}
read -ra suites <<<"${KUBESPLIT_CR_SUITES:-client cache builder}"
focus=${KUBESPLIT_CR_FOCUS:-}
seed=${KUBESPLIT_CR_SEED:-$(date +%s)}
minutes=${KUBESPLIT_CR_MINUTES:-25}
for v in KUBESPLIT_CR_PORT=$base KUBESPLIT_CR_SEED=$seed KUBESPLIT_CR_MINUTES=$minutes; do
  case ${v#*=} in '' | *[!0-9]*)
    echo "${v%%=*} must be a whole number, not '${v#*=}'" >&2
    exit 2
    ;;
  esac
done
# Ginkgo's own timeout is a minute shorter than the suite's, so that it
# still writes its reports.
if [ "$minutes" -lt 2 ]; then
  echo "KUBESPLIT_CR_MINUTES must be at least 2" >&2
  exit 2
fi
if [ ! -x "$BIN/kubesplit-certs" ] || [ ! -x "$BIN/aggregator" ]; then
  echo "no kubesplit binaries in $BIN: run make build (or set BIN)" >&2
  exit 2
fi
command -v python3 >/dev/null || {
  echo "python3 is needed to read ginkgo's reports" >&2
  exit 2
}
kube_port=$base ks_port=$((base + 10))
# The controllers kubesplit runs itself (the registry's housekeeping and
# admission's quota recount: test/e2e/framework's BesideKubeControllerManager
# leaves out the same), and no others: with --controllers=* the
# deployment, replicaset, … controllers would act on the objects the
# suites create, which nothing does on kubesplit. Not
# serviceaccount-token-controller: kubesplit fills no legacy token Secrets.
kcm_controllers=namespace-controller,serviceaccount-controller,garbage-collector-controller
kcm_controllers+=,root-ca-certificate-publisher-controller,validatingadmissionpolicy-status-controller
kcm_controllers+=,resourcequota-controller

mkdir -p "$out"
out=$(cd "$out" && pwd)
started=$(date +%s)
kube_bin=$(hack/kube-binaries.sh | tail -n1)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then commit+=" (with uncommitted changes)"; fi
# kube_start and stack_start set umask 077 for the server's keys; the
# reports and the summary are not secret.
saved_umask=$(umask)

pids=()
suite_pid=
# stop: the running suite and every server process asked to stop at once
# (kube-apiserver waits for its etcd, so one by one could hold it up), and
# killed if still there after 15 s (kube-apiserver sometimes is). The
# watchdog stops its own sleep when told to, so that nothing outlives this.
stop() {
  local all=(${suite_pid:+"$suite_pid"} ${pids[@]+"${pids[@]}"})
  suite_pid= pids=()
  [ ${#all[@]} -gt 0 ] || return 0
  kill -TERM "${all[@]}" 2>/dev/null || true
  (
    sleep 15 &
    sleeper=$!
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    wait "$sleeper"
    kill -KILL "${all[@]}" 2>/dev/null
  ) &
  local killer=$!
  wait "${all[@]}" 2>/dev/null || true
  kill "$killer" 2>/dev/null || true
  wait "$killer" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ports_free <first> <count>: fails, naming it, when something already
# listens on one of them (a server of ours would then not start, or the
# suite would talk to someone else's).
ports_free() {
  local p
  for ((p = $1; p < $1 + $2; p++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "port $p is in use; choose another KUBESPLIT_CR_PORT" >&2
      return 1
    fi
  done
}

# wait_defaults <dir> <url>: until the default namespace has its default
# ServiceAccount and kube-root-ca.crt ConfigMap, so both servers' controllers
# are at work and every suite starts from the same state.
wait_defaults() {
  local ca=$1/ca.crt token path ok
  token=$(stack_token "$1" admin)
  for _ in $(seq 1 300); do
    ok=1
    for path in serviceaccounts/default configmaps/kube-root-ca.crt; do
      curl -fsS --max-time 5 --cacert "$ca" -H "Authorization: Bearer $token" \
        "$2/api/v1/namespaces/default/$path" >/dev/null 2>&1 || ok=0
    done
    [ "$ok" = 1 ] && return 0
    sleep 0.2
  done
  echo "the default namespace has no default ServiceAccount or kube-root-ca.crt after a minute (see the logs in $1)" >&2
  return 1
}

# start_kube <dir>: kube-apiserver, its etcd and kube-controller-manager.
start_kube() {
  local dir=$1
  ports_free "$kube_port" 4
  kube_start "$dir" "$kube_port" "$kube_bin"
  # --root-ca-file: without it kube-controller-manager takes its
  # kubeconfig's inline CA data, which ours does not have (it names a
  # file), and publishes an empty ca.crt.
  "$kube_bin/kube-controller-manager" --kubeconfig "$dir/kubeconfig" --controllers "$kcm_controllers" \
    --use-service-account-credentials=false --leader-elect=false \
    --bind-address 127.0.0.1 --secure-port "$((kube_port + 3))" --cert-dir "$dir/kcm-certs" \
    --root-ca-file "$dir/ca.crt" >"$dir/kube-controller-manager.log" 2>&1 &
  pids+=($!)
  wait_defaults "$dir" "https://127.0.0.1:$kube_port"
}

# start_kubesplit <dir>: make run's stack, every controller its own.
start_kubesplit() {
  ports_free "$ks_port" 5
  stack_start "$1" "$ks_port"
  wait_defaults "$1" "https://127.0.0.1:$ks_port"
}

# Once before anything else too, so that a clash fails at once and keeps
# the last run's reports.
ports_free "$kube_port" 4
ports_free "$ks_port" 5

# The source from the module cache (go mod download checks it against the
# checksum database), copied to be writable: go test -c may complete its
# go.sum, and the suites write beside their testdata.
echo "== controller-runtime $CR_VERSION"
dl=$(cd "$out" && GOWORK=off timeout 10m "$GO" mod download -json "$CR_MODULE@$CR_VERSION")
cr_dir=$(python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(d["Error"]) if d.get("Error") else print(d["Dir"])' <<<"$dl")
rm -rf "$out/src" "$out/bin" "$out/build.log"
cp -r "$cr_dir" "$out/src"
chmod -R u+w "$out/src"
mkdir -p "$out/bin"
for suite in "${suites[@]}"; do
  [ -d "$out/src/pkg/$suite" ] || {
    echo "controller-runtime $CR_VERSION has no package pkg/$suite" >&2
    exit 2
  }
  echo "== compiling pkg/$suite"
  # GOWORK=off: the module is not in go.work; -mod=mod: its go.sum may
  # lack a test dependency's line, which goes to the copy.
  (cd "$out/src" && GOWORK=off GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod" \
    timeout 30m "$GO" test -c -o "$out/bin/$suite.test" "./pkg/$suite") >>"$out/build.log" 2>&1 || {
    echo "compiling pkg/$suite failed; see $out/build.log" >&2
    exit 1
  }
done

rm -rf "$out/servers" "$out/reports"
mkdir -p "$out/reports/kube" "$out/reports/kubesplit"
# Not $s: stack_start sets that one.
for suite in "${suites[@]}"; do
  for server in kube kubesplit; do
    dir=$out/servers/$server-$suite report=$out/reports/$server/$suite
    url=https://127.0.0.1:$kube_port
    [ "$server" = kube ] || url=https://127.0.0.1:$ks_port
    echo "== $suite on $server: starting it at $url (logs in $dir)"
    "start_$server" "$dir"
    umask "$saved_umask"
    echo "== $suite on $server: running the suite (log $report.log)"
    t0=$(date +%s)
    # From the package's directory, where the suites find ./testdata. In
    # the background, so that a signal to this script stops it at once.
    (
      cd "$out/src/pkg/$suite"
      USE_EXISTING_CLUSTER=true KUBECONFIG=$dir/kubeconfig exec timeout --kill-after 30s "${minutes}m" \
        "$out/bin/$suite.test" -test.timeout "${minutes}m" -ginkgo.timeout "$((minutes - 1))m" \
        -ginkgo.v -ginkgo.no-color -ginkgo.seed "$seed" ${focus:+"-ginkgo.focus=$focus"} \
        -ginkgo.json-report "$report.json" -ginkgo.junit-report "$report.junit.xml"
    ) >"$report.log" 2>&1 &
    suite_pid=$!
    rc=0
    wait "$suite_pid" || rc=$?
    suite_pid=
    # A failing spec makes the binary exit 1; the report says which.
    echo "== $suite on $server: exit $rc after $(($(date +%s) - t0)) s; $(grep -E '^Ran [0-9]+ of' "$report.log" | tail -n1 || true)"
    stop
  done
done

echo "== summary"
status=0
python3 - "$out" "$CR_VERSION" "$commit" "$BIN" "$seed" "$((($(date +%s) - started + 30) / 60))" "${focus:-}" "${suites[@]}" \
  >"$out/summary.md" <<'PY' || status=$?
import datetime, json, os, sys

out, version, commit, bin_dir, seed, minutes, focus, *suites = sys.argv[1:]
servers = ["kube", "kubesplit"]
src = os.path.join(out, "src") + os.sep
FAILED = {"failed", "panicked", "interrupted", "aborted", "timedout"}


def load(server, suite):
    """The suite's spec reports, or None when it wrote no report."""
    try:
        with open(os.path.join(out, "reports", server, suite + ".json")) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    return report


def where(loc):
    name = loc.get("FileName", "")
    if name.startswith(src):
        name = name[len(src):]
    return "%s:%s" % (name, loc.get("LineNumber", "?"))


def specs(report):
    """(name, location) -> [(state, first lines of the failure)] of the It specs."""
    found = {}
    for suite in report:
        for spec in suite.get("SpecReports") or []:
            if spec.get("LeafNodeType") != "It":
                continue
            name = " ".join((spec.get("ContainerHierarchyTexts") or []) + [spec.get("LeafNodeText", "")])
            message = (spec.get("Failure") or {}).get("Message", "")
            lines = [l.rstrip() for l in message.strip().splitlines()][:6]
            found.setdefault((name, where(spec.get("LeafNodeLocation") or {})), []).append((spec["State"], lines))
    return found


def suite_failures(report):
    """Failures outside the It specs: BeforeSuite, AfterSuite, …"""
    return [
        "%s (%s): %s" % (s["LeafNodeType"], where(s.get("LeafNodeLocation") or {}),
                         ((s.get("Failure") or {}).get("Message", "").strip().splitlines() or [""])[0])
        for r in report for s in r.get("SpecReports") or []
        if s.get("LeafNodeType") != "It" and s.get("State") in FAILED
    ]


def count(found):
    c = {"passed": 0, "failed": 0, "pending": 0, "skipped": 0}
    for states in found.values():
        for state, _ in states:
            c["failed" if state in FAILED else state] = c.get(state, 0) + 1
    return c


def bullet(key, lines=None):
    text = ["- `%s` (%s)" % (key[0].replace("`", "'"), key[1])]
    if lines:
        text += ["", "  ```"] + ["  " + l for l in lines] + ["  ```"]
    return text


rows, regressions, kube_only, both, missing, suite_level = [], [], [], [], [], []
for suite in suites:
    found = {}
    for server in servers:
        report = load(server, suite)
        if report is None:
            missing.append("%s on %s" % (suite, server))
            rows.append("| %s | %s | no report | | | | |" % (suite, server))
            continue
        found[server] = specs(report)
        c = count(found[server])
        seconds = sum(r.get("RunTime", 0) for r in report) / 1e9
        title = report[0].get("SuiteDescription", suite) if report else suite
        rows.append("| %s (pkg/%s) | %s | %d | %d | %d | %d | %.1f |" % (
            title, suite, server, c["passed"], c["failed"], c["pending"], c["skipped"], seconds))
        suite_level += ["%s on %s: %s" % (suite, server, f) for f in suite_failures(report)]
    if len(found) < 2:
        continue
    kube, ks = found["kube"], found["kubesplit"]
    for key in sorted(set(kube) | set(ks)):
        k = [s for s, _ in kube.get(key, [])]
        q = [s for s, _ in ks.get(key, [])]
        k_failed = any(s in FAILED for s in k)
        q_failed = any(s in FAILED for s in q)
        k_passed = bool(k) and all(s == "passed" for s in k)
        q_passed = bool(q) and all(s == "passed" for s in q)
        if k_passed and not q_passed:
            # Failed, or not run at all there (an aborted suite).
            lines = next((l for s, l in ks.get(key, []) if s in FAILED), ["not run on kubesplit: %s" % (q or "absent")])
            regressions.append((suite, key, lines))
        elif q_passed and k_failed:
            kube_only.append((suite, key, next(l for s, l in kube[key] if s in FAILED)))
        elif k_failed and q_failed:
            both.append((suite, key, next(l for s, l in ks[key] if s in FAILED)))

md = ["# controller-runtime %s's envtest suites: kube-apiserver v1.37.2 and kubesplit" % version, ""]
md += ["%s, kubesplit at %s (binaries from %s), ginkgo seed %s%s; %s minutes in all." % (
    datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    commit, bin_dir, seed, ", focus `%s`" % focus if focus else "", minutes), ""]
md += ["Each suite ran with USE_EXISTING_CLUSTER=true on a freshly started server: kube-apiserver "
       "with its etcd and a kube-controller-manager running only the controllers kubesplit runs itself, "
       "and kubesplit as make run starts it (hack/controller-runtime.sh). Counts are of the It specs "
       "in ginkgo's JSON reports (reports/<server>/<suite>.json); failed includes panicked, "
       "interrupted, aborted and timed out.", ""]
md += ["| suite | server | passed | failed | pending | skipped | seconds |", "|---|---|---|---|---|---|---|"] + rows + [""]

md += ["## Passing on kube-apiserver, failing on kubesplit", ""]
if regressions:
    for suite, key, lines in regressions:
        md += bullet(("%s: %s" % (suite, key[0]), key[1]), lines)
else:
    md += ["None."]
md += [""]
if missing:
    md += ["## Suites without a report", ""] + ["- " + m for m in missing] + [""]
if suite_level:
    md += ["## Failures outside the specs", ""] + ["- " + f for f in suite_level] + [""]
md += ["## Failing on kube-apiserver, passing on kubesplit", ""]
md += sum((bullet(("%s: %s" % (s, k[0]), k[1]), l) for s, k, l in kube_only), []) or ["None."]
md += ["", "## Failing on both (kubesplit's failure)", ""]
md += sum((bullet(("%s: %s" % (s, k[0]), k[1]), l[:3]) for s, k, l in both), []) or ["None."]
print("\n".join(md))
sys.exit(1 if regressions or missing else 0)
PY
cat "$out/summary.md"
echo "summary: $out/summary.md"
exit "$status"
