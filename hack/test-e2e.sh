#!/usr/bin/env bash
# Runs the e2e tests on local control planes that it starts and stops.
#   E2E_RUN      go test -run filter: one shard, one control plane
#   E2E_SHARDS   3 (default without E2E_RUN) or 1
#   E2E_TIMEOUT  go test -timeout (default 60m)
#   LCP_*        see hack/local-cluster.sh; KEEP_CLUSTER=1 leaves them running
#
# Most of the suite's time is waiting (Degraded inertia, two-minute watches
# for zero writes, rollouts, leader leases), so the whole suite runs as three
# shards at once, each on a control plane of its own (own LCP_DIR and ports):
# "nodes" runs the tests that start node-level programs (CRI-O,
# kube-rbac-proxy, Prometheus, an OTLP receiver, the real node's kubelet;
# simulated nodes share this machine's loopback addresses, so only one shard
# may run them); "release"
# runs the tests that install and upgrade through the real CVO; "api" runs
# every other test, so a new test lands there unless it is named below (it
# starts first: it needs neither CRI-O nor the CVO).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

nodes_shard='^(TestCoexistence|TestNodeSettingsTracing|TestNodeSettingsTracingRealNode|TestRealNodePlatformPath|TestRealNodeStatusFromRealPods|TestRules|TestSecurityCRIOMetricsEndToEnd)$'
release_shard='^(TestInstallAsCVO|TestInstallAsCVOHostedProfile|TestUpgradeWithRealCVO|TestExtensionSuites|TestInstallNNCPFromManifests)$'

# The suite's clusters run the feature set that serves node settings, which
# most node settings tests need; TestFeatureGateNodeSettings switches to
# Default and back (docs/api.md, "Feature gates").
export LCP_FEATURE_SET=${LCP_FEATURE_SET:-TechPreviewNoUpgrade}

shards=${E2E_SHARDS:-3}
if [ -n "${E2E_RUN:-}" ]; then
  shards=1
fi
case "$shards" in
  1|3) ;;
  *) echo "E2E_SHARDS=$shards: want 1 or 3" >&2; exit 2 ;;
esac

gotest=(go test -mod=vendor -tags e2e -count=1 -p 1 -timeout "${E2E_TIMEOUT:-60m}" -v)

# shard_env NAME: the environment of shard NAME's control plane. The api
# shard keeps the defaults (and a caller's LCP_DIR and ports); the others get
# their own directories and ports 100 and 200 above the defaults.
shard_env() {
  case "$1" in
    api|all)
      echo "LCP_DIR=${LCP_DIR:-$root/_output/local-cluster-e2e}"
      ;;
    nodes)
      echo "LCP_DIR=$root/_output/local-cluster-e2e-nodes"
      echo "LCP_APISERVER_PORT=16543" "LCP_ETCD_PORT=16479" "LCP_ETCD_PEER_PORT=16480"
      echo "LCP_KCM_PORT=16357" "LCP_SCHEDULER_PORT=16359" "LCP_KWOK_PORT=16347"
      ;;
    release)
      echo "LCP_DIR=$root/_output/local-cluster-e2e-release"
      echo "LCP_APISERVER_PORT=16643" "LCP_ETCD_PORT=16579" "LCP_ETCD_PEER_PORT=16580"
      echo "LCP_KCM_PORT=16457" "LCP_SCHEDULER_PORT=16459" "LCP_KWOK_PORT=16447"
      ;;
  esac
}

