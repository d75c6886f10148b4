SHELL :=/bin/bash

# Standard OpenShift targets (build, test-unit, verify, update, clean) come
# from build-machinery-go; the local control plane targets are ours.
all: build
.PHONY: all

GO_BUILD_BINDIR :=_output/bin
UNIT_TEST_PACKAGES :=./pkg/... ./cmd/... ./test/manifests/... ./test/e2e/framework/... ./test/localcluster/...
# -race only where a unit test's goroutines meet: the cert-syncer's Run with
# its file watchers and reloaders, CRI-O platform detection over started
# informers, the node-settings Prometheus probe and the watch timeouts against
# httptest servers. The other tests drive one goroutine, where -race finds
# nothing and costs CPU (docs/testing.md, "CI time").
RACE_TEST_PACKAGES :=./pkg/certrotation/... ./pkg/operator/crioplatform/... ./pkg/operator/nodesettings/... ./pkg/operator/watchtimeout/...
GO_TEST_PACKAGES =$(filter-out $(shell $(GO) list $(GO_MOD_FLAGS) $(RACE_TEST_PACKAGES)),$(shell $(GO) list $(GO_MOD_FLAGS) $(UNIT_TEST_PACKAGES)))
GO_TEST_FLAGS :=-count=1

# golang.mk's targets, without its "test: test-unit": make test runs the unit
# tests beside the e2e tests instead of before them (hack/test.sh).
include $(addprefix ./vendor/github.com/openshift/build-machinery-go/make/, \
	targets/help.mk \
	targets/golang/*.mk \
	targets/openshift/deps.mk \
)
verify: verify-gofmt verify-govet verify-golang-versions
.PHONY: verify
update: update-gofmt
.PHONY: update
clean: clean-binaries
.PHONY: clean

# make verify fails when the builder image's Go (Dockerfile.rhel) and go.mod's
# go directive differ: the image must build what the tests ran on.
$(call verify-golang-versions,Dockerfile.rhel)

# promtool (Debian's prometheus package) for the rule unit tests of
# pkg/operator/criometrics; a prerequisite added to build-machinery's
# test-unit, whose recipe stays the same.
prometheus-tools:
	hack/prometheus.sh
.PHONY: prometheus-tools
test-unit: prometheus-tools test-unit-race

test-unit-race:
	$(GO) test $(GO_MOD_FLAGS) -race -count=1 $(RACE_TEST_PACKAGES)
.PHONY: test-unit-race

# Tools of the local control plane and of the e2e tests, built from the tools
# modules under hack/tools and cached under _output/tools.
E2E_TOOLS :=cluster crio cluster-version-operator oc-inspect

tools:
	hack/build-tools.sh $(E2E_TOOLS)
.PHONY: tools

# make run: a local control plane, what the CVO would apply, and the operator.
run: build tools
	hack/run-local.sh
.PHONY: run

# make test: the unit tests beside the e2e tests, which run on local control
# planes that they start and stop themselves (hack/test.sh).
test:
	hack/test.sh
.PHONY: test

# hack/test-e2e.sh builds each shard's tools before its control plane.
test-e2e: build
	hack/test-e2e.sh
.PHONY: test-e2e

bench: build tools
	hack/bench.sh
.PHONY: bench

# The scale part of the benchmark only (5,000 simulated nodes, 500 joining and
# leaving without Progressing, operator memory flat). Not run in CI: it needs
# a long time on 2 cores (docs/benchmarks.md).
test-scale: build tools
	BENCH_PARTS=scale hack/bench.sh
.PHONY: test-scale

update-codegen:
	hack/update-codegen.sh
.PHONY: update-codegen
update: update-codegen

verify-codegen:
	hack/verify-codegen.sh
.PHONY: verify-codegen
verify: verify-codegen

# build-machinery's verify-govet does not see files behind the e2e build tag.
verify-e2e-vet:
	go vet -mod=vendor -tags e2e ./test/...
.PHONY: verify-e2e-vet
verify: verify-e2e-vet

# kube-api-linter over pkg/apis with openshift/api's settings (docs/api.md).
verify-api-lint:
	hack/verify-api-lint.sh
.PHONY: verify-api-lint
verify: verify-api-lint

local-up: tools
	hack/local-cluster.sh up
.PHONY: local-up

local-down:
	hack/local-cluster.sh down
.PHONY: local-down

clean:
	-hack/local-cluster.sh down
	$(RM) -r _output/local-cluster
