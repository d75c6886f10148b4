// Package framework holds the small helpers the end-to-end tests share. The
// tests run against a real control plane, normally the local one that
// hack/local-cluster.sh starts (docs/local-control-plane.md).
package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// KubeConfig returns the client configuration that $KUBECONFIG names. It skips
// the test when $KUBECONFIG is unset, so that `go test ./...` without a
// cluster passes.
func KubeConfig(t testing.TB) *rest.Config {
	t.Helper()
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		Unavailable(t, "KUBECONFIG is not set; start a cluster with `hack/local-cluster.sh up` and set "+
			"KUBECONFIG=_output/local-cluster/admin.kubeconfig to run the e2e tests")
	}
	cfg, err := loadKubeConfig(resolve(path))
	require.NoError(t, err)
	// Every test that uses the cluster is judged by the suite monitor
	// (suitemonitor.go) when it ends.
	watchTest(t)
	return cfg
}

func loadKubeConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", path, err)
	}
	cfg.QPS = 50
	cfg.Burst = 100
	cfg.UserAgent = "cluster-node-operator-e2e"
	return cfg, nil
}

// resolve finds a relative path that is not in the working directory in its
// parents: `go test` runs in the package's directory, three levels below the
// root that KUBECONFIG=_output/local-cluster/admin.kubeconfig was given at.
func resolve(path string) string {
	for dir, _ := os.Getwd(); !filepath.IsAbs(path) && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, path)); err == nil {
			return filepath.Join(dir, path)
		}
	}
	return path
}

// KubeClient returns a clientset for the cluster that $KUBECONFIG names.
func KubeClient(t testing.TB) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(KubeConfig(t))
	require.NoError(t, err, "creating clientset")
	return c
}

// Context returns a context that ends with the test, or after timeout.
func Context(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// Eventually polls condition every interval until it returns true, and fails
// the test with msg when that does not happen within timeout. An error from
// condition does not stop the polling (the API may be briefly unavailable);
// the last one is reported on timeout. The tests' one polling helper: code
// that returns an error instead uses wait.PollUntilContextCancel directly.
func Eventually(t testing.TB, timeout, interval time.Duration, condition func() (bool, error), msg string) {
	t.Helper()
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), interval, timeout, true, func(context.Context) (bool, error) {
		done, err := condition()
		if err != nil {
			lastErr = err
		}
		return err == nil && done, nil
	})
	if err == nil {
		return
	}
	if lastErr != nil {
		t.Fatalf("timed out after %s: %s (last error: %v)", timeout, msg, lastErr)
	}
	t.Fatalf("timed out after %s: %s", timeout, msg)
}

// CreateNamespace creates a namespace named after prefix and deletes it, and
// waits until it is gone, when the test ends.
func CreateNamespace(t testing.TB, client kubernetes.Interface, prefix string) string {
	t.Helper()
	ctx := Context(t, time.Minute)
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: map[string]string{"e2e.cluster-node-operator": "true"}},
	}, metav1.CreateOptions{})
	require.NoError(t, err, "creating namespace")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
			return
		}
		Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
			_, err := client.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		}, fmt.Sprintf("namespace %s to be deleted", ns.Name))
	})
	return ns.Name
}

// Served tells whether the cluster serves the resource gvr.
func Served(t testing.TB, client kubernetes.Interface, gvr schema.GroupVersionResource) bool {
	t.Helper()
	list, err := client.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err, "discovering %s", gvr.GroupVersion())
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return true
		}
	}
	return false
}

// Unavailable stops a test that lacks something it needs (root, a tool, the
// local control plane): in CI (CI=true) it fails with the reason, because a
// skipped test there hides a missing install step; elsewhere it skips.
func Unavailable(t testing.TB, format string, args ...interface{}) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot run in CI: "+format, args...)
	}
	t.Skipf(format, args...)
}
