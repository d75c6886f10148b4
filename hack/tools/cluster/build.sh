#!/usr/bin/env bash
# Builds the programs of this module (go.mod says which) into $OUT, static
# (CGO_ENABLED=0) and stripped. Run through hack/build-tools.sh, which sets OUT
# and GOFLAGS=-mod=mod.
#
# The Kubernetes programs first, in one go build that keeps both cores busy
# and compiles most of what the others share; then the others, whose version
# flags differ. kwokctl gives kwok its default
# stages (those of the kwok module's kustomize/stage/fast plus
# node-heartbeat-with-lease).
set -euo pipefail
: "${OUT:?OUT must name the output directory}"
export CGO_ENABLED=0
version() { go list -m -f '{{.Version}}' "$1"; }

kube_version=$(version k8s.io/kubernetes)
# The tag's commit time from the module proxy, so that builds are reproducible.
build_date=$(go list -m -f '{{if .Time}}{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)
major=${kube_version#v}; major=${major%%.*}
minor=${kube_version#v*.}; minor=${minor%%.*}
ldflags="-s -w"
# kubectl reads client-go's copy of the version, the servers component-base's.
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$kube_version"
  ldflags+=" -X $pkg.gitMajor=$major"
  ldflags+=" -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean"
  ldflags+=" -X $pkg.buildDate=${build_date:-1970-01-01T00:00:00Z}"
done
go build -trimpath -ldflags "$ldflags" -o "$OUT/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl \
  k8s.io/kubernetes/cmd/kubelet \
  sigs.k8s.io/kwok/cmd/kwok \
  sigs.k8s.io/kwok/cmd/kwokctl \
  ./etcd

# kube-rbac-proxy with upstream's Makefile flags, so that --version reports
# the release; it and our receiver are mostly links by now.
krp=github.com/brancz/kube-rbac-proxy
go build -trimpath -o "$OUT/kube-rbac-proxy" \
  -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$(version $krp) -X k8s.io/component-base/version/verflag.programName=kube-rbac-proxy" \
  "$krp/cmd/kube-rbac-proxy" &
krp_build=$!
go build -trimpath -ldflags "-s -w" -o "$OUT/" ./otlp-receiver
wait "$krp_build"
