//go:build e2e

package e2e

// The CRI-O alerts, rules and dashboard against real CRI-O metrics
// (docs/crio-alerts.md); the TLS-stack group is promtool's (test/rules).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// rulesEventOnly: metrics of events this machine cannot cause or of pods; their queries must only parse.
var rulesEventOnly = []string{
	"container_runtime_crio_image_pulls_bytes_total",
	"container_runtime_crio_containers_oom_count_total",
	"kube_pod_container_status_waiting_reason",
}

const rulesTestFor = "15s"

// TestRules: rules, alert operands and dashboard queries against two real CRI-Os; each fault its own alert (docs/test-behaviours.md).
func TestRules(t *testing.T) {
	base := filepath.Join(framework.RepoRoot(t), "_output", "rules")
	_ = os.RemoveAll(base)
	job := criometrics.OperatorJob
	nodes := startRulesNodes(t, base)
	minimalStart := time.Now()
	// CMO's job for CRI-O (cluster-monitoring-operator f581865b, minimal-service-monitor-kubelet.yaml), pinned here, not to our constant.
	minimal, _ := startRulesPrometheus(t, filepath.Join(base, "prometheus-minimal"), nodes, "crio", minimalKeepRegex(t))
	prom, rf := startRulesPrometheus(t, filepath.Join(base, "prometheus"), nodes, job, "")

	stopExercise := exerciseCRI(t, nodes)
	waitQueriesHaveSeries(t, prom, ruleQueries(t, rf, job))
	if s, err := prom.Query(`ALERTS{alertname=~"CRIONotResponding|CRIOMetricsProxyRejectsScrapes"}`); err != nil || len(s) > 0 {
		t.Fatalf("scrape alerts active before any fault: %v %v", s, err)
	}
	assertMinimalProfileQuiet(t, minimal, time.Since(minimalStart))
	require.NoError(t, stopExercise())

	// Faults: CRI-O stops on n1; n2's proxy rejects Prometheus.
	faultAt := time.Now()
	framework.StopCRIO(t, nodes[0].crio)
	nodes[1].proxy.Reject.Store(true)
	assertEachFaultItsAlert(t, "full", prom, nodes, faultAt)
	assertEachFaultItsAlert(t, "minimal", minimal, nodes, faultAt)
}

// rulesNode is a real CRI-O, the proxy in front of it and a kubelet.
type rulesNode struct {
	name    string
	crio    *framework.CRIO
	proxy   *framework.MetricsProxy
	kubelet *framework.FakeKubelet
	cri     framework.CRI
}

func startRulesNodes(t *testing.T, base string) []*rulesNode {
	t.Helper()
	if err := framework.EnsureTool(t, "crio"); err != nil {
		framework.Unavailable(t, "crio is not available: %v", err)
	}
	var nodes []*rulesNode
	for _, name := range []string{"rules-n1", "rules-n2"} {
		dir := filepath.Join(base, name)
		c := framework.StartCRIO(t, framework.CRIOOptions{Dir: dir, MetricsPort: framework.FreePort(t)})
		n := &rulesNode{name: name, crio: c, cri: framework.DialCRI(t, c.Socket())}
		n.proxy = framework.StartMetricsProxy(t, c.MetricsPort, filepath.Join(dir, "tls", "ca.crt"))
		// 20 calls a second: a stopped CRI-O pushes the 5-minute error
		// rate over the rules' 0.2/s within 3 s, well inside "for".
		n.kubelet = framework.StartFakeKubelet(t, name, c.Socket(), 50*time.Millisecond, 2*time.Second)
		nodes = append(nodes, n)
	}
	return nodes
}

