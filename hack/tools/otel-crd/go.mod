// Tools module: the OpenTelemetry operator's OpenTelemetryCollector CRD, for
// the e2e test of the per-node collector (test/e2e/nodesettings_test.go). It
// builds nothing: build.sh copies the CRD of the pinned module into $OUT.
// v0.110.0 is served by the Go module proxy but unknown to the checksum
// database: go.sum was made once with GONOSUMDB set for this module, and
// later downloads are checked against it.
module github.com/openshift/cluster-node-operator/hack/tools/otel-crd

go 1.26.0

require github.com/open-telemetry/opentelemetry-operator v0.110.0
