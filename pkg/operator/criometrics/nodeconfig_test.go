package criometrics

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
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

// mcoMachineConfiguration is MachineConfiguration cluster at generation 2
// as MCO's operator leaves it: with spec our entry when withEntry, and a
// status computed for observed listing our entry when listed.
func mcoMachineConfiguration(t *testing.T, withEntry bool, observed int64, listed bool) *unstructured.Unstructured {
	t.Helper()
	mc := &operatorv1.MachineConfiguration{}
	mc.Name, mc.Generation = MachineConfigurationName, 2
	restart := &operatorv1.RestartService{ServiceName: crioService}
	if withEntry {
		mc.Spec.NodeDisruptionPolicy.Files = []operatorv1.NodeDisruptionPolicySpecFile{{Path: DropInPath,
			Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RestartSpecAction, Restart: restart}}}}
	}
	mc.Status.ObservedGeneration = observed
	if listed {
		mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files = []operatorv1.NodeDisruptionPolicyStatusFile{{Path: DropInPath,
			Actions: []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.RestartStatusAction, Restart: restart}}}}
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mc)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: raw}
	u.SetAPIVersion("operator.openshift.io/v1")
	u.SetKind("MachineConfiguration")
	return u
}

// The order of writes over successive syncs: no MachineConfig while
// MachineConfiguration cluster is missing; our entry applied once it
// exists; the MachineConfigs held back until MCO's operator lists the
// entry in the status at the object's generation, then written. MCO's
// daemon decides from that status when it updates a node.
func TestNodeConfigWaitsForDisruptionPolicyStatus(t *testing.T) {
	c, writes := newNodeConfigForTest(t)
	mcs := c.dynamic.Resource(machineConfigurationGVR)
	steps := []struct {
		name string
		mco  func()
		wait string
	}{
		{"no MachineConfiguration cluster", func() {}, nodedisruption.WaitNoCluster},
		{"MCO created it, without our entry", func() {
			_, err := mcs.Create(context.Background(), mcoMachineConfiguration(t, false, 1, false), metav1.CreateOptions{})
			require.NoError(t, err)
		}, nodedisruption.WaitStatus},
		{"our entry in the spec, status of the generation before", func() {
			_, err := mcs.Update(context.Background(), mcoMachineConfiguration(t, true, 1, false), metav1.UpdateOptions{})
			require.NoError(t, err)
		}, nodedisruption.WaitStatus},
		{"status at the generation, without our entry", func() {
			_, err := mcs.Update(context.Background(), mcoMachineConfiguration(t, true, 2, false), metav1.UpdateOptions{})
			require.NoError(t, err)
		}, nodedisruption.WaitStatus},
		{"status at the generation lists our entry", func() {
			_, err := mcs.Update(context.Background(), mcoMachineConfiguration(t, true, 2, true), metav1.UpdateOptions{})
			require.NoError(t, err)
		}, ""},
		{"steady", func() {}, ""},
	}
	var log []string
	for _, step := range steps {
		step.mco()
		*writes = nil
		wait, err := c.reconcile(context.Background(), Build)
		require.NoError(t, err, step.name)
		assert.Equal(t, step.wait, wait, step.name)
		log = append(log, "sync: "+step.name)
		for _, w := range *writes {
			// The fake keeps no applied object, so the SCC is applied on
			// every sync; it is not what this test is about.
			if w != "apply securitycontextconstraints crio-metrics" {
				log = append(log, "  "+w)
			}
		}
	}
	assert.Equal(t, []string{
		"sync: no MachineConfiguration cluster",
		"sync: MCO created it, without our entry",
		"  apply machineconfigurations cluster",
		"sync: our entry in the spec, status of the generation before",
		"sync: status at the generation, without our entry",
		"sync: status at the generation lists our entry",
		"  apply machineconfigs 50-master-crio-metrics-tls",
		"  apply machineconfigs 50-worker-crio-metrics-tls",
		"sync: steady",
		"  apply machineconfigs 50-master-crio-metrics-tls",
		"  apply machineconfigs 50-worker-crio-metrics-tls",
	}, log)
}

