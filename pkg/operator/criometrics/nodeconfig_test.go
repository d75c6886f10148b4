package criometrics

import (
	"context"
	"fmt"
	"testing"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

func object(gvr schema.GroupVersionResource, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(gvr.GroupVersion().String())
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// newNodeConfigForTest returns the controller on a fake dynamic client whose
// server-side applies succeed, and the log of its writes in order.
func newNodeConfigForTest(t *testing.T, objects ...*unstructured.Unstructured) (*nodeConfigController, *[]string) {
	t.Helper()
	listKinds := map[schema.GroupVersionResource]string{
		machineConfigGVR: "MachineConfigList", sccGVR: "SecurityContextConstraintsList",
		machineConfigurationGVR: "MachineConfigurationList", serviceMonitorGVR: "ServiceMonitorList",
		daemonSetGVR: "DaemonSetList", serviceGVR: "ServiceList", configMapGVR: "ConfigMapList",
	}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	// Created through their resource: the fake's guess of a resource from a
	// kind gets SecurityContextConstraints wrong.
	for _, o := range objects {
		gv, _ := schema.ParseGroupVersion(o.GetAPIVersion())
		gvr := map[string]schema.GroupVersionResource{}
		for r := range listKinds {
			gvr[r.Group+"/"+listKinds[r]] = r
		}
		r := gvr[gv.Group+"/"+o.GetKind()+"List"]
		_, err := client.Resource(r).Namespace(o.GetNamespace()).Create(context.Background(), o, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	var writes []string
	client.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a := a.(type) {
		case clienttesting.PatchAction:
			writes = append(writes, fmt.Sprintf("apply %s %s", a.GetResource().Resource, a.GetName()))
			return true, object(a.GetResource(), "Applied", a.GetNamespace(), a.GetName()), nil
		case clienttesting.DeleteAction:
			writes = append(writes, fmt.Sprintf("delete %s %s", a.GetResource().Resource, a.GetName()))
		}
		return false, nil, nil
	})
	served := platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true}
	return &nodeConfigController{
		dynamic:  client,
		served:   stack.FixedServedAPIs(served),
		observer: NewTLSObserver(client, clock.RealClock{}, 0),
		// in the same log, to show when the DaemonSet controller is woken
		machineConfigsRemoved: func() { writes = append(writes, "wake "+DaemonSetControllerName) },
		recorder:              events.NewInMemoryRecorder("test", clock.RealClock{}),
	}, &writes
}

// The node disruption policy entry is written before the MachineConfigs:
// MCO decides how to roll out a rendered config when it renders it.
func TestNodeConfigWritesDisruptionPolicyBeforeMachineConfigs(t *testing.T) {
	mcoConfig := object(machineConfigurationGVR, "MachineConfiguration", "", MachineConfigurationName)
	c, writes := newNodeConfigForTest(t, mcoConfig)
	notes, err := c.reconcile(context.Background(), Build)
	require.NoError(t, err)
	assert.Empty(t, notes)
	assert.Equal(t, []string{
		"apply machineconfigurations cluster",
		"apply securitycontextconstraints crio-metrics",
		"apply machineconfigs 50-master-crio-metrics-tls",
		"apply machineconfigs 50-worker-crio-metrics-tls",
	}, *writes)
}

// Without MachineConfiguration cluster the MachineConfigs still go in, and
// the status says the policy was skipped.
func TestNodeConfigWithoutMachineConfigurationSkipsThePolicy(t *testing.T) {
	c, writes := newNodeConfigForTest(t)
	notes, err := c.reconcile(context.Background(), Build)
	require.NoError(t, err)
	assert.Equal(t, []string{SkippedDisruptionPolicyNoCluster}, notes)
	assert.NotContains(t, *writes, "apply machineconfigurations cluster")
	assert.Contains(t, *writes, "apply machineconfigs 50-worker-crio-metrics-tls")
}

// Teardown: the MachineConfigs stay while the ServiceMonitor sends a scraper
// to the proxy, and the SCC while the DaemonSet runs; the disruption policy
// entry is never removed. Once the MachineConfigs are deleted, the DaemonSet
// controller is woken for the next step.
func TestNodeConfigTeardownOrder(t *testing.T) {
	mcs := func() []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for _, name := range machineConfigNames() {
			out = append(out, object(machineConfigGVR, "MachineConfig", "", name))
		}
		return out
	}
	scc := object(sccGVR, "SecurityContextConstraints", "", sccName)
	sm := object(serviceMonitorGVR, "ServiceMonitor", namespace, serviceName)
	ds := object(daemonSetGVR, "DaemonSet", namespace, DaemonSetName)
	mcoConfig := object(machineConfigurationGVR, "MachineConfiguration", "", MachineConfigurationName)

	tests := []struct {
		name    string
		objects []*unstructured.Unstructured
		want    []string
	}{
		{"ServiceMonitor still there: nothing goes", append(mcs(), scc, sm, ds, mcoConfig), nil},
		{"ServiceMonitor gone: the MachineConfigs go, the SCC stays for the DaemonSet", append(mcs(), scc, ds, mcoConfig),
			[]string{"delete machineconfigs 50-master-crio-metrics-tls", "delete machineconfigs 50-worker-crio-metrics-tls", "wake CRIOMetricsDaemonSet"}},
		{"MachineConfigs gone already: nothing to wake for", []*unstructured.Unstructured{scc, ds, mcoConfig}, nil},
		{"DaemonSet gone too: the SCC goes", []*unstructured.Unstructured{scc, mcoConfig}, []string{"delete securitycontextconstraints crio-metrics"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, writes := newNodeConfigForTest(t, tt.objects...)
			_, err := c.reconcile(context.Background(), TearDown)
			require.NoError(t, err)
			assert.Equal(t, tt.want, *writes)
		})
	}
}
