package nodesettings

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// The per-node OpenTelemetry collector, where the OpenTelemetry operator's
// API is served (docs/node-config.md, "Collector"): CRI-O and the kubelet
// send spans to a collector on their node's loopback, which exports them to
// the administrator's destination; the OpenTelemetry operator turns our
// OpenTelemetryCollector into a DaemonSet.
const (
	// CollectorName is our OpenTelemetryCollector, in the operator's
	// namespace.
	CollectorName = "node-tracing"
	// CollectorEndpoint is where CRI-O and the kubelet send spans when the
	// collector runs: the node's loopback (its pods use the host network,
	// and only processes of the node reach a loopback address). The port
	// is in the range OpenShift keeps for host-level services (9000-9999)
	// and used by no platform component we know of.
	CollectorEndpoint = "127.0.0.1:9417"
)

// Collector is our OpenTelemetryCollector (opentelemetry.io/v1beta1) in
// namespace: a collector pod on every node (tolerating every taint, the
// control plane's too), on the host network, receiving OTLP over gRPC on
// CollectorEndpoint and exporting every span to destination without TLS,
// as CRI-O's and the kubelet's own exporters do. Traces only: node-exporter
// has the host's metrics.
func Collector(namespace, destination string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": platform.OpenTelemetryCollectorGVR.GroupVersion().String(),
		"kind":       "OpenTelemetryCollector",
		"metadata": map[string]interface{}{
			"name":      CollectorName,
			"namespace": namespace,
			"labels":    map[string]interface{}{ownedLabel: ""},
		},
		"spec": map[string]interface{}{
			"mode":        "daemonset",
			"hostNetwork": true,
			"tolerations": []interface{}{map[string]interface{}{"operator": "Exists"}},
			"config": map[string]interface{}{
				"receivers": map[string]interface{}{
					"otlp": map[string]interface{}{"protocols": map[string]interface{}{
						"grpc": map[string]interface{}{"endpoint": CollectorEndpoint},
					}},
				},
				"exporters": map[string]interface{}{
					"otlp": map[string]interface{}{
						"endpoint": destination,
						"tls":      map[string]interface{}{"insecure": true},
					},
				},
				"service": map[string]interface{}{
					"pipelines": map[string]interface{}{
						"traces": map[string]interface{}{
							"receivers": []interface{}{"otlp"},
							"exporters": []interface{}{"otlp"},
						},
					},
				},
			},
		},
	}}
}
