#!/usr/bin/env bash
# make run: brings up the local control plane, applies what the CVO would
# apply (manifests/ but the Deployment, which this script replaces by running
# the operator locally), and runs the operator in the foreground.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LCP_DIR=${LCP_DIR:-$root/_output/local-cluster}
export KUBECONFIG=$LCP_DIR/admin.kubeconfig
kubectl=$root/_output/bin/kubectl

hack/local-cluster.sh up

echo ">> applying manifests/ as the CVO would (without the operator Deployment)"
manifests=()
for f in manifests/*.yaml; do
  case "$f" in *deployment*|*image-references*) continue ;; esac
  manifests+=("$f")
done
hack/local-cluster.sh apply cluster-version-operator "${manifests[@]}"

# The images the operator names in its pods; the real node has them loaded
# under these names (not "latest": the kubelet then pulls only if absent).
export OPERATOR_IMAGE=${OPERATOR_IMAGE:-quay.io/openshift/origin-cluster-node-operator:local}
export KUBE_RBAC_PROXY_IMAGE=${KUBE_RBAC_PROXY_IMAGE:-quay.io/openshift/origin-kube-rbac-proxy:local}

# The real node (docs/local-control-plane.md, "The real node") needs root.
if [ "$(id -u)" -eq 0 ]; then
  hack/node.sh up
  node_msg="The real node real-worker-0 runs our DaemonSet's pod (kubelet and CRI-O; logs in ${LCP_DIR}-node/):
  $kubectl get pods -A -o wide --field-selector spec.nodeName=real-worker-0
  hack/node.sh metrics   # curl of CRI-O's metrics at the node's :9638, as prometheus-k8s"
else
  node_msg="No real node: it needs root (network and mount namespaces, CRI-O). Run 'sudo make run'
for the kubelet on CRI-O running our DaemonSet's pod; as it is, every pod is simulated by kwok."
fi

cat <<MSG

The operator runs below (Ctrl-C stops it and the real node; 'make local-down' stops the cluster).
In another terminal:
  export KUBECONFIG=$KUBECONFIG
  $kubectl get clusteroperator node -w
  $kubectl get nodeoperator cluster -o yaml

$node_msg

MSG
# The local world has no machine-config operator: a stand-in for its
# operator's node disruption policy status runs beside ours, or the
# operator's MachineConfigs would wait for it forever.
_output/bin/local-cluster -root "$root" mco-policy-status &
policy_status=$!
trap 'kill "$policy_status" 2>/dev/null || true; if [ "$(id -u)" -eq 0 ]; then hack/node.sh down; fi' EXIT

export OPERATOR_IMAGE_VERSION=${OPERATOR_IMAGE_VERSION:-0.0.1-local}
# The gates of this version, as the cluster-config operator writes them
# (the feature set is LCP_FEATURE_SET's at "up"; docs/api.md).
_output/bin/local-cluster -root "$root" feature-gates "$OPERATOR_IMAGE_VERSION"
export NMSTATE_OPERATOR_IMAGE=${NMSTATE_OPERATOR_IMAGE:-quay.io/openshift/origin-kubernetes-nmstate-operator:latest}
export NMSTATE_HANDLER_IMAGE=${NMSTATE_HANDLER_IMAGE:-quay.io/openshift/origin-kubernetes-nmstate-handler:latest}
export NMSTATE_CONSOLE_PLUGIN_IMAGE=${NMSTATE_CONSOLE_PLUGIN_IMAGE:-quay.io/openshift/origin-nmstate-console-plugin:latest}
# The local cluster runs no Prometheus: the node settings health gate checks
# node readiness only, unless PROMETHEUS_URL names one (docs/node-config.md).
_output/bin/cluster-node-operator operator --kubeconfig "$KUBECONFIG" \
  --namespace openshift-cluster-node-operator --listen 127.0.0.1:${OPERATOR_PORT:-18080} \
  --prometheus-url="${PROMETHEUS_URL:-}" --prometheus-ca-file="${PROMETHEUS_CA_FILE:-}" \
  ${PROMETHEUS_TOKEN_FILE:+--prometheus-token-file="$PROMETHEUS_TOKEN_FILE"} \
  --leader-election-lease-duration=15s --leader-election-renew-deadline=10s --leader-election-retry-period=2s
