package criometrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const runbookBase = "https://github.com/openshift/cluster-node-operator/blob/main/docs/runbooks/"

var (
	// The left operand of a top-level and/unless/or/* decides an alert's
	// labels.
	setOperator = regexp.MustCompile(`\s(and|unless|or|\*)\s`)
	firstBy     = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)
)

// TestAlertsFollowGuidelines checks every alert against OpenShift's
// alerting guidelines as the cluster-monitoring operator reviews them.
func TestAlertsFollowGuidelines(t *testing.T) {
	rule, err := RenderPrometheusRule(OperatorJob, true)
	require.NoError(t, err)
	n := 0
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
			n++
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
	assert.Greater(t, n, 0)
}
