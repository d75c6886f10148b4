#!/usr/bin/env bash
# Builds the cluster-version operator (release-4.20, pinned in go.mod) into
# $OUT. Run by hack/build-tools.sh.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

# Build exactly what go.mod/go.sum pin; never rewrite them during a build.
export GOFLAGS="-mod=readonly -buildvcs=false"

pkg=github.com/openshift/cluster-version-operator
# The CVO reports pkg/version.Raw as its own version; upstream sets it from
# git, we from the pinned module version.
version=$(go list -m -f '{{.Version}}' "$pkg")
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X $pkg/pkg/version.Raw=$version" \
  -o "$OUT/cluster-version-operator" "$pkg/cmd/cluster-version-operator"
