package framework

// The OpenTelemetry operator's API in the local world: its
// OpenTelemetryCollector CRD from the pinned module (hack/tools/otel-crd).
// The OpenTelemetry operator itself does not run: nothing turns a collector
// into pods.

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// OpenTelemetryCollectorCRD is the CRD's name.
const OpenTelemetryCollectorCRD = "opentelemetrycollectors.opentelemetry.io"

// ServeOpenTelemetryCollectors installs the OpenTelemetryCollector CRD on
// the cluster $KUBECONFIG names (framework.Kubectl) and waits until it is
// established; it is removed when the test ends.
func ServeOpenTelemetryCollectors(t testing.TB) {
	t.Helper()
	root := RepoRoot(t)
	if out, err := exec.Command(filepath.Join(root, "hack", "build-tools.sh"), "otel-crd").CombinedOutput(); err != nil {
		t.Fatalf("hack/build-tools.sh otel-crd: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(root, "_output", "tools", "otel-crd", "*", "opentelemetry.io_opentelemetrycollectors.yaml"))
	if len(files) != 1 {
		t.Fatalf("the OpenTelemetryCollector CRD under _output/tools/otel-crd: found %v", files)
	}
	t.Cleanup(func() { RemoveOpenTelemetryCollectors(t) })
	if _, err := Kubectl(t, "apply", "--server-side", "-f", files[0]); err != nil {
		t.Fatal(err)
	}
	// kubectl wait fails at once while the CRD has no conditions yet.
	Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		_, err := Kubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/"+OpenTelemetryCollectorCRD)
		return err == nil, nil
	}, "CRD "+OpenTelemetryCollectorCRD+" established")
}

// RemoveOpenTelemetryCollectors deletes the CRD (and so every collector)
// and waits until it is gone.
func RemoveOpenTelemetryCollectors(t testing.TB) {
	t.Helper()
	if _, err := Kubectl(t, "delete", "--ignore-not-found", "--wait=true", "--timeout=110s", "crd/"+OpenTelemetryCollectorCRD); err != nil {
		t.Error(err)
	}
}
