//go:build e2e

package e2e

// The CRI-O alerts, recording rules and dashboard against real CRI-O metrics
// (docs/crio-alerts.md): a real Prometheus scrapes two real CRI-Os as job
// crio-metrics (the operator's path, so the rules are rendered for it) and
// loads the rendered rules. Every recording rule, every operand of every
// alert (framework.ValueOperands) and every dashboard query must return
// series, except those of kube-state-metrics, which this test does not run.
// Then CRI-O is stopped on one node and the other node's proxy answers 401,
// and each node gets its own alert and only that one.
//
// What stands in for a cluster: the proxy in front of each CRI-O is
// framework.MetricsProxy (plain HTTP to Prometheus, TLS to CRI-O, 401 on
// demand), the kubelet of each node is framework.FakeKubelet (job kubelet,
// metrics_path /metrics, its runtime error counter fed by real CRI calls).
// In this copy of the rules only, every alert's "for" is 15s so that the
// test takes seconds, not 15 minutes. The group crio-metrics-tls-stack is
// not loaded: it reads the operator's and kube-state-metrics' series, not
// CRI-O's; promtool covers it (test/rules).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// Rule and dashboard queries whose metric CRI-O creates only on an event
// this test cannot cause on a machine without a registry or workloads (a
// completed image pull, a container killed for running out of memory), or
// that kube-state-metrics exports, which does not run here. They are still
// sent to Prometheus, which must accept them.
var rulesEventOnly = []string{
	"container_runtime_crio_image_pulls_bytes_total",
	"container_runtime_crio_containers_oom_count_total",
	"kube_pod_container_status_waiting_reason",
}

const rulesTestFor = "15s"

// TestRules proves that every rule and dashboard query of the CRI-O
// metrics stack returns series from real CRI-Os, and that each scrape
// fault fires its own alert for its own node only.
func TestRules(t *testing.T) {
	base := filepath.Join(framework.RepoRoot(t), "_output", "rules")
	_ = os.RemoveAll(base)
	nodes := startRulesNodes(t, base)
	rf, rulesPath := writeRulesWithShortFor(t, base)
	prom := startRulesPrometheus(t, base, rulesPath, nodes)
	everyQueryHasSeries(t, prom, nodes, rf)
	eachFaultFiresItsOwnAlertOnly(t, prom, nodes)
}

// rulesNode is a node of TestRules: a real CRI-O (hack/crio.sh generates
// its TLS pair), the proxy in front of its metrics and the kubelet
// stand-in.
type rulesNode struct {
	name    string
	crio    *framework.CRIO
	proxy   *framework.MetricsProxy
	kubelet *framework.FakeKubelet
	cri     framework.CRI
}

type rulesFile struct {
	Groups []struct {
		Name  string                   `json:"name"`
		Rules []map[string]interface{} `json:"rules"`
	} `json:"groups"`
}

func startRulesNodes(t *testing.T, base string) []*rulesNode {
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
		n.kubelet = framework.StartFakeKubelet(t, c.Socket(), 50*time.Millisecond)
		nodes = append(nodes, n)
	}
	return nodes
}

// writeRulesWithShortFor writes the rules rendered for the operator's job,
// every alert's "for" shortened in this copy only.
func writeRulesWithShortFor(t *testing.T, base string) (rulesFile, string) {
	rule, err := criometrics.RenderPrometheusRule(criometrics.OperatorJob, false)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := criometrics.RuleFile(rule)
	if err != nil {
		t.Fatal(err)
	}
	var rf rulesFile
	if err := yaml.Unmarshal(plain, &rf); err != nil {
		t.Fatal(err)
	}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if _, ok := r["alert"]; ok {
				r["for"] = rulesTestFor
			}
		}
	}
	testRules, err := yaml.Marshal(rf)
	if err != nil {
		t.Fatal(err)
	}
	promDir := filepath.Join(base, "prometheus")
	if err := os.MkdirAll(promDir, 0o755); err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(promDir, "rules.yaml")
	if err := os.WriteFile(rulesPath, testRules, 0o644); err != nil {
		t.Fatal(err)
	}
	return rf, rulesPath
}