// startRulesPrometheus runs Prometheus in dir with the rules for crioJob over the nodes, keep the profile's relabelling ("" all), and waits for every target.
func startRulesPrometheus(t *testing.T, dir string, nodes []*rulesNode, crioJob, keep string) (*framework.Prometheus, testRuleFile) {
	rf, rules := writeTestRules(t, crioJob, dir)
	var crioTargets, kubeletTargets []map[string]interface{}
	for _, n := range nodes {
		crioTargets = append(crioTargets, map[string]interface{}{"targets": []string{n.proxy.Addr}, "labels": map[string]string{"node": n.name}})
		kubeletTargets = append(kubeletTargets, map[string]interface{}{"targets": []string{n.kubelet.Addr},
			"labels": map[string]string{"node": n.name, "metrics_path": "/metrics"}})
	}
	crio := map[string]interface{}{"job_name": crioJob, "static_configs": crioTargets}
	kubelet := map[string]interface{}{"job_name": "kubelet", "static_configs": kubeletTargets}
	if keep != "" {
		relabel := []interface{}{map[string]interface{}{"source_labels": []string{"__name__"}, "regex": keep, "action": "keep"}}
		crio["metric_relabel_configs"], kubelet["metric_relabel_configs"] = relabel, relabel
	}
	raw, err := json.Marshal(map[string]interface{}{
		"global":     map[string]interface{}{"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
		"rule_files": []string{rules},
		"scrape_configs": []interface{}{crio, kubelet,
			map[string]interface{}{"job_name": "kube-state-metrics", "static_configs": kubeletTargets, "metrics_path": "/kube-state-metrics", "honor_labels": true},
		},
	})
	require.NoError(t, err)
	prom := framework.StartPrometheus(t, dir, string(raw))
	prom.WaitTargetsUp(t, 3*len(nodes), time.Minute)
	return prom, rf
}

// ruleQueries: every recording rule and its series, every alert operand and every dashboard query.
func ruleQueries(t *testing.T, rf testRuleFile, job string) []string {
	t.Helper()
	var queries []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			expr, _ := r["expr"].(string)
			if name, ok := r["record"].(string); ok {
				queries = append(queries, expr, fmt.Sprintf("%s{job=%q}", name, job))
				continue
			}
			operands, err := framework.ValueOperands(expr)
			require.NoError(t, err)
			queries = append(queries, operands...)
		}
	}
	return append(queries, dashboardQueries(t, criometrics.RenderDashboard(job))...)
}

// exerciseCRI calls every node's CRI every second, failed pulls included; the function returned stops it and says whether a call failed.
func exerciseCRI(t *testing.T, nodes []*rulesNode) func() error {
	refused := fmt.Sprintf("127.0.0.1:%d/rules-test/none:latest", framework.FreePort(t))
	exercise := func() error {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		for _, n := range nodes {
			for m, call := range framework.CRICallsWithoutPod {
				if err := call(ctx, n.cri); err != nil {
					return fmt.Errorf("node %s: %s: %w", n.name, m, err)
				}
			}
			if _, err := n.cri.PullImage(ctx, &runtimeapi.PullImageRequest{Image: &runtimeapi.ImageSpec{Image: refused}}); err == nil {
				return fmt.Errorf("node %s: pulling %s succeeded", n.name, refused)
			}
		}
		return nil
	}
	require.NoError(t, exercise())
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			case <-time.After(time.Second):
			}
			if err := exercise(); err != nil {
				done <- err
				return
			}
		}
	}()
	return func() error { close(stop); return <-done }
}

// waitQueriesHaveSeries waits until every query but rulesEventOnly's returns series.
func waitQueriesHaveSeries(t *testing.T, prom *framework.Prometheus, queries []string) {
	t.Helper()
	framework.Eventually(t, time.Minute, 2*time.Second, func() (bool, error) {
		var empty []string
		for _, q := range queries {
			series, err := prom.Query(q)
			if err != nil {
				t.Fatal(err) // a query Prometheus refuses
			}
			if len(series) == 0 && !slices.ContainsFunc(rulesEventOnly, func(m string) bool { return strings.Contains(q, m) }) {
				empty = append(empty, q)
			}
		}
		if len(empty) > 0 {
			return false, fmt.Errorf("no series for %q", empty)
		}
		return true, nil
	}, "every query to return series after a minute of scrapes")
}

// assertMinimalProfileQuiet: the minimal profile keeps one CRI-O series, none we read, and no CRI-O alert was pending.
func assertMinimalProfileQuiet(t *testing.T, minimal *framework.Prometheus, since time.Duration) {
	t.Helper()
	healthy := fmt.Sprintf("[%ds]", int(since.Seconds())+1)
	for q, want := range map[string]bool{
		`process_start_time_seconds{job="crio"}`:                            true,
		`{job="crio", __name__!~"up|scrape_.*|process_start_time_seconds"}`: false,
		`{__name__=~"node_operation:.+", job="crio"}`:                       false,
		`{__name__=~"kubelet_runtime_operations.*"}`:                        false,
		`max_over_time(ALERTS{alertname=~"CRIO.*"}` + healthy + `)`:         false,
	} {
		series, err := minimal.Query(q)
		require.NoError(t, err)
		assert.Equal(t, want, len(series) > 0, "minimal profile: %s returns %v", q, series)
	}
}

