#!/usr/bin/env bash
# Runs the e2e tests on local control planes that it starts and stops.
#   E2E_RUN      go test -run filter: one shard, one control plane
#   E2E_SHARDS   2 (default without E2E_RUN) or 1
#   E2E_TIMEOUT  go test -timeout (default 60m)
#   LCP_*        see hack/local-cluster.sh; KEEP_CLUSTER=1 leaves them running
#
# Most of the suite's time is waiting (Degraded inertia, two-minute watches
# for zero writes, rollouts, leader leases), so the whole suite runs as two
# shards at once, each on a control plane of its own (own LCP_DIR and
# ports): "nodes" runs the tests that start node-level programs (CRI-O,
# kube-rbac-proxy, Prometheus, an OTLP receiver; simulated nodes share this
# machine's loopback addresses, so only one shard may run them) and, to
# balance the two, some long waits; "api" runs every other test, so a new
# test lands there unless it is named below.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

nodes_shard='^(TestCoexistence|TestNodeSettingsTracing|TestRules|TestSecurityCRIOMetricsEndToEnd|TestCoreMissingInfrastructure|TestPersistentErrorsNoStatusWrites|TestFaultLeaderElection)$'

# The suite's clusters run the feature set that serves node settings, which
# most node settings tests need; TestFeatureGateNodeSettings switches to
# Default and back (docs/api.md, "Feature gates").
export LCP_FEATURE_SET=${LCP_FEATURE_SET:-TechPreviewNoUpgrade}

shards=${E2E_SHARDS:-2}
if [ -n "${E2E_RUN:-}" ]; then
  shards=1
fi
case "$shards" in
  1|2) ;;
  *) echo "E2E_SHARDS=$shards: want 1 or 2" >&2; exit 2 ;;
esac

gotest=(go test -mod=vendor -tags e2e -count=1 -p 1 -timeout "${E2E_TIMEOUT:-60m}" -v)

# shard_env NAME: the environment of shard NAME's control plane. The first
# keeps the defaults (and a caller's LCP_DIR and ports); the second gets its
# own directory and ports 100 above the defaults.
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
if [ "$shards" = 2 ]; then
  names=(api nodes)
fi

cleanup() {
  local rc=$?
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

# Tools and the local-cluster binary first, once, so the shards do not build
# them side by side.
hack/build-tools.sh cluster >&2
for n in "${names[@]}"; do
  in_shard "$n" hack/local-cluster.sh down >/dev/null 2>&1 || true
done

if [ "$shards" = 1 ]; then
  in_shard all hack/local-cluster.sh up
  # Output goes to stdout so that CI's runner sees go test's summary.
  in_shard all "${gotest[@]}" ${E2E_RUN:+-run "$E2E_RUN"} ./test/e2e/... 2>&1
  exit 0
fi

# Compiled once before the shards link their own binaries from the cache.
mkdir -p "$root/_output/e2e-bin"
go test -mod=vendor -tags e2e -c -o "$root/_output/e2e-bin/" ./test/e2e/... >/dev/null

# The control planes start one after the other (each is a minute of CPU);
# the tests of both shards then run at once. The api shard's output streams
# to stdout; the nodes shard's goes to a file and follows on stdout once both
# are done.
in_shard api hack/local-cluster.sh up
in_shard nodes hack/local-cluster.sh up
nodes_log=$root/_output/e2e-shard-nodes.log
start=$(date +%s)
in_shard nodes "${gotest[@]}" -run "$nodes_shard" ./test/e2e/... >"$nodes_log" 2>&1 &
nodes_pid=$!
api_rc=0
in_shard api "${gotest[@]}" -skip "$nodes_shard" ./test/e2e/... 2>&1 || api_rc=$?
api_end=$(date +%s)
nodes_rc=0
wait "$nodes_pid" || nodes_rc=$?
end=$(date +%s)
echo "=== shard nodes (tests $nodes_shard; also in $nodes_log)"
cat "$nodes_log"
echo "e2e shards: api exit $api_rc after $((api_end - start))s, nodes exit $nodes_rc after $((end - start))s"
[ "$api_rc" = 0 ] && [ "$nodes_rc" = 0 ]
