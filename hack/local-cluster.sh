#!/usr/bin/env bash
# A local control plane for the e2e tests, the benchmarks and `make run`
# (docs/local-control-plane.md): kwokctl's binary runtime runs etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler and kwok (which
# simulates the nodes and the lifecycle of their pods), all built from the
# tools modules under hack/tools/ and listening on 127.0.0.1 only; nothing is
# downloaded. test/localcluster (Go) drives kwokctl and sets the cluster up:
# the OpenShift CRDs, the cluster configuration objects and the nodes.
#
# usage: hack/local-cluster.sh up       start (no-op when already up); prints
#                                       the admin kubeconfig's path
#        hack/local-cluster.sh down     stop every component, remove all state
#        hack/local-cluster.sh nodes N  scale the simulated nodes to N
#        hack/local-cluster.sh restart-apiserver
#                                       stop kube-apiserver and start it again
#                                       with the same arguments (etcd and the
#                                       other components keep running)
#        hack/local-cluster.sh apply MANAGER FILE...
#                                       apply manifests as the CVO does
#                                       (server-side apply as MANAGER; those
#                                       annotated create-only only created)
#
# $LCP_DIR holds admin.kubeconfig, crds.txt (the CRD manifests installed),
# logs/ (one log per component, audit.log) and kwok/ (kwokctl's state).
#
# Variables (defaults in brackets):
#   LCP_DIR                 state directory [_output/local-cluster]
#   LCP_NODES               nodes created by up: master-0 (InternalIP
#                           127.0.1.1), worker-1 (127.0.1.2), ... [3]
#   LCP_FEATURE_SET         FeatureGate cluster's spec.featureSet when "up"
#                           creates it: TechPreviewNoUpgrade serves and runs
#                           node settings (docs/api.md) [Default]
#   LCP_AUDIT               1 writes an audit log of every request (level
#                           Metadata) to $LCP_DIR/logs/audit.log [0]
#   LCP_APISERVER_PORT [16443]  LCP_ETCD_PORT [16379]  LCP_ETCD_PEER_PORT [16380]
#   LCP_KCM_PORT [16257]  LCP_SCHEDULER_PORT [16259]  LCP_KWOK_PORT [16247]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi
if [ "${1:-}" = up ]; then
  "$root/hack/build-tools.sh" cluster >&2
fi
(cd "$root" && go build -mod=vendor -o _output/bin/local-cluster ./test/localcluster/cmd/local-cluster)
exec "$root/_output/bin/local-cluster" -root "$root" "$@"