// assertEachFaultItsAlert: each faulty node fires its own alert and never the other one since faultAt.
func assertEachFaultItsAlert(t *testing.T, profile string, prom *framework.Prometheus, nodes []*rulesNode, faultAt time.Time) {
	t.Helper()
	firing := func(alert, node string) (bool, error) {
		s, err := prom.Query(fmt.Sprintf(`ALERTS{alertname=%q, alertstate="firing", node=%q}`, alert, node))
		return len(s) > 0, err
	}
	framework.Eventually(t, 90*time.Second, time.Second, func() (bool, error) {
		a, err := firing("CRIONotResponding", nodes[0].name)
		if err != nil || !a {
			return false, err
		}
		return firing("CRIOMetricsProxyRejectsScrapes", nodes[1].name)
	}, profile+" profile: CRIONotResponding fires for the node without CRI-O, CRIOMetricsProxyRejectsScrapes for the node whose proxy answers 401")
	window := int(time.Since(faultAt).Seconds()) + 5
	for _, wrong := range []struct{ alert, node string }{
		{"CRIOMetricsProxyRejectsScrapes", nodes[0].name},
		{"CRIONotResponding", nodes[1].name},
	} {
		s, err := prom.Query(fmt.Sprintf(`max_over_time(ALERTS{alertname=%q, alertstate="firing", node=%q}[%ds])`, wrong.alert, wrong.node, window))
		require.NoError(t, err)
		assert.Empty(t, s, "%s profile: %s fired for node %s too", profile, wrong.alert, wrong.node)
	}
}

// dashboardQueries: the panels' queries and label_values selectors of a rendered dashboard ConfigMap ($node: every node).
func dashboardQueries(t *testing.T, raw []byte) []string {
	t.Helper()
	var cm struct {
		Data map[string]string `json:"data"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &cm))
	var out []string
	var walk func(v interface{})
	walk = func(v interface{}) {
		switch v := v.(type) {
		case []interface{}:
			for _, e := range v {
				walk(e)
			}
		case map[string]interface{}:
			if expr, ok := v["expr"].(string); ok {
				out = append(out, strings.ReplaceAll(expr, "$node", ".+"))
			}
			// label_values(selector, label) is Grafana's: the selector is the query.
			if q, ok := v["query"].(string); ok && v["type"] == "query" && strings.HasPrefix(q, "label_values(") {
				out = append(out, q[len("label_values("):strings.LastIndex(q, ",")])
			}
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, js := range cm.Data {
		var d interface{}
		require.NoError(t, json.Unmarshal([]byte(js), &d))
		walk(d)
	}
	require.NotEmpty(t, out, "the dashboard has no queries")
	return out
}

// writeTestRules writes dir/rules.yaml: the rules for job, every alert's "for" shortened.
func writeTestRules(t *testing.T, job, dir string) (rf testRuleFile, path string) {
	t.Helper()
	rule, err := criometrics.RenderPrometheusRule(job, false)
	require.NoError(t, err)
	plain, err := criometrics.RuleFile(rule)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(plain, &rf))
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if _, ok := r["alert"]; ok {
				r["for"] = rulesTestFor
			}
		}
	}
	raw, err := yaml.Marshal(rf)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path = filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	return rf, path
}

type testRuleFile struct {
	Groups []struct {
		Name  string                   `json:"name"`
		Rules []map[string]interface{} `json:"rules"`
	} `json:"groups"`
}

// minimalKeepRegex: the minimal collection profile's keep regex from our fixture.
func minimalKeepRegex(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(framework.RepoRoot(t), "test", "rules", "cmo-minimal-profile.yaml"))
	require.NoError(t, err)
	var fixture struct {
		Keep []string `json:"keep"`
	}
	if err := yaml.Unmarshal(raw, &fixture); err != nil || len(fixture.Keep) == 0 {
		t.Fatalf("test/rules/cmo-minimal-profile.yaml: %v, %d names", err, len(fixture.Keep))
	}
	return "(" + strings.Join(fixture.Keep, "|") + ")"
}