# in_shard NAME CMD...: runs CMD with shard NAME's control plane.
in_shard() {
  local name=$1; shift
  local -a vars
  read -r -a vars <<<"$(shard_env "$name" | tr '\n' ' ')"
  local dir=${vars[0]#LCP_DIR=}
  env "${vars[@]}" KUBECONFIG="$dir/admin.kubeconfig" "$@"
}

names=(all)
if [ "$shards" = 3 ]; then
  names=(nodes release api)
fi

tools_pid=
cleanup() {
  local rc=$?
  # a failed run does not leave the background tool build running
  [ -z "$tools_pid" ] || kill "$tools_pid" 2>/dev/null || true
  if [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    for n in "${names[@]}"; do
      in_shard "$n" hack/local-cluster.sh down || true
    done
  fi
  if [ $rc -ne 0 ]; then
    echo "e2e failed: component logs in _output/local-cluster-e2e*/logs, operator logs in _output/e2e-logs" >&2
  fi
  exit $rc
}
trap cleanup EXIT

# Each shard's tools, built before its control plane starts (a tool that
# another build is building is waited for: hack/build-tools.sh locks each).
# The release shard's must-gather step waits for oc-inspect itself.
all_tools="cluster crio cluster-version-operator oc-inspect"
declare -A shard_tools=(
  [all]="$all_tools"
  [api]="cluster"
  [nodes]="cluster crio"
  [release]="cluster cluster-version-operator"
)

# start_shard NAME: builds shard NAME's tools and starts its control plane;
# one control plane starts at a time (each is a minute of CPU).
start_shard() {
  # shellcheck disable=SC2086
  hack/build-tools.sh ${shard_tools[$1]} >&2
  # (the lock's descriptor is closed for the command: the control plane's
  # daemons would otherwise inherit it and hold the lock as long as they run)
  (
    exec 8>"$root/_output/e2e-up.lock"
    flock 8
    in_shard "$1" hack/local-cluster.sh up 8>&-
  )
}

for n in "${names[@]}"; do
  in_shard "$n" hack/local-cluster.sh down >/dev/null 2>&1 || true
done

if [ "$shards" = 1 ]; then
  start_shard all
  # Output goes to stdout so that CI's runner sees go test's summary.
  in_shard all "${gotest[@]}" ${E2E_RUN:+-run "$E2E_RUN"} ./test/e2e/... 2>&1
  exit 0
fi

# Compiled once before the shards link their own binaries from the cache.
mkdir -p "$root/_output/e2e-bin"
go test -mod=vendor -tags e2e -c -o "$root/_output/e2e-bin/" ./test/e2e/... >/dev/null

# run_shard NAME GO-TEST-FILTER...: one shard, from its tools to its exit.
run_shard() {
  local n=$1; shift
  # (an explicit check: errexit is off in a function called from a || list)
  start_shard "$n" || { echo "e2e shard $n: its tools or control plane failed to start"; return 1; }
  local t0 rc=0
  t0=$(date +%s)
  in_shard "$n" "${gotest[@]}" "$@" ./test/e2e/... 2>&1 || rc=$?
  echo "e2e shard $n: exit $rc after $(($(date +%s) - t0))s"
  return "$rc"
}

# Every tool in the background (a no-op wait where .ci/run's build already
# runs), so that oc-inspect is ready by the release shard's must-gather.
# shellcheck disable=SC2086
hack/build-tools.sh $all_tools >"$root/_output/e2e-tools.log" 2>&1 &
tools_pid=$!

# Each shard starts as soon as its tools are built, so the api shard need
# not wait for CRI-O or the CVO. The api shard's output streams to stdout;
# the others' go to files and follow on stdout once all are done.
start=$(date +%s)
run_shard nodes -run "$nodes_shard" >"$root/_output/e2e-shard-nodes.log" 2>&1 &
nodes_pid=$!
run_shard release -run "$release_shard" >"$root/_output/e2e-shard-release.log" 2>&1 &
release_pid=$!
rc=0
run_shard api -skip "$nodes_shard|$release_shard" || rc=$?
wait "$nodes_pid" || rc=1
wait "$release_pid" || rc=1
for n in nodes release; do
  echo "=== shard $n (also in _output/e2e-shard-$n.log)"
  cat "$root/_output/e2e-shard-$n.log"
done
echo "e2e shards: all done after $(($(date +%s) - start))s"
exit "$rc"
