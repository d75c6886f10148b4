package framework

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Kubectl runs kubectl (_output/bin/kubectl, or $KUBECTL) against the cluster
// that $KUBECONFIG names, as the cluster's administrator, and returns its
// standard output; an error carries its standard error.
func Kubectl(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	bin := os.Getenv("KUBECTL")
	if bin == "" {
		bin = filepath.Join(RepoRoot(t), "_output", "bin", "kubectl")
	}
	kubeconfig := resolve(os.Getenv("KUBECONFIG"))
	if kubeconfig == "" {
		Unavailable(t, "KUBECONFIG is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	// A discovery cache of its own: the tests add and remove CRDs.
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(t.TempDir(), "kubectl-cache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
