#!/usr/bin/env bash
# Runs the e2e tests on a local control plane that it starts and stops.
#   E2E_RUN      go test -run filter (default: all)
#   E2E_TIMEOUT  go test -timeout (default 60m)
#   LCP_*        see hack/local-cluster.sh; KEEP_CLUSTER=1 leaves it running
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LCP_DIR=${LCP_DIR:-$root/_output/local-cluster-e2e}
export KUBECONFIG=$LCP_DIR/admin.kubeconfig

cleanup() {
  local rc=$?
  if [ "${KEEP_CLUSTER:-0}" != 1 ]; then
    hack/local-cluster.sh down || true
  fi
  if [ $rc -ne 0 ]; then
    echo "e2e failed: component logs in $LCP_DIR/logs, operator logs in _output/e2e-logs" >&2
  fi
  exit $rc
}
trap cleanup EXIT

hack/local-cluster.sh down >/dev/null 2>&1 || true
hack/local-cluster.sh up

# Output goes to stdout so that CI's runner sees go test's summary.
go test -mod=vendor -tags e2e -count=1 -p 1 -timeout "${E2E_TIMEOUT:-60m}" \
  ${E2E_RUN:+-run "$E2E_RUN"} -v ./test/e2e/... 2>&1