// startRulesPrometheus scrapes every node's proxy as the operator's job and
// every kubelet stand-in as job kubelet, with the rules loaded.
func startRulesPrometheus(t *testing.T, base, rulesPath string, nodes []*rulesNode) *framework.Prometheus {
	var crioTargets, kubeletTargets []map[string]interface{}
	for _, n := range nodes {
		crioTargets = append(crioTargets, map[string]interface{}{"targets": []string{n.proxy.Addr}, "labels": map[string]string{"node": n.name}})
		kubeletTargets = append(kubeletTargets, map[string]interface{}{"targets": []string{n.kubelet.Addr},
			"labels": map[string]string{"node": n.name, "metrics_path": "/metrics"}})
	}
	config := map[string]interface{}{
		"global":     map[string]interface{}{"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
		"rule_files": []string{rulesPath},
		"scrape_configs": []interface{}{
			map[string]interface{}{"job_name": criometrics.OperatorJob, "static_configs": crioTargets},
			map[string]interface{}{"job_name": "kubelet", "static_configs": kubeletTargets},
		},
	}
	raw, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	prom := framework.StartPrometheus(t, filepath.Join(base, "prometheus"), string(raw))
	prom.WaitTargetsUp(t, 2*len(nodes), time.Minute) // every CRI-O and kubelet target
	return prom
}

// everyQueryHasSeries: every recording rule, alert operand and dashboard
// query has series (rates need a few scrapes and rule evaluations:
// retried), while CRI calls keep CRI-O's per-operation series growing; and
// no scrape alert is active before any fault.
func everyQueryHasSeries(t *testing.T, prom *framework.Prometheus, nodes []*rulesNode, rf rulesFile) {
	job := criometrics.OperatorJob
	var queries []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			expr, _ := r["expr"].(string)
			if name, ok := r["record"].(string); ok {
				queries = append(queries, expr, fmt.Sprintf("%s{job=%q}", name, job))
			} else {
				operands, err := framework.ValueOperands(expr)
				if err != nil {
					t.Fatal(err)
				}
				queries = append(queries, operands...)
			}
		}
	}
	dashboard := dashboardQueries(t, criometrics.RenderDashboard(job))
	queries = append(queries, dashboard...)
	eventOnly := func(q string) bool {
		for _, m := range rulesEventOnly {
			if strings.Contains(q, m) {
				return true
			}
		}
		return false
	}
	stopExercise := exerciseCRI(t, nodes)
	deadline := time.Now().Add(time.Minute)
	for {
		var empty []string
		for _, q := range queries {
			series, err := prom.QuerySeries(q)
			if err != nil {
				t.Fatal(err) // a query Prometheus refuses
			}
			if len(series) == 0 && !eventOnly(q) {
				empty = append(empty, q)
			}
		}
		if len(empty) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("queries without series after a minute of scrapes:\n%s", strings.Join(empty, "\n"))
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("%d rule and %d dashboard queries return series (those on %s only need to parse: no pull completes, no container is OOM-killed, no kube-state-metrics here)",
		len(queries)-len(dashboard), len(dashboard), strings.Join(rulesEventOnly, ", "))
	if s, err := prom.QuerySeries(`ALERTS{alertname=~"CRIONotResponding|CRIOMetricsProxyRejectsScrapes"}`); err != nil || len(s) > 0 {
		t.Fatalf("scrape alerts active before any fault: %v %v", s, err)
	}
	if err := stopExercise(); err != nil {
		t.Fatal(err)
	}
}

// exerciseCRI makes CRI calls now and every second until the returned
// function is called, so that CRI-O's per-operation series exist and grow
// (rates), including errors: a pull from a registry port nothing listens
// on fails.
func exerciseCRI(t *testing.T, nodes []*rulesNode) (stop func() error) {
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
	if err := exercise(); err != nil {
		t.Fatal(err)
	}
	stopExercise, exerciseDone := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stopExercise:
				exerciseDone <- nil
				return
			case <-time.After(time.Second):
			}
			if err := exercise(); err != nil {
				exerciseDone <- err
				return
			}
		}
	}()
	return func() error {
		close(stopExercise)
		return <-exerciseDone
	}
}

// eachFaultFiresItsOwnAlertOnly: CRI-O stops on the first node and the
// second node's proxy rejects Prometheus; CRIONotResponding fires for the
// first, CRIOMetricsProxyRejectsScrapes for the second, and neither ever
// for the other node.
func eachFaultFiresItsOwnAlertOnly(t *testing.T, prom *framework.Prometheus, nodes []*rulesNode) {
	faultAt := time.Now()
	framework.StopCRIO(t, nodes[0].crio)
	nodes[1].proxy.Reject.Store(true)
	firing := func(alert, node string) (bool, error) {
		s, err := prom.QuerySeries(fmt.Sprintf(`ALERTS{alertname=%q, alertstate="firing", node=%q}`, alert, node))
		return len(s) > 0, err
	}
	framework.Eventually(t, 90*time.Second, time.Second, func() (bool, error) {
		a, err := firing("CRIONotResponding", nodes[0].name)
		if err != nil || !a {
			return false, err
		}
		return firing("CRIOMetricsProxyRejectsScrapes", nodes[1].name)
	}, "CRIONotResponding fires for the node without CRI-O, CRIOMetricsProxyRejectsScrapes for the node whose proxy answers 401")
	t.Logf("both alerts fire %s after the faults", time.Since(faultAt).Round(time.Second))
	// Never the other alert for either node, not even briefly.
	window := int(time.Since(faultAt).Seconds()) + 5
	for _, wrong := range []struct{ alert, node string }{
		{"CRIOMetricsProxyRejectsScrapes", nodes[0].name},
		{"CRIONotResponding", nodes[1].name},
	} {
		s, err := prom.QuerySeries(fmt.Sprintf(`max_over_time(ALERTS{alertname=%q, alertstate="firing", node=%q}[%ds])`, wrong.alert, wrong.node, window))
		if err != nil {
			t.Fatal(err)
		}
		if len(s) > 0 {
			t.Errorf("%s fired for node %s too", wrong.alert, wrong.node)
		}
	}
}

// dashboardQueries returns the panel queries of a rendered dashboard
// ConfigMap, $node meaning every node.
func dashboardQueries(t *testing.T, raw []byte) []string {
	t.Helper()
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, js := range cm.Data {
		var d struct {
			Rows []struct {
				Panels []struct {
					Targets []struct {
						Expr string `json:"expr"`
					} `json:"targets"`
				} `json:"panels"`
			} `json:"rows"`
			Templating struct {
				List []struct {
					Query string `json:"query"`
					Type  string `json:"type"`
				} `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal([]byte(js), &d); err != nil {
			t.Fatal(err)
		}
		for _, r := range d.Rows {
			for _, p := range r.Panels {
				for _, tg := range p.Targets {
					out = append(out, strings.ReplaceAll(tg.Expr, "$node", ".+"))
				}
			}
		}
		for _, v := range d.Templating.List {
			// label_values(selector, label) is Grafana's: its selector is
			// the query.
			if q, ok := strings.CutPrefix(v.Query, "label_values("); ok && v.Type == "query" {
				if i := strings.LastIndex(q, ","); i > 0 {
					out = append(out, q[:i])
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the dashboard has no queries")
	}
	return out
}
