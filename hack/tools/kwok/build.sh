#!/usr/bin/env bash
# Builds kwok (sigs.k8s.io/kwok, pinned in go.mod) into $OUT and copies the
# module's own stage definitions that hack/local-cluster.sh runs kwok with
# into $OUT/stages/ (the same set as the module's kustomize/stage/fast):
#   node-initialize            nodes become Ready at once, keep the addresses
#                              and capacity they were created with
#   node-heartbeat-with-lease  refreshes node conditions now and then; liveness
#                              comes from the node Leases kwok renews
#   pod-ready                  scheduled pods go Running and Ready, hostNetwork
#                              pods take their node's InternalIP
#   pod-complete, pod-delete   job pods complete, deleted pods go away
# Run through hack/build-tools.sh, which sets OUT and GOFLAGS=-mod=mod.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/kwok" sigs.k8s.io/kwok/cmd/kwok

src=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage
mkdir -p "$OUT/stages"
for f in node/fast/node-initialize.yaml \
         node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
         pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
  install -m 0644 "$src/$f" "$OUT/stages/$(basename "$f")"
done
