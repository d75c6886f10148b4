package framework

// The OpenTelemetry operator's API in the local world: its
// OpenTelemetryCollector CRD from the pinned module (hack/tools/otel-crd),
// served while a test needs it. The OpenTelemetry operator itself does not
// run: nothing turns a collector into pods.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// OpenTelemetryCollectorCRD is the CRD's name.
const OpenTelemetryCollectorCRD = "opentelemetrycollectors.opentelemetry.io"

// ServeOpenTelemetryCollectors installs the OpenTelemetryCollector CRD and
// waits until it is served; it is removed when the test ends.
func ServeOpenTelemetryCollectors(t testing.TB, admin *rest.Config) {
	t.Helper()
	root := RepoRoot(t)
	out, err := exec.Command(filepath.Join(root, "hack", "build-tools.sh"), "otel-crd").CombinedOutput()
	if err != nil {
		t.Fatalf("hack/build-tools.sh otel-crd: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(root, "_output", "tools", "otel-crd", "*", "opentelemetry.io_opentelemetrycollectors.yaml"))
	if len(files) != 1 {
		t.Fatalf("the OpenTelemetryCollector CRD under _output/tools/otel-crd: found %v", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	client := apiextensionsclient.NewForConfigOrDie(admin)
	ctx := Context(t, time.Minute)
	if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating CRD %s: %v", crd.Name, err)
	}
	t.Cleanup(func() { RemoveOpenTelemetryCollectors(t, admin) })
	Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	}, fmt.Sprintf("CRD %s established", crd.Name))
}

// RemoveOpenTelemetryCollectors deletes the CRD (and so every collector)
// and waits until it is gone.
func RemoveOpenTelemetryCollectors(t testing.TB, admin *rest.Config) {
	t.Helper()
	client := apiextensionsclient.NewForConfigOrDie(admin)
	ctx := Context(t, 2*time.Minute)
	err := client.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, OpenTelemetryCollectorCRD, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		t.Errorf("deleting CRD %s: %v", OpenTelemetryCollectorCRD, err)
		return
	}
	Eventually(t, 2*time.Minute, 250*time.Millisecond, func() (bool, error) {
		_, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, OpenTelemetryCollectorCRD, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}, fmt.Sprintf("CRD %s gone", OpenTelemetryCollectorCRD))
}
