// Tools module: our own OTLP/gRPC trace receiver (main.go) for the e2e tests
// of node tracing (test/e2e/tracing_test.go). It is not part of the main
// module. Build: hack/build-tools.sh otlp-receiver
module github.com/openshift/cluster-node-operator/hack/tools/otlp-receiver

go 1.24.0

require (
	go.opentelemetry.io/proto/otlp v1.9.0
	google.golang.org/grpc v1.79.3
)

require (
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.27.2 // indirect
	golang.org/x/net v0.48.0 // indirect
	golang.org/x/sys v0.39.0 // indirect
	golang.org/x/text v0.32.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20251202230838-ff82c1b0f217 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20251202230838-ff82c1b0f217 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
)
