package criometrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// ruleGroups decodes a rendered PrometheusRule into its groups.
func ruleGroups(t *testing.T, raw []byte) []map[string]interface{} {
	t.Helper()
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Groups []map[string]interface{} `json:"groups"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &obj))
	assert.Equal(t, "PrometheusRule", obj.Kind)
	assert.Equal(t, "crio-metrics", obj.Metadata.Name)
	assert.Equal(t, "openshift-cluster-node-operator", obj.Metadata.Namespace)
	assert.Equal(t, "crio-metrics", obj.Metadata.Labels["app"])
	return obj.Spec.Groups
}

func TestRenderMonitoringPrometheusRule(t *testing.T) {
	for _, tc := range []struct {
		job      string
		tlsStack bool
		groups   []string
	}{
		{PlatformJob, false, []string{"crio"}},
		{PlatformJob, true, []string{"crio", TLSStackRuleGroup}},
		{OperatorJob, true, []string{"crio", TLSStackRuleGroup}},
		{OperatorJob, false, []string{"crio"}},
	} {
		t.Run(tc.job, func(t *testing.T) {
			raw, err := RenderPrometheusRule(tc.job, tc.tlsStack)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), jobPlaceholder)
			groups := ruleGroups(t, raw)
			require.Len(t, groups, len(tc.groups))
			for i, g := range groups {
				assert.Equal(t, tc.groups[i], g["name"])
			}

			// Every rule of group crio selects the job (what each alert
			// says: TestAlertsFollowGuidelines).
			rules := groups[0]["rules"].([]interface{})
			require.NotEmpty(t, rules)
			for _, r := range rules {
				rule := r.(map[string]interface{})
				assert.Contains(t, rule["expr"], `job="`+tc.job+`"`, rule)
			}
		})
	}
}

func TestRenderMonitoringRejectsBadJob(t *testing.T) {
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
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	} `json:"rows"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query string `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

// dashboardOf decodes the rendered ConfigMap and its one JSON key.
func dashboardOf(t *testing.T, raw []byte) grafanaDashboard {
	t.Helper()
	var cm struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &cm))
	assert.Equal(t, "ConfigMap", cm.Kind)
	assert.Equal(t, "grafana-dashboard-node-crio", cm.Metadata.Name)
	assert.Equal(t, "openshift-config-managed", cm.Metadata.Namespace)
	assert.Equal(t, "true", cm.Metadata.Labels["console.openshift.io/dashboard"])
	assert.Equal(t, "crio-metrics", cm.Metadata.Labels["app"])
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
		t.Run(job, func(t *testing.T) {
			raw := RenderDashboard(job)
			assert.NotContains(t, string(raw), jobPlaceholder)
			d := dashboardOf(t, raw)
			assert.Equal(t, "CRI-O", d.Title)
			require.NotEmpty(t, d.Rows)
			panels := 0
			for _, r := range d.Rows {
				for _, p := range r.Panels {
					panels++
					assert.NotEmpty(t, p.Title)
					require.NotEmpty(t, p.Targets, p.Title)
					for _, tg := range p.Targets {
						assert.Contains(t, tg.Expr, `job="`+job+`"`, p.Title)
						assert.Contains(t, tg.Expr, `node=~"$node"`, p.Title)
					}
				}
			}
			assert.GreaterOrEqual(t, panels, 8)
			var vars []string
			for _, v := range d.Templating.List {
				vars = append(vars, v.Name)
				if v.Name == "node" {
					assert.Contains(t, v.Query, `job="`+job+`"`)
				}
			}
			assert.Equal(t, []string{"datasource", "node"}, vars)
		})
	}
}