// Without the MachineConfiguration API MCO has no node disruption policy:
// the MachineConfigs are held back, the rest of the stack is applied.
func TestNodeConfigWithoutMachineConfigurationAPIHoldsBackMachineConfigs(t *testing.T) {
	c, writes := newNodeConfigForTest(t)
	c.served = stack.FixedServedAPIs(platform.ServedAPIs{Monitoring: true, MachineConfig: true})
	wait, err := c.reconcile(context.Background(), Build)
	require.NoError(t, err)
	assert.Equal(t, nodedisruption.WaitNotServed, wait)
	assert.Equal(t, []string{"apply securitycontextconstraints crio-metrics"}, *writes)
}

func TestNodeConfigConditions(t *testing.T) {
	type cond struct{ status, reason, message string }
	held := "CRI-O drop-in MachineConfigs held back: " + nodedisruption.WaitStatus
	for _, tc := range []struct {
		name                  string
		wait                  string
		persists              bool
		err                   error
		progressing, degraded cond
	}{
		{"nothing to wait for", "", false, nil, cond{"False", "AsExpected", ""}, cond{"False", "AsExpected", ""}},
		{"waiting, within the grace", nodedisruption.WaitStatus, false, nil,
			cond{"True", ReasonWaitingForDisruptionPolicy, held}, cond{"False", "AsExpected", ""}},
		{"waiting past the grace", nodedisruption.WaitStatus, true, nil,
			cond{"True", ReasonWaitingForDisruptionPolicy, held}, cond{"True", ReasonDisruptionPolicyNotReady, held}},
		{"a sync error", "", false, fmt.Errorf("boom"), cond{"False", "AsExpected", ""}, cond{"True", "SyncError", "boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conds := nodeConfigConditions(tc.wait, tc.persists, tc.err)
			require.Len(t, conds, 2)
			got := func(i int) cond {
				return cond{string(*conds[i].Status), *conds[i].Reason, *conds[i].Message}
			}
			assert.Equal(t, "CRIOMetricsNodeConfigProgressing", *conds[0].Type)
			assert.Equal(t, tc.progressing, got(0))
			assert.Equal(t, "CRIOMetricsNodeConfigDegraded", *conds[1].Type)
			assert.Equal(t, tc.degraded, got(1))
		})
	}
}

// Teardown: the MachineConfigs stay while the ServiceMonitor sends a scraper
// to the proxy, while MCO's status does not list the disruption policy
// entry (the entry is applied again if it went), and the SCC while the
// DaemonSet runs; the entry is never removed. Once the MachineConfigs are
// deleted, the DaemonSet controller is woken for the next step.
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
	mcoConfig := mcoMachineConfiguration(t, true, 2, true)
	noEntry := mcoMachineConfiguration(t, false, 2, false)

	tests := []struct {
		name    string
		objects []*unstructured.Unstructured
		want    []string
	}{
		{"ServiceMonitor still there: nothing goes", append(mcs(), scc, sm, ds, mcoConfig), nil},
		{"ServiceMonitor gone: the MachineConfigs go, the SCC stays for the DaemonSet", append(mcs(), scc, ds, mcoConfig),
			[]string{"delete machineconfigs 50-master-crio-metrics-tls", "delete machineconfigs 50-worker-crio-metrics-tls", "wake CRIOMetricsDaemonSet"}},
		{"ServiceMonitor gone, the entry gone from MCO's policy: it is applied again, the MachineConfigs wait", append(mcs(), scc, ds, noEntry),
			[]string{"apply machineconfigurations cluster"}},
		{"ServiceMonitor gone, no MachineConfiguration cluster: the MachineConfigs wait", append(mcs(), scc, ds), nil},
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

// A restarted operator keeps a Degraded condition that already reports the
// same wait; the wait's start is kept in memory only.
func TestNodeConfigKeepsAReportedPersistingWait(t *testing.T) {
	held := MachineConfigsHeldBack + nodedisruption.WaitStatus
	status := &operatorv1.OperatorStatus{Conditions: []operatorv1.OperatorCondition{
		{Type: "CRIOMetricsNodeConfigDegraded", Status: operatorv1.ConditionTrue, Reason: ReasonDisruptionPolicyNotReady, Message: held},
	}}
	c := &nodeConfigController{operatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, status, nil)}
	assert.True(t, c.reportedPersisting(nodedisruption.WaitStatus))
	assert.False(t, c.reportedPersisting(nodedisruption.WaitNoCluster), "another wait has its grace")
	assert.False(t, c.reportedPersisting(""), "not waiting")
}
