package testsext

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// expectedStacks is the documented decision (the README's platform table), written
// out independently of pkg/operator/platform: the administrator's knob
// wins, except that nothing runs with the operator Removed or where the
// control plane is hosted; by default Metrics runs everywhere and NMState
// on BareMetal only.
func expectedStacks(infra *configv1.Infrastructure, spec nodev1alpha1.NodeOperatorSpec) map[nodev1alpha1.StackName]bool {
	platform := infra.Status.Platform //nolint:staticcheck // clusters that predate platformStatus
	if infra.Status.PlatformStatus != nil && infra.Status.PlatformStatus.Type != "" {
		platform = infra.Status.PlatformStatus.Type
	}
	decide := func(knob nodev1alpha1.StackState, byDefault bool) bool {
		switch {
		case spec.ManagementState == operatorv1.Removed, knob == "Disabled",
			infra.Status.ControlPlaneTopology == configv1.ExternalTopologyMode:
			return false
		case knob == "Enabled":
			return true
		}
		return byDefault
	}
	return map[nodev1alpha1.StackName]bool{
		"Metrics": decide(spec.Metrics.State, true),
		"NMState": decide(spec.NMState.State, platform == "BareMetal"),
	}
}

// testDecision: status.stacks is what the Infrastructure and the spec
// call for, and the metrics path is the platform's wherever the platform
// runs its kube-rbac-proxy-crio.
func testDecision(t *T) error {
	return t.Eventually(settle, "nodeoperator/cluster status.stacks to match the Infrastructure", func() (string, error) {
		infra, err := t.Cluster.Configs.ConfigV1().Infrastructures().Get(t.Ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		no, err := t.Cluster.NodeOperator(t.Ctx)
		if err != nil {
			return "", err
		}
		var wrong []string
		for name, want := range expectedStacks(infra, no.Spec) {
			s, err := stack(no, name)
			if err != nil {
				return err.Error(), nil
			}
			if s.Enabled != want {
				wrong = append(wrong, fmt.Sprintf("%s enabled=%v, want %v (%s: %s)", name, s.Enabled, want, s.Reason, s.Message))
			}
		}
		if len(wrong) > 0 {
			return fmt.Sprintf("platform %v, controlPlaneTopology %s: %s", infra.Status.PlatformStatus, infra.Status.ControlPlaneTopology, strings.Join(wrong, "; ")), nil
		}
		metrics, _ := stack(no, "Metrics")
		if !metrics.Enabled {
			return "", nil
		}
		proxies, err := t.Cluster.Kube.CoreV1().Pods(platformProxyNamespace).List(t.Ctx, metav1.ListOptions{LabelSelector: platformProxyLabel})
		if err != nil {
			return "", err
		}
		switch {
		case metrics.Mode == "":
			return "the Metrics stack is enabled without a mode: " + metrics.Message, nil
		case len(proxies.Items) > 0 && metrics.Mode != "PlatformProxy":
			return fmt.Sprintf("%d kube-rbac-proxy-crio pods serve CRI-O metrics, but the mode is %s", len(proxies.Items), metrics.Mode), nil
		}
		t.Logf("stacks %+v; metrics mode %s (%d platform proxy pods)", no.Status.Stacks, metrics.Mode, len(proxies.Items))
		return "", nil
	})
}

// enabledStack returns the recorded decision of a stack, or Skip when it is off.
func enabledStack(t *T, name nodev1alpha1.StackName) (nodev1alpha1.StackStatus, error) {
	no, err := t.Cluster.NodeOperator(t.Ctx)
	if err != nil {
		return nodev1alpha1.StackStatus{}, err
	}
	s, err := stack(no, name)
	if err != nil {
		return s, err
	}
	if !s.Enabled {
		return s, Skip("the %s stack is not enabled here (%s: %s)", name, s.Reason, s.Message)
	}
	return s, nil
}

// testNMStateHealthy: the NMState operator is available and reports its
// handler available, not degraded.
func testNMStateHealthy(t *T) error {
	if _, err := enabledStack(t, "NMState"); err != nil {
		return err
	}
	return t.Eventually(settle, "the NMState stack to be healthy", func() (string, error) {
		d, err := t.Cluster.Kube.AppsV1().Deployments(nmstateNamespace).Get(t.Ctx, nmstateDeployment, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("deployment %s/%s: %v", nmstateNamespace, nmstateDeployment, err), nil
		}
		if d.Status.AvailableReplicas < 1 {
			return fmt.Sprintf("deployment %s/%s has no available replica", nmstateNamespace, nmstateDeployment), nil
		}
		cr, err := t.Cluster.Dynamic.Resource(nmstatesGVR).Get(t.Ctx, nmstateCR, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("nmstate/%s: %v", nmstateCR, err), nil
		}
		conds, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
		status := map[string]string{}
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok {
				status[fmt.Sprint(m["type"])] = fmt.Sprintf("%v (%v: %v)", m["status"], m["reason"], m["message"])
			}
		}
		if !strings.HasPrefix(status["Available"], "True") || strings.HasPrefix(status["Degraded"], "True") {
			return fmt.Sprintf("nmstate/%s reports Available=%q Degraded=%q", nmstateCR, status["Available"], status["Degraded"]), nil
		}
		t.Logf("nmstate-operator available; nmstate/%s Available=%s", nmstateCR, status["Available"])
		return "", nil
	})
}
