#!/usr/bin/env bash
# make bench: measures the budgets of docs/benchmarks.md on a local control
# plane of its own with the kube-apiserver audit log on, and prints one table
# (also written to _output/bench/results.md). See docs/benchmarks.md.
#
# Variables (defaults in brackets):
#   BENCH_PARTS          all (then, on a TechPreviewNoUpgrade control plane,
#                        guard); scale for the scale part only (make
#                        test-scale); flips for the spec flips only; guard
#                        for the scale-down guards' writes only [all]
#   BENCH_STEADY         steady-state observation window [10m]
#   BENCH_GRACE          wait after the ClusterOperator settled, before measuring [30s]
#   BENCH_FLIPS          NodeOperator spec flips timed [50]
#   BENCH_NODES          simulated nodes of the scale part [5000]
#   BENCH_CHURN_NODES    nodes joined and removed again at BENCH_NODES [500]
#   BENCH_SCALE_TIMEOUT  wait for the DaemonSet to settle after each scaling [15m]
#   BENCH_SCRAPE_FILE    result of the real-scrape rotation test
#                        [_output/bench/scrape-rotation.json]
#   BENCH_TIMEOUT        go test -timeout [90m]
#   KEEP_CLUSTER=1       leave the control plane running afterwards
#   LCP_*                see hack/local-cluster.sh (ports default to 57xxx here)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi

export LCP_DIR=${LCP_DIR:-$root/_output/lcp-bench}
export LCP_AUDIT=1
export LCP_NODES=${LCP_NODES:-10}
export LCP_APISERVER_PORT=${LCP_APISERVER_PORT:-57443}
export LCP_ETCD_PORT=${LCP_ETCD_PORT:-57379}
export LCP_ETCD_PEER_PORT=${LCP_ETCD_PEER_PORT:-57380}
export LCP_KCM_PORT=${LCP_KCM_PORT:-57257}
export LCP_SCHEDULER_PORT=${LCP_SCHEDULER_PORT:-57259}
export LCP_KWOK_PORT=${LCP_KWOK_PORT:-57247}
export KUBECONFIG=$LCP_DIR/admin.kubeconfig
export BENCH_AUDIT_LOG=$LCP_DIR/logs/audit.log
if [ -z "${BENCH_RESULTS:-}" ]; then
  if [ "${BENCH_PARTS:-all}" = scale ]; then
    BENCH_RESULTS=$root/_output/bench/scale-results.md
  else
    BENCH_RESULTS=$root/_output/bench/results.md
  fi
fi
export BENCH_RESULTS

cleanup() {
  local rc=$?
  if [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    hack/local-cluster.sh down >/dev/null 2>&1 || true
  fi
  exit $rc
}
trap cleanup EXIT

# A fresh control plane, so that the audit log holds this run only.
hack/local-cluster.sh down >/dev/null 2>&1 || true
hack/local-cluster.sh up >/dev/null

mkdir -p "$(dirname "$BENCH_RESULTS")"
rm -f "$BENCH_RESULTS"
set +e
go test -mod=vendor -tags e2e -count=1 -timeout "${BENCH_TIMEOUT:-90m}" -run Bench -v ./test/bench/... 2>&1 \
  | tee "$(dirname "$BENCH_RESULTS")/bench-test.log"
rc=${PIPESTATUS[0]}
set -e

# The scale-down guards' writes need node settings, which the Default
# feature set does not serve: a second control plane of the feature set
# that does, its rows added to the table.
if [ "${BENCH_PARTS:-all}" = all ]; then
  guard_results=$(dirname "$BENCH_RESULTS")/guard-results.md
  hack/local-cluster.sh down >/dev/null 2>&1 || true
  LCP_FEATURE_SET=TechPreviewNoUpgrade hack/local-cluster.sh up >/dev/null
  set +e
  BENCH_PARTS=guard BENCH_RESULTS=$guard_results go test -mod=vendor -tags e2e -count=1 -timeout "${BENCH_TIMEOUT:-90m}" \
    -run Bench -v ./test/bench/... 2>&1 | tee "$(dirname "$BENCH_RESULTS")/bench-guard-test.log"
  guard_rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" != 0 ] || rc=$guard_rc
  # its table rows, without the header, after the first run's
  [ -f "$guard_results" ] && sed -n '/^| what/,/^$/p' "$guard_results" | sed '1,2d;/^$/d' >>"$BENCH_RESULTS.guard-rows"
  if [ -f "$BENCH_RESULTS" ] && [ -f "$BENCH_RESULTS.guard-rows" ]; then
    awk -v rows="$BENCH_RESULTS.guard-rows" 'BEGIN{while((getline l<rows)>0) add=add l "\n"} /^\| what/{t=1} t&&/^$/{printf "%s", add; t=0} {print}' \
      "$BENCH_RESULTS" >"$BENCH_RESULTS.tmp" && mv "$BENCH_RESULTS.tmp" "$BENCH_RESULTS"
    rm -f "$BENCH_RESULTS.guard-rows"
  fi
fi

echo
if [ -f "$BENCH_RESULTS" ]; then
  # the table only; the details follow it in the file
  sed -n '/^| what/,/^$/p' "$BENCH_RESULTS"
  echo "details: $BENCH_RESULTS"
else
  echo "no results written (see $(dirname "$BENCH_RESULTS")/bench-test.log)"
fi
if grep -q '| FAIL' "$BENCH_RESULTS" 2>/dev/null; then
  echo "some budgets were missed"
fi
exit "$rc"
