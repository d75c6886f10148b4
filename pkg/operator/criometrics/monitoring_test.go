package criometrics

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// manifestOf decodes a rendered manifest and checks its kind, namespace, name and app label.
func manifestOf(t *testing.T, raw []byte, kind, namespace, name string, into any) map[string]string {
	t.Helper()
	var obj struct {
		Kind     string            `json:"kind"`
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &obj))
	require.NoError(t, yaml.Unmarshal(raw, into))
	assert.Equal(t, []string{kind, namespace, name, "crio-metrics"}, []string{obj.Kind, obj.Metadata.Namespace, obj.Metadata.Name, obj.Metadata.Labels["app"]})
	return obj.Metadata.Labels
}

// ruleGroups decodes a rendered PrometheusRule into its groups.
func ruleGroups(t *testing.T, raw []byte) []map[string]interface{} {
	t.Helper()
	var obj struct {
		Spec struct {
			Groups []map[string]interface{} `json:"groups"`
		} `json:"spec"`
	}
	manifestOf(t, raw, "PrometheusRule", "openshift-crio-metrics", "crio-metrics", &obj)
	return obj.Spec.Groups
}

func TestRenderMonitoringPrometheusRule(t *testing.T) {
	// The platform's job: CMO's kubelet ServiceMonitor relabels its CRI-O
	// endpoint to job "crio" (cluster-monitoring-operator f581865b,
	// assets/control-plane/minimal-service-monitor-kubelet.yaml).
	assert.Equal(t, "crio", PlatformJob)
	for _, job := range []string{PlatformJob, OperatorJob} {
		for _, tlsStack := range []bool{false, true} {
			raw, err := RenderPrometheusRule(job, tlsStack)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), jobPlaceholder)
			want := []interface{}{"crio"}
			if tlsStack {
				want = append(want, TLSStackRuleGroup)
			}
			var names []interface{}
			groups := ruleGroups(t, raw)
			for _, g := range groups {
				names = append(names, g["name"])
			}
			require.Equal(t, want, names, "%s, TLS stack %v", job, tlsStack)

			// Every rule of group crio selects the job (what each alert
			// says: TestAlertsFollowGuidelines).
			rules := groups[0]["rules"].([]interface{})
			require.NotEmpty(t, rules)
			for _, r := range rules {
				assert.Contains(t, r.(map[string]interface{})["expr"], `job="`+job+`"`, r)
			}
		}
	}
	for _, job := range []string{"", `a"b`, "${CRIO_JOB}", "a{b}"} {
		_, err := RenderPrometheusRule(job, true)
		assert.Error(t, err, job)
	}
}

// grafanaDashboard is the part of the console's Grafana JSON the test reads.
type grafanaDashboard struct {
	Title string `json:"title"`
	Rows  []struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	} `json:"rows"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Query string `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

// dashboardOf decodes the rendered ConfigMap and its one JSON key.
func dashboardOf(t *testing.T, raw []byte) grafanaDashboard {
	t.Helper()
	var cm corev1.ConfigMap
	labels := manifestOf(t, raw, "ConfigMap", "openshift-config-managed", "grafana-dashboard-node-crio", &cm)
	assert.Equal(t, "true", labels["console.openshift.io/dashboard"])
	require.Len(t, cm.Data, 1)
	var d grafanaDashboard
	for key, js := range cm.Data {
		assert.True(t, strings.HasSuffix(key, ".json"), key)
		require.NoError(t, json.Unmarshal([]byte(js), &d), "dashboard JSON")
	}
	return d
}

func TestRenderMonitoringDashboard(t *testing.T) {
	for _, job := range []string{PlatformJob, OperatorJob} {
		raw := RenderDashboard(job)
		assert.NotContains(t, string(raw), jobPlaceholder, job)
		d := dashboardOf(t, raw)
		assert.Equal(t, "CRI-O", d.Title, job)
		require.NotEmpty(t, d.Rows, job)
		panels := 0
		for _, r := range d.Rows {
			for _, p := range r.Panels {
				panels++
				assert.NotEmpty(t, p.Title, job)
				require.NotEmpty(t, p.Targets, "%s: %s", job, p.Title)
				for _, tg := range p.Targets {
					assert.Contains(t, tg.Expr, `job="`+job+`"`, p.Title)
					assert.Contains(t, tg.Expr, `node=~"$node"`, "%s: %s", job, p.Title)
				}
			}
		}
		assert.GreaterOrEqual(t, panels, 8, job)
		var vars []string
		for _, v := range d.Templating.List {
			vars = append(vars, v.Name)
			if v.Name == "node" {
				assert.Contains(t, v.Query, `job="`+job+`"`)
			}
		}
		assert.Equal(t, []string{"datasource", "node"}, vars, job)
	}
}

const runbookBase = "https://github.com/openshift/cluster-node-operator/blob/main/docs/runbooks/"

var (
	// The left operand of a top-level and/unless/or/* decides an alert's
	// labels.
	setOperator = regexp.MustCompile(`\s(and|unless|or|\*)\s`)
	firstBy     = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)
)

