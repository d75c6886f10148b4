//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// extResult is the part of a run-test result line that this test reads.
type extResult struct {
	Name, Result, Error, Output string
}

// TestExtensionSuites: docs/test-behaviours.md. The operator installed by the real CVO; the
// extension binary then runs as openshift-tests runs it: list with the environment flags,
// one run-test process per test of the parallel suite, then the serial and disruptive suites.
func TestExtensionSuites(t *testing.T) {
	// An earlier test may have left another platform.
	framework.NewCluster(t).SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	in := newInstallation(t, "")
	in.installWithCVO(nil)
	// The NMState operator's part: it reports the handler Available.
	framework.StartNMStateOperatorDouble(t, in.cfg)

	t.Run("BareMetal", func(t *testing.T) { in.runParallelSuite(t, "baremetal") })
	t.Run("SerialSuite", func(t *testing.T) { in.runSuite(t, "openshift/cluster-node-operator/conformance/serial") })
	t.Run("DisruptiveSuite", func(t *testing.T) { in.runSuite(t, "openshift/cluster-node-operator/disruptive") })
	t.Run("AWS", func(t *testing.T) {
		c := framework.NewCluster(t)
		c.SetInfrastructure(t, configv1.AWSPlatformType, configv1.HighlyAvailableTopologyMode)
		t.Cleanup(func() { c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode) })
		in.runParallelSuite(t, "aws")
	})
}

// runParallelSuite lists the parallel suite's tests for the platform and the served API
// groups, and runs each in a run-test process of its own; all must pass.
func (in *installation) runParallelSuite(t *testing.T, platform string) {
	// origin runs on a settled cluster: the CVO completes an install once the
	// ClusterOperator is Available, without waiting for versions
	// (cluster-version-operator 77782f1a, pkg/cvo/internal/operatorstatus.go),
	// and a platform change or the disruptive suite rebuilds stacks.
	framework.NewCluster(t).WaitForClusterOperator(t, 3*time.Minute, func(co *configv1.ClusterOperator) string {
		if v := framework.OperatorVersion(co); v != in.rel.Options.Version {
			return "versions[operator] is " + v
		}
		return framework.Settled(co)
	})
	args := []string{"list", "-o", "jsonl", "--suite", "openshift/cluster-node-operator/conformance/parallel", "--platform=" + platform}
	groups, err := in.kube.Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		args = append(args, "--api-group="+g.Name)
	}
	out, err := in.runExt(t, args...)
	if err != nil {
		t.Fatalf("list: %v\n%s", err, out)
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		var spec struct{ Name string }
		if strings.HasPrefix(line, "{") {
			if err := json.Unmarshal([]byte(line), &spec); err != nil {
				t.Fatalf("list line %s: %v", line, err)
			}
			names = append(names, spec.Name)
		}
	}
	wantNMState := platform == "baremetal"
	if len(names) < 7 || strings.Contains(strings.Join(names, "\n"), "NMState") != wantNMState {
		t.Fatalf("listed for %s:\n%s", platform, strings.Join(names, "\n"))
	}
	for _, name := range names {
		// origin ignores the exit code and reads the last result line.
		out, _ := in.runExt(t, "run-test", "-n", name, "-o", "jsonl")
		in.expectPassed(t, out, name)
	}
}

// runSuite runs a suite once through run-suite, with its JUnit file.
func (in *installation) runSuite(t *testing.T, suite string) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	out, err := in.runExt(t, "run-suite", suite, "--junit-path", junit)
	if err != nil {
		t.Errorf("run-suite %s: %v", suite, err)
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "{") {
			var r extResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("result line %s: %v", line, err)
			}
			in.expectPassed(t, line, r.Name)
			n++
		}
	}
	if raw, err := os.ReadFile(junit); n == 0 || err != nil || !bytes.Contains(raw, []byte(`failures="0"`)) {
		t.Errorf("run-suite %s: %d results, JUnit %v:\n%s", suite, n, err, raw)
	}
}

// expectPassed finds the last result line of name in out, as origin does.
func (in *installation) expectPassed(t *testing.T, out, name string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var r extResult
		if strings.HasPrefix(lines[i], "{") && json.Unmarshal([]byte(lines[i]), &r) == nil && r.Name == name {
			if r.Result != "passed" {
				t.Errorf("%s: %s: %s\n%s", name, r.Result, r.Error, r.Output)
			} else {
				t.Logf("passed: %s", name)
			}
			return
		}
	}
	t.Errorf("%s: no result line (origin counts it failed):\n%s", name, out)
}

// runExt runs the extension binary with origin's environment; meanwhile the operator's
// pods keep running (the serial suite deletes them).
func (in *installation) runExt(t *testing.T, args ...string) (string, error) {
	t.Helper()
	binary := filepath.Join(framework.RepoRoot(t), "_output", "bin", "cluster-node-operator-tests-ext")
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("the extension binary: %v (run make build)", err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), `TEST_PROVIDER={"type":"skeleton"}`,
		"TEST_SUITE_START_TIME="+time.Now().Format(time.RFC3339), "EXTENSION_ARTIFACT_DIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return out.String(), err
		case <-time.After(time.Second):
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			in.runner.sync(ctx)
			cancel()
		}
	}
}
