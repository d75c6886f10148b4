package localcluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFromEnvDefaults(t *testing.T) {
	for _, v := range os.Environ() {
		if name, _, _ := strings.Cut(v, "="); strings.HasPrefix(name, "LCP_") {
			t.Setenv(name, "")
		}
	}
	t.Setenv("LCP_TOPOLOGY", "SingleReplica")
	c, err := FromEnv("/repo")
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir != "/repo/_output/local-cluster" || c.Nodes != 3 || c.APIServerPort != 16443 || !c.MachineConfigs || !c.MonitoringCRDs {
		t.Errorf("defaults: %+v", c)
	}
	if c.InfraTopology != "SingleReplica" {
		t.Errorf("LCP_INFRA_TOPOLOGY follows LCP_TOPOLOGY=SingleReplica, got %q", c.InfraTopology)
	}
	if got := c.firstServiceIP(); got != "10.96.0.1" {
		t.Errorf("firstServiceIP = %s", got)
	}
	t.Setenv("LCP_KWOK_LOG_LEVEL", "LOUD")
	if _, err := FromEnv("/repo"); err == nil {
		t.Error("LCP_KWOK_LOG_LEVEL=LOUD accepted")
	}
}

// TestCRDFiles needs the openshift/api and prometheus-operator modules in
// the module cache (go mod download fetches them otherwise).
func TestCRDFiles(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, mc := range []bool{true, false} {
		c := &Config{Root: root, MachineConfigs: mc, MonitoringCRDs: true, OpenShiftAPIVersion: "unused"}
		files, err := c.crdFiles()
		if err != nil {
			t.Fatal(err)
		}
		var plurals []string
		for _, f := range files {
			base := filepath.Base(f)
			for _, p := range []string{"machineconfigs", "machineconfigpools", "machineconfignodes", "machineconfigurations", "clusteroperators", "servicemonitors"} {
				if strings.Contains(base, "_"+p+".") || strings.Contains(base, "_"+p+"-") {
					plurals = append(plurals, p)
				}
			}
		}
		for _, p := range []string{"machineconfigs", "machineconfigpools", "machineconfignodes", "machineconfigurations"} {
			if slices.Contains(plurals, p) != mc {
				t.Errorf("LCP_MACHINECONFIG_CRDS=%v: %s in %v", mc, p, files)
			}
		}
		if !slices.Contains(plurals, "clusteroperators") || !slices.Contains(plurals, "servicemonitors") {
			t.Errorf("missing CRDs in %v", files)
		}
	}
}
