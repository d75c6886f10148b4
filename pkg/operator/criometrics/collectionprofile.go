package criometrics

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// The cluster-monitoring operator's configuration, as it reads it
// (openshift/cluster-monitoring-operator at f581865b, pkg/manifests/config.go):
// key config.yaml of ConfigMap openshift-monitoring/cluster-monitoring-config,
// prometheusK8s.collectionProfile "full" (the default, also for a missing
// ConfigMap or an empty key) or "minimal"; anything else makes it refuse the
// whole configuration.
const (
	MonitoringConfigNamespace = "openshift-monitoring"
	MonitoringConfigName      = "cluster-monitoring-config"
	monitoringConfigKey       = "config.yaml"

	ProfileFull    = "full"
	ProfileMinimal = "minimal"
)

// MonitoringProfile is the platform Prometheus' collection profile as the
// operator read it: Profile, or Problem when the configuration cannot be
// read (then Profile is empty).
type MonitoringProfile struct {
	Profile string
	Problem string
}

// ReadMonitoringProfile reads the collection profile from the
// cluster-monitoring operator's ConfigMap; nil stands for a missing one.
// Only prometheusK8s.collectionProfile is looked at: other fields are the
// cluster-monitoring operator's to judge.
func ReadMonitoringProfile(cm *corev1.ConfigMap) MonitoringProfile {
	if cm == nil {
		return MonitoringProfile{Profile: ProfileFull}
	}
	raw, ok := cm.Data[monitoringConfigKey]
	if !ok {
		return MonitoringProfile{Problem: fmt.Sprintf("it has no key %s", monitoringConfigKey)}
	}
	// Keys are matched exactly, as the cluster-monitoring operator does; a
	// duplicate key is an error to both.
	var config map[string]interface{}
	if err := yaml.UnmarshalStrict([]byte(raw), &config); err != nil {
		return MonitoringProfile{Problem: fmt.Sprintf("%s is not valid YAML: %v", monitoringConfigKey, err)}
	}
	prom, ok := config["prometheusK8s"]
	if !ok || prom == nil {
		return MonitoringProfile{Profile: ProfileFull}
	}
	promMap, ok := prom.(map[string]interface{})
	if !ok {
		return MonitoringProfile{Problem: fmt.Sprintf("%s: prometheusK8s is not an object", monitoringConfigKey)}
	}
	value, ok := promMap["collectionProfile"]
	if !ok || value == nil {
		return MonitoringProfile{Profile: ProfileFull}
	}
	profile, isString := value.(string)
	switch {
	case isString && profile == "":
		return MonitoringProfile{Profile: ProfileFull}
	case isString && (profile == ProfileFull || profile == ProfileMinimal):
		return MonitoringProfile{Profile: profile}
	}
	return MonitoringProfile{Problem: fmt.Sprintf("%s: prometheusK8s.collectionProfile %v is neither %s nor %s",
		monitoringConfigKey, value, ProfileFull, ProfileMinimal)}
}

// Where the profile "minimal" leaves our alerts and dashboard without
// series (test/rules/cmo-minimal-profile.yaml has the keep-list;
// TestMinimalProfileLosses derives these from it and the rendered assets).
var (
	// minimalProfileSilencedAlerts read CRI-O's own series, which the
	// platform job "crio" no longer keeps.
	minimalProfileSilencedAlerts = []string{
		"CRIOOperationErrorsHigh", "CRIOOperationLatencyHigh", "CRIOImagePullFailuresHigh",
		"CRIONodeImagePullFailuresHigh", "CRIOContainersOOMKilled",
	}
	// minimalProfileKeptDashboardRow is the one dashboard row whose panels
	// read Prometheus' own series of the scrape (up, scrape_*).
	minimalProfileKeptDashboardRow = "Scrape health"
	// scrapeAlerts tell a stopped CRI-O from a refusing proxy by the
	// kubelet's runtime-operation series, which the profile drops from
	// every path, or else by the node's Ready condition.
	scrapeAlerts = []string{"CRIONotResponding", "CRIOMetricsProxyRejectsScrapes"}
)

// ProfileNote says, for the MetricsAvailable message, which of the
// operator's alerts and dashboard panels cannot work under the platform
// Prometheus' collection profile on the stack's mode, and why; "" where
// all work. A pure function of its inputs, so the message changes only
// when they do.
func ProfileNote(p MonitoringProfile, mode nodev1alpha1.StackMode) string {
	source := MonitoringConfigNamespace + "/" + MonitoringConfigName
	if p.Problem != "" {
		return fmt.Sprintf("the monitoring configuration %s cannot be read (%s): the cluster-monitoring operator refuses it too and keeps its previous configuration, so whether the collection profile leaves the CRI-O alerts and dashboard their metrics is not known",
			source, p.Problem)
	}
	if p.Profile != ProfileMinimal {
		return ""
	}
	scrape := fmt.Sprintf("the profile keeps none of the kubelet's runtime-operation metrics, so %s tell a stopped CRI-O from a refusing proxy by the node's Ready condition (kube-state-metrics)",
		strings.Join(scrapeAlerts, " and "))
	switch mode {
	case nodev1alpha1.PlatformProxy:
		return fmt.Sprintf("collection profile %s (%s): the platform Prometheus keeps none of CRI-O's metrics on job=%q, so alerts %s cannot fire and the CRI-O dashboard shows only its row %s; %s",
			ProfileMinimal, source, PlatformJob, strings.Join(minimalProfileSilencedAlerts, ", "), minimalProfileKeptDashboardRow, scrape)
	case nodev1alpha1.OperatorTLS:
		return fmt.Sprintf("collection profile %s (%s): the operator's ServiceMonitor %s carries no collection-profile label and is scraped in full, so every CRI-O alert and dashboard panel works; %s",
			ProfileMinimal, source, serviceName, scrape)
	}
	return ""
}
