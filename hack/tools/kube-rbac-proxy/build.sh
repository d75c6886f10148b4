#!/usr/bin/env bash
# Builds kube-rbac-proxy (pinned in go.mod) into $OUT. Run by hack/build-tools.sh.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

# Build exactly what go.mod/go.sum pin; never rewrite them during a build.
export GOFLAGS="-mod=readonly -buildvcs=false"

pkg=github.com/brancz/kube-rbac-proxy
version=$(go list -m -f '{{.Version}}' "$pkg")
# Same ldflags as upstream's Makefile, so that --version reports the release.
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version/verflag.programName=kube-rbac-proxy" \
  -o "$OUT/kube-rbac-proxy" "$pkg/cmd/kube-rbac-proxy"
