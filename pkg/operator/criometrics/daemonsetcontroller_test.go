package criometrics

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// In Build, the DaemonSet controller syncs on every DaemonSet status change:
// thousands of times while a large cluster rolls out. Once it has seen the
// ServiceMonitor it makes no more reads until the intent changes.
func TestObserveBuildReadsUntilTheServiceMonitorIsSeen(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{serviceMonitorGVR: "ServiceMonitorList"})
	gets := 0
	client.PrependReactor("get", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		gets++
		return false, nil, nil
	})
	c := &daemonSetController{dynamic: client}
	served := platform.ServedAPIs{Monitoring: true}
	ctx := context.Background()

	require.False(t, c.observeBuild(ctx, served).ServiceMonitor)
	require.False(t, c.observeBuild(ctx, served).ServiceMonitor)
	require.Equal(t, 2, gets, "reads while the ServiceMonitor is missing")

	sm := &unstructured.Unstructured{}
	sm.SetAPIVersion("monitoring.coreos.com/v1")
	sm.SetKind("ServiceMonitor")
	sm.SetNamespace(namespace)
	sm.SetName(serviceName)
	_, err := client.Resource(serviceMonitorGVR).Namespace(namespace).Create(ctx, sm, metav1.CreateOptions{})
	require.NoError(t, err)

	for i := 0; i < 100; i++ {
		require.True(t, c.observeBuild(ctx, served).ServiceMonitor)
	}
	require.Equal(t, 3, gets, "one read sees it, none after")

	require.False(t, (&daemonSetController{dynamic: client}).observeBuild(ctx, platform.ServedAPIs{}).ServiceMonitor,
		"without the monitoring API there is no ServiceMonitor to wait for")
	require.Equal(t, 3, gets)
}
