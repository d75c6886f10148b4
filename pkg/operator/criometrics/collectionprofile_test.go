package criometrics

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

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
		t.Run(tc.name, func(t *testing.T) {
			got := ReadMonitoringProfile(tc.cm)
			assert.Equal(t, tc.profile, got.Profile)
			if strings.HasSuffix(tc.problem, ": ") {
				assert.True(t, strings.HasPrefix(got.Problem, tc.problem), got.Problem)
			} else {
				assert.Equal(t, tc.problem, got.Problem)
			}
			// Read twice, the same message: no status write churn.
			assert.Equal(t, got, ReadMonitoringProfile(tc.cm))
		})
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

// TestMinimalProfileLosses derives, from our own fixture of the
// cluster-monitoring operator's minimal keep-list and the rendered rules
// and dashboard of the platform job, what ProfileNote says cannot work.
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
	selector := func(job string) *regexp.Regexp {
		return regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{[^}]*job="` + job + `"`)
	}
	onJob := func(expr, job string) []string {
		var out []string
		for _, m := range selector(job).FindAllStringSubmatch(expr, -1) {
			out = append(out, m[1])
		}
		return out
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
	var lost func(metric string) bool
	lost = func(metric string) bool {
		if inputs, ok := recorded[metric]; ok {
			for _, in := range inputs {
				if lost(in) {
					return true
				}
			}
			return false
		}
		return !kept[metric]
	}
	anyLost := func(expr string) bool {
		for _, m := range onJob(expr, PlatformJob) {
			if lost(m) {
				return true
			}
		}
		return false
	}

	var silenced, needReady []string
	for name, expr := range alerts {
		if anyLost(expr) {
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
	sort.Strings(silenced)
	sort.Strings(needReady)
	want := append([]string{}, minimalProfileSilencedAlerts...)
	sort.Strings(want)
	assert.Equal(t, want, silenced, "alerts on series the minimal profile drops")
	wantReady := append([]string{}, scrapeAlerts...)
	sort.Strings(wantReady)
	assert.Equal(t, wantReady, needReady, "alerts on the kubelet's runtime series")

	rows := 0
	for _, r := range dashboardOf(t, RenderDashboard(PlatformJob)).Rows {
		rows++
		for _, p := range r.Panels {
			empty := false
			for _, tg := range p.Targets {
				empty = empty || anyLost(tg.Expr)
			}
			assert.Equal(t, r.Title != minimalProfileKeptDashboardRow, empty,
				"row %q, panel %q: empty under the minimal profile", r.Title, p.Title)
		}
	}
	require.Greater(t, rows, 1)
}