// Every alert against OpenShift's alerting guidelines (docs/crio-alerts.md), and expected
// to fire in some promtool test, whose files name only existing alerts.
func TestAlertsFollowGuidelines(t *testing.T) {
	rule, err := RenderPrometheusRule(OperatorJob, true)
	require.NoError(t, err)
	alerts := map[string]bool{}
	for _, g := range ruleGroups(t, rule) {
		for _, r := range g["rules"].([]interface{}) {
			rule := r.(map[string]interface{})
			name, ok := rule["alert"].(string)
			if !ok {
				// Alerts read recording rules as they are: these must
				// keep namespace as well.
				for _, by := range firstBy.FindAllStringSubmatch(rule["expr"].(string), -1) {
					assert.Regexp(t, `\bnamespace\b`, by[1], "%s aggregates namespace away", rule["record"])
				}
				continue
			}
			alerts[name] = true
			labels, _ := rule["labels"].(map[string]interface{})
			ann, _ := rule["annotations"].(map[string]interface{})
			assert.Contains(t, []interface{}{"info", "warning", "critical"}, labels["severity"], name)
			assert.NotEmpty(t, ann["summary"], name)
			assert.Contains(t, ann["description"], "oc ", name)

			// namespace: a static label, or the left operand keeps it:
			// either its outer aggregation lists it, or it does not
			// aggregate and the scraped series' own namespace stays.
			if labels["namespace"] == nil {
				left := rule["expr"].(string)
				if loc := setOperator.FindStringIndex(left); loc != nil {
					left = left[:loc[0]]
				}
				if by := firstBy.FindStringSubmatch(left); by != nil {
					assert.Regexp(t, `\bnamespace\b`, by[1], "%s aggregates namespace away", name)
				}
			}

			url, _ := ann["runbook_url"].(string)
			assert.Equal(t, runbookBase+name+".md", url, name)
			runbook, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "runbooks", name+".md"))
			if assert.NoError(t, err, "runbook of %s", name) {
				for _, section := range []string{"# " + name, "## Meaning", "## Impact", "## Diagnosis", "## Mitigation"} {
					assert.True(t, strings.Contains(string(runbook), section+"\n"), "runbook of %s lacks %q", name, section)
				}
			}
		}
	}
	require.NotEmpty(t, alerts)

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
	for a := range alerts {
		assert.True(t, fired[a], "no promtool test expects %s to fire", a)
	}
}

// promtool check rules and test rules (test/rules/*-test.yaml) on each path's rules.
func TestPromtoolRules(t *testing.T) {
	// A missing promtool fails the test (never skips): otherwise the rules
	// would go untested without anyone noticing.
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool not found: run hack/prometheus.sh (Debian package prometheus)"
		if os.Getenv("CI") == "true" {
			msg += "; CI must install it (make test-unit does through its prometheus-tools prerequisite)"
		}
		t.Fatal(msg)
	}
	for _, tc := range []struct {
		job      string
		tlsStack bool
		test     string
	}{
		{PlatformJob, false, "crio-alerts-test.yaml"},
		{OperatorJob, true, "crio-metrics-tls-stack-test.yaml"},
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

			raw, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "rules", tc.test))
			require.NoError(t, err)
			var test map[string]interface{}
			require.NoError(t, yaml.Unmarshal(raw, &test))
			test["rule_files"] = []string{rulesPath}
			cp, err := yaml.Marshal(test)
			require.NoError(t, err)
			testPath := filepath.Join(dir, tc.test)
			require.NoError(t, os.WriteFile(testPath, cp, 0o644))
			out, err = exec.Command(promtool, "test", "rules", testPath).CombinedOutput()
			require.NoError(t, err, "promtool test rules %s:\n%s", tc.test, out)
		})
	}
}

func TestReadMonitoringProfile(t *testing.T) {
	config := func(data string) *corev1.ConfigMap {
		return &corev1.ConfigMap{Data: map[string]string{"config.yaml": data}}
	}
	for _, tc := range []struct {
		name    string
		cm      *corev1.ConfigMap
		profile string
		problem string
	}{
		{"no ConfigMap", nil, ProfileFull, ""},
		{"empty", config(""), ProfileFull, ""},
		{"empty profile", config("prometheusK8s:\n  collectionProfile: \"\"\n"), ProfileFull, ""},
		{"full", config("prometheusK8s:\n  collectionProfile: full\n"), ProfileFull, ""},
		{"minimal", config("prometheusK8s:\n  retention: 1d\n  collectionProfile: minimal\n"), ProfileMinimal, ""},
		// The cluster-monitoring operator matches keys exactly: this is
		// not its prometheusK8s.
		{"key in other case", config("prometheusk8s:\n  collectionProfile: minimal\n"), ProfileFull, ""},
		{"no key", &corev1.ConfigMap{Data: map[string]string{"config": ""}}, "", "it has no key config.yaml"},
		{"unknown profile", config("prometheusK8s:\n  collectionProfile: Minimal\n"), "",
			"config.yaml: prometheusK8s.collectionProfile Minimal is neither full nor minimal"},
		{"not an object", config("prometheusK8s: minimal\n"), "", "config.yaml: prometheusK8s is not an object"},
		{"not YAML", config("prometheusK8s: [\n"), "", "config.yaml is not valid YAML: "},
	} {
		got := ReadMonitoringProfile(tc.cm)
		assert.Equal(t, tc.profile, got.Profile, tc.name)
		if strings.HasSuffix(tc.problem, ": ") {
			assert.True(t, strings.HasPrefix(got.Problem, tc.problem), "%s: %s", tc.name, got.Problem)
		} else {
			assert.Equal(t, tc.problem, got.Problem, tc.name)
		}
		// Read twice, the same message: no status write churn.
		assert.Equal(t, got, ReadMonitoringProfile(tc.cm), tc.name)
	}
}

