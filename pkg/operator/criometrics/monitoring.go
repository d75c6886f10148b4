package criometrics

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// Prometheus jobs that scrape CRI-O, one per path (docs/crio-alerts.md).
const (
	// PlatformJob is the job of the cluster-monitoring operator's kubelet
	// ServiceMonitor endpoint that scrapes the machine-config operator's
	// kube-rbac-proxy-crio static pods.
	PlatformJob = "crio"
	// OperatorJob is the job of the operator's own ServiceMonitor
	// crio-metrics (its Service's name).
	OperatorJob = "crio-metrics"

	// TLSStackRuleGroup is the rule group that watches the operator's own
	// TLS stack; it has no meaning on the platform path.
	TLSStackRuleGroup = "crio-metrics-tls-stack"

	jobPlaceholder = "${CRIO_JOB}"

	prometheusRuleFile = "metrics/prometheusrule.yaml"
	dashboardFile      = "metrics/dashboard.yaml"
)

// RenderMonitoringAsset substitutes the CRI-O job for the placeholder in a
// rule or dashboard asset. The assets are plain text to keep one source for
// both paths; the job is a label value, so nothing needs escaping for the
// job names above.
func RenderMonitoringAsset(raw []byte, job string) []byte {
	return bytes.ReplaceAll(raw, []byte(jobPlaceholder), []byte(job))
}

// RenderPrometheusRule returns the PrometheusRule for job as YAML; without
// the TLS-stack group unless tlsStack (the platform path has no such stack,
// and its alerts would fire on absent series of a stack that is not there).
func RenderPrometheusRule(job string, tlsStack bool) ([]byte, error) {
	if err := checkJob(job); err != nil {
		return nil, err
	}
	raw, err := bindata.Asset(prometheusRuleFile)
	if err != nil {
		return nil, err
	}
	rendered := RenderMonitoringAsset(raw, job)
	if tlsStack {
		return rendered, nil
	}
	obj := map[string]interface{}{}
	if err := yaml.Unmarshal(rendered, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", prometheusRuleFile, err)
	}
	spec, _ := obj["spec"].(map[string]interface{})
	groups, _ := spec["groups"].([]interface{})
	if groups == nil {
		return nil, fmt.Errorf("%s has no spec.groups", prometheusRuleFile)
	}
	kept := make([]interface{}, 0, len(groups))
	for _, g := range groups {
		if m, ok := g.(map[string]interface{}); ok && m["name"] == TLSStackRuleGroup {
			continue
		}
		kept = append(kept, g)
	}
	spec["groups"] = kept
	return yaml.Marshal(obj)
}

// RuleFile turns a PrometheusRule (YAML) into the rule file Prometheus and
// promtool read: its spec, i.e. {groups: [...]}.
func RuleFile(prometheusRule []byte) ([]byte, error) {
	var obj struct {
		Spec map[string]interface{} `json:"spec"`
	}
	if err := yaml.Unmarshal(prometheusRule, &obj); err != nil {
		return nil, err
	}
	if _, ok := obj.Spec["groups"]; !ok {
		return nil, fmt.Errorf("PrometheusRule has no spec.groups")
	}
	return yaml.Marshal(obj.Spec)
}

// RenderDashboard returns the console dashboard ConfigMap for job as YAML.
func RenderDashboard(job string) []byte {
	return RenderMonitoringAsset(bindata.MustAsset(dashboardFile), job)
}

// checkJob refuses what would not be a plain label value inside the
// double-quoted matchers of the assets.
func checkJob(job string) error {
	if job == "" || strings.ContainsAny(job, "\"\\\n{}$") {
		return fmt.Errorf("invalid CRI-O job name %q", job)
	}
	return nil
}

// monitoringAsset renders the alerts and the dashboard for the job that
// scrapes CRI-O in the stack's mode; the alerts about the operator's own TLS
// stack only where it runs.
func monitoringAsset(mode nodev1alpha1.StackMode) resourceapply.AssetFunc {
	return func(name string) ([]byte, error) {
		job := OperatorJob
		if mode == nodev1alpha1.PlatformProxy {
			job = PlatformJob
		}
		switch name {
		case prometheusRuleFile:
			return RenderPrometheusRule(job, mode != nodev1alpha1.PlatformProxy)
		case dashboardFile:
			return RenderDashboard(job), nil
		}
		return bindata.Asset(name)
	}
}
