package criometrics

import (
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

var machineConfigRoles = []string{"master", "worker"}

func machineConfigName(role string) string { return "50-" + role + "-crio-metrics-tls" }

func machineConfigNames() []string {
	var out []string
	for _, role := range machineConfigRoles {
		out = append(out, machineConfigName(role))
	}
	return out
}

// RenderMachineConfig returns the MachineConfig that installs the static
// CRI-O drop-in on the nodes of a pool.
func RenderMachineConfig(role string) (*unstructured.Unstructured, error) {
	dropIn := url.PathEscape(string(bindata.MustAsset("metrics/crio-dropin.conf")))
	raw := strings.NewReplacer("${ROLE}", role, "${DROPIN}", dropIn).Replace(string(bindata.MustAsset("metrics/machineconfig.yaml")))
	return stack.ReadUnstructured([]byte(raw))
}

func renderSCC() (*unstructured.Unstructured, error) {
	return stack.ReadUnstructured(bindata.MustAsset(sccFile))
}
