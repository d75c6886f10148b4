package testsext

import (
	corev1 "k8s.io/api/core/v1"
)

const sig = "[sig-node] ClusterOperator node "

// Tests are every test of the binary, in the order list prints them.
func Tests() []Test {
	parallel := " " + suiteMarker(ParallelSuite)
	return []Test{
		{Name: sig + "is Available and not Degraded, with its operator running" + parallel, Run: testConditions},
		{Name: sig + "reports the operator version of the completed release" + parallel, Run: testVersions},
		{Name: sig + "lists relatedObjects that all exist" + parallel, Run: testRelatedObjects},
		{Name: sig + "records stack decisions that match the Infrastructure and the platform's CRI-O metrics path" + parallel, Run: testDecision},
		{Name: sig + "serves CRI-O metrics through its DaemonSet and Service where the platform does not" + parallel, Run: testCRIOMetricsServed},
		{Name: sig + "refuses CRI-O metrics to a ServiceAccount without get on /metrics and allows the platform Prometheus" + parallel, Run: testCRIOMetricsRefused},
		{Name: sig + "loads the CRI-O alerts and dashboard where monitoring runs [apigroup:monitoring.coreos.com]" + parallel,
			APIGroups: []string{monitoringGroup}, Run: testAlertsAndDashboard},
		// --platform is origin's provider name: it names aws, gce, azure and vsphere
		// only, and passes "none" for the others, bare metal included
		// (origin pkg/clioptions/clusterdiscovery cluster.go 0b090790, provider.go
		// 0136baad); "baremetal" where TEST_PROVIDER says so. Where the stack is
		// off the test skips.
		{Name: sig + "runs a healthy NMState stack where it is enabled" + parallel, Platforms: []string{"baremetal", "none"}, Run: testNMStateHealthy},
		{Name: sig + "recovers without Degraded when its operator pod is deleted [Serial] [Timeout:10m] " + suiteMarker(SerialSuite), Run: testOperatorPodRecovers},
		{Name: sig + "switches the CRI-O metrics stack off and on and restores the administrator's spec [Serial] [Disruptive] [Timeout:15m] " + suiteMarker(DisruptiveSuite),
			Run: testStackOffAndOn},
	}
}

func podReady(conds []corev1.PodCondition) bool {
	for _, c := range conds {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func ptrString(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