func TestProfileNote(t *testing.T) {
	minimal := MonitoringProfile{Profile: ProfileMinimal}
	for _, mode := range []nodev1alpha1.StackMode{nodev1alpha1.PlatformProxy, nodev1alpha1.OperatorTLS, ""} {
		assert.Empty(t, ProfileNote(MonitoringProfile{Profile: ProfileFull}, mode), "full, %q", mode)
	}
	assert.Empty(t, ProfileNote(minimal, ""), "no path, nothing to say")

	platform := ProfileNote(minimal, nodev1alpha1.PlatformProxy)
	assert.Contains(t, platform, "collection profile minimal (openshift-monitoring/cluster-monitoring-config)")
	for _, alert := range append(append([]string{}, minimalProfileSilencedAlerts...), scrapeAlerts...) {
		assert.Contains(t, platform, alert)
	}
	assert.Contains(t, platform, "only its row Scrape health")

	own := ProfileNote(minimal, nodev1alpha1.OperatorTLS)
	assert.Contains(t, own, "every CRI-O alert and dashboard panel works")
	for _, alert := range minimalProfileSilencedAlerts {
		assert.NotContains(t, own, alert, "works on the operator's own path")
	}

	bad := ProfileNote(MonitoringProfile{Problem: "it has no key config.yaml"}, nodev1alpha1.OperatorTLS)
	assert.Contains(t, bad, "cannot be read (it has no key config.yaml)")
}

// What ProfileNote says the minimal profile loses, derived from our keep-list fixture.
func TestMinimalProfileLosses(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "rules", "cmo-minimal-profile.yaml"))
	require.NoError(t, err)
	var fixture struct {
		Keep []string `json:"keep"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &fixture))
	require.NotEmpty(t, fixture.Keep)
	kept := map[string]bool{}
	// Prometheus' own series of a scrape are never relabelled.
	for _, n := range append(fixture.Keep, "up", "scrape_duration_seconds", "scrape_samples_scraped",
		"scrape_samples_post_metric_relabeling", "scrape_series_added") {
		kept[n] = true
	}
	onJob := func(expr, job string) (metrics []string) {
		for _, m := range regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{[^}]*job="`+job+`"`).FindAllStringSubmatch(expr, -1) {
			metrics = append(metrics, m[1])
		}
		return metrics
	}

	rule, err := RenderPrometheusRule(PlatformJob, false)
	require.NoError(t, err)
	recorded := map[string][]string{}
	alerts := map[string]string{}
	for _, g := range ruleGroups(t, rule) {
		for _, r := range g["rules"].([]interface{}) {
			m := r.(map[string]interface{})
			expr := m["expr"].(string)
			if name, ok := m["record"].(string); ok {
				recorded[name] = onJob(expr, PlatformJob)
			} else {
				alerts[m["alert"].(string)] = expr
			}
		}
	}
	// A series is lost when the profile drops it, a recorded one when any of its inputs is.
	var anyLost func(metrics []string) bool
	anyLost = func(metrics []string) bool {
		for _, m := range metrics {
			if inputs, recorded := recorded[m]; recorded && anyLost(inputs) || !recorded && !kept[m] {
				return true
			}
		}
		return false
	}

	var silenced, needReady []string
	for name, expr := range alerts {
		if anyLost(onJob(expr, PlatformJob)) {
			silenced = append(silenced, name)
		}
		kubelet := onJob(expr, "kubelet")
		for _, m := range kubelet {
			if m != "up" && !kept[m] {
				needReady = append(needReady, name)
				assert.Contains(t, expr, `kube_node_status_condition{job="kube-state-metrics", condition="Ready"`,
					"%s reads the kubelet's %s, which the profile drops: it needs the node's Ready condition instead", name, m)
				break
			}
		}
	}
	assert.ElementsMatch(t, minimalProfileSilencedAlerts, silenced, "alerts on series the minimal profile drops")
	assert.ElementsMatch(t, scrapeAlerts, needReady, "alerts on the kubelet's runtime series")

	d := dashboardOf(t, RenderDashboard(PlatformJob))
	require.Greater(t, len(d.Rows), 1)
	for _, r := range d.Rows {
		for _, p := range r.Panels {
			empty := false
			for _, tg := range p.Targets {
				empty = empty || anyLost(onJob(tg.Expr, PlatformJob))
			}
			assert.Equal(t, r.Title != minimalProfileKeptDashboardRow, empty,
				"row %q, panel %q: empty under the minimal profile", r.Title, p.Title)
		}
	}
}
