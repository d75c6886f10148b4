package criometrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// promtoolPath finds promtool; a missing one fails the test (never skips):
// otherwise the rules would go untested without anyone noticing.
func promtoolPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool not found: run hack/prometheus.sh (Debian package prometheus)"
		if os.Getenv("CI") == "true" {
			msg += "; CI must install it (make test-unit does through its prometheus-tools prerequisite)"
		}
		t.Fatal(msg)
	}
	return p
}

// TestPromtoolRules renders the rules for each path, writes the plain rule
// file promtool reads, and runs `promtool check rules` and `promtool test
// rules` with copies of test/rules/*-test.yaml pointed at it.
func TestPromtoolRules(t *testing.T) {
	promtool := promtoolPath(t)
	for _, tc := range []struct {
		job      string
		tlsStack bool
		tests    []string
	}{
		{PlatformJob, false, []string{"crio-alerts-test.yaml"}},
		{OperatorJob, true, []string{"crio-metrics-tls-stack-test.yaml"}},
	} {
		t.Run(tc.job, func(t *testing.T) {
			dir := t.TempDir()
			rule, err := RenderPrometheusRule(tc.job, tc.tlsStack)
			require.NoError(t, err)
			plain, err := RuleFile(rule)
			require.NoError(t, err)
			rulesPath := filepath.Join(dir, tc.job+"-rules.yaml")
			require.NoError(t, os.WriteFile(rulesPath, plain, 0o644))

			out, err := exec.Command(promtool, "check", "rules", rulesPath).CombinedOutput()
			require.NoError(t, err, "promtool check rules:\n%s", out)

			for _, name := range tc.tests {
				raw, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "rules", name))
				require.NoError(t, err)
				var test map[string]interface{}
				require.NoError(t, yaml.Unmarshal(raw, &test))
				test["rule_files"] = []string{rulesPath}
				cp, err := yaml.Marshal(test)
				require.NoError(t, err)
				testPath := filepath.Join(dir, name)
				require.NoError(t, os.WriteFile(testPath, cp, 0o644))
				out, err := exec.Command(promtool, "test", "rules", testPath).CombinedOutput()
				require.NoError(t, err, "promtool test rules %s:\n%s", name, out)
			}
		})
	}
}

// TestPromtoolCoversEveryAlert: each alert of the full rule set is expected
// to fire in some promtool test case, and each test file names alerts that
// exist.
func TestPromtoolCoversEveryAlert(t *testing.T) {
	rule, err := RenderPrometheusRule(OperatorJob, true)
	require.NoError(t, err)
	alerts := map[string]bool{}
	for _, g := range ruleGroups(t, rule) {
		for _, r := range g["rules"].([]interface{}) {
			if name, ok := r.(map[string]interface{})["alert"].(string); ok {
				alerts[name] = true
			}
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "test", "rules", "*-test.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fired := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var test struct {
			Tests []struct {
				AlertRuleTest []struct {
					Alertname string        `json:"alertname"`
					ExpAlerts []interface{} `json:"exp_alerts"`
				} `json:"alert_rule_test"`
			} `json:"tests"`
		}
		require.NoError(t, yaml.Unmarshal(raw, &test), f)
		for _, tc := range test.Tests {
			for _, a := range tc.AlertRuleTest {
				assert.True(t, alerts[a.Alertname], "%s tests unknown alert %s", f, a.Alertname)
				if len(a.ExpAlerts) > 0 {
					fired[a.Alertname] = true
				}
			}
		}
	}
	var missing []string
	for a := range alerts {
		if !fired[a] {
			missing = append(missing, a)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "alerts no promtool test expects to fire")
}
