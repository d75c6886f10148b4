#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-scheduler and kubectl
# from k8s.io/kubernetes as pinned in this module's go.mod into $OUT.
# Run through hack/build-tools.sh, which sets OUT and GOFLAGS=-mod=mod.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

kube_version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
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

# Static binaries, as Kubernetes' own release builds them.
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$OUT/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl
