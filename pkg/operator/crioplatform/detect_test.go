package crioplatform

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

func machineConfig(name string, paths ...string) *unstructured.Unstructured {
	var files []interface{}
	for _, p := range paths {
		files = append(files, map[string]interface{}{"path": p, "contents": map[string]interface{}{"source": "data:,"}})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
		"metadata": map[string]interface{}{"name": name},
		"spec":     map[string]interface{}{"config": map[string]interface{}{"storage": map[string]interface{}{"files": files}}},
	}}
}

func mirrorPod(node string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-rbac-proxy-crio-" + node, Namespace: Namespace, Labels: map[string]string{"k8s-app": "kube-rbac-proxy-crio"}},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

func fakeDynamic(mcs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{platform.MachineConfigGVR: "MachineConfigList"}, mcs...)
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name       string
		mcs        []runtime.Object
		pods       []runtime.Object
		served     bool
		wantMCs    []string
		wantMirror int
	}{
		{"OpenShift 4.14+: both base kubelet MachineConfigs carry the static pod",
			[]runtime.Object{machineConfig("01-master-kubelet", "/etc/kubernetes/kubelet.conf", StaticPodPath), machineConfig("01-worker-kubelet", StaticPodPath)},
			nil, true, []string{"01-master-kubelet", "01-worker-kubelet"}, 0},
		{"OpenShift before 4.14: base kubelet MachineConfigs without it",
			[]runtime.Object{machineConfig("01-master-kubelet", "/etc/kubernetes/kubelet.conf"), machineConfig("01-worker-kubelet", "/etc/kubernetes/kubelet.conf")},
			nil, true, nil, 0},
		{"other MachineConfigs carrying the file do not count",
			[]runtime.Object{machineConfig("99-worker-custom", StaticPodPath)}, nil, true, nil, 0},
		{"mirror pods: running ones on distinct nodes",
			nil, []runtime.Object{mirrorPod("a", corev1.PodRunning), mirrorPod("b", corev1.PodRunning), mirrorPod("c", corev1.PodPending)}, false, nil, 2},
		{"no MCO API: MachineConfigs are not read", []runtime.Object{machineConfig("01-worker-kubelet", StaticPodPath)}, nil, false, nil, 0},
	} {
		d := NewDetector(kubefake.NewSimpleClientset(tt.pods...), fakeDynamic(tt.mcs...), clocktesting.NewFakePassiveClock(time.Now()), time.Minute)
		ctx := t.Context()
		d.Start(ctx.Done())
		// The cache starts with the first lookup where MCO's API is
		// served; start it here for the cases without.
		d.factory.Start(ctx.Done())
		d.factory.WaitForCacheSync(ctx.Done())
		got := d.Detect(ctx, tt.served, false)
		assert.Equal(t, platform.PlatformCRIOMetrics{MachineConfigs: tt.wantMCs, MirrorPods: tt.wantMirror}, got, tt.name)
		assert.Equal(t, len(tt.wantMCs) > 0 || tt.wantMirror > 0, got.Exists(), tt.name)
	}
}

// MachineConfigs are read once per TTL, at once when MCO's API comes or goes or when asked.
func TestDetectReusesLookup(t *testing.T) {
	dyn := fakeDynamic()
	clk := clocktesting.NewFakePassiveClock(time.Now())
	d := NewDetector(kubefake.NewSimpleClientset(), dyn, clk, time.Minute)
	ctx := t.Context()
	gets := func() int { return len(dyn.Actions()) }

	assert.False(t, d.Detect(ctx, true, false).Exists())
	assert.Equal(t, len(Roles), gets(), "one GET per role")

	// MCO's upgrade lays down the static pod: not seen before the TTL.
	assert.NoError(t, dyn.Tracker().Create(platform.MachineConfigGVR, machineConfig("01-worker-kubelet", StaticPodPath), ""))
	before := gets()
	clk.SetTime(clk.Now().Add(59 * time.Second))
	assert.False(t, d.Detect(ctx, true, false).Exists())
	assert.Equal(t, before, gets(), "reused within the TTL")

	clk.SetTime(clk.Now().Add(time.Second))
	assert.Equal(t, []string{"01-worker-kubelet"}, d.Detect(ctx, true, false).MachineConfigs)
	assert.Equal(t, before+len(Roles), gets())

	// MCO's API goes: nothing is read, and nothing is reused.
	assert.False(t, d.Detect(ctx, false, false).Exists())
	assert.Equal(t, before+len(Roles), gets())
	assert.Equal(t, []string{"01-worker-kubelet"}, d.Detect(ctx, true, false).MachineConfigs)
	assert.Equal(t, before+2*len(Roles), gets(), "looked up again once the API is back")

	// A decision for a new spec asks afresh, within the TTL too.
	assert.NoError(t, dyn.Resource(platform.MachineConfigGVR).Delete(ctx, "01-worker-kubelet", metav1.DeleteOptions{}))
	assert.Equal(t, []string{"01-worker-kubelet"}, d.Detect(ctx, true, false).MachineConfigs)
	assert.False(t, d.Detect(ctx, true, true).Exists())
}
