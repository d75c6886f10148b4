//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// containersOfCRIO: every container of pod on the real node is a running CRI-O container of that node, the one its containerStatuses name.
func containersOfCRIO(t *testing.T, node *framework.RealNode, pod *corev1.Pod) {
	cri := framework.DialCRI(t, node.CRISocket())
	listed, err := cri.ListContainers(context.Background(), &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
		LabelSelector: map[string]string{"io.kubernetes.pod.uid": string(pod.UID)}}})
	require.NoError(t, err)
	running := map[string]string{}
	for _, c := range listed.Containers {
		if c.State == runtimeapi.ContainerState_CONTAINER_RUNNING {
			running["cri-o://"+c.Id] = c.Metadata.Name
		}
	}
	require.Len(t, pod.Status.ContainerStatuses, len(pod.Spec.Containers))
	for _, s := range pod.Status.ContainerStatuses {
		assert.Equal(t, s.Name, running[s.ContainerID], "container %s (%s) runs in the node's CRI-O", s.Name, s.ContainerID)
	}
}

// crioMetricsDaemonSet finds the operator's CRI-O metrics DaemonSet by name, in whichever namespace the operator puts it.
func crioMetricsDaemonSet(t *testing.T) *appsv1.DaemonSet {
	t.Helper()
	var ds *appsv1.DaemonSet
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		list, err := framework.KubeClient(t).AppsV1().DaemonSets("").List(context.Background(),
			metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", criometrics.DaemonSetName).String()})
		if err != nil || len(list.Items) != 1 {
			return false, err
		}
		ds = &list.Items[0]
		return true, nil
	}, "the operator creates DaemonSet "+criometrics.DaemonSetName)
	return ds
}

// readyPodOn waits for the DaemonSet's pod on node with every container ready and none restarted.
func readyPodOn(t *testing.T, ds *appsv1.DaemonSet, node string) *corev1.Pod {
	t.Helper()
	return waitPodReady(t, ds, node, false)
}

// readyAgainOn waits for the DaemonSet's pod on node with every container ready, restarted or not.
func readyAgainOn(t *testing.T, ds *appsv1.DaemonSet, node string) *corev1.Pod {
	t.Helper()
	return waitPodReady(t, ds, node, true)
}

func waitPodReady(t *testing.T, ds *appsv1.DaemonSet, node string, restartsAllowed bool) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	last := ""
	framework.Eventually(t, 5*time.Minute, 2*time.Second, func() (bool, error) {
		pods, err := framework.KubeClient(t).CoreV1().Pods(ds.Namespace).List(context.Background(), metav1.ListOptions{
			LabelSelector: metav1.FormatLabelSelector(ds.Spec.Selector), FieldSelector: "spec.nodeName=" + node})
		if err != nil || len(pods.Items) != 1 {
			return false, err
		}
		pod = &pods.Items[0]
		var states []string
		ready := len(pod.Status.ContainerStatuses) == len(pod.Spec.Containers)
		for _, s := range pod.Status.ContainerStatuses {
			if s.RestartCount != 0 && !restartsAllowed {
				return false, fmt.Errorf("container %s of %s restarted %d times: %+v", s.Name, pod.Name, s.RestartCount, s.LastTerminationState)
			}
			ready = ready && s.Ready
			states = append(states, fmt.Sprintf("%s ready=%t %+v", s.Name, s.Ready, s.State))
		}
		if now := strings.Join(states, "; "); now != last {
			t.Logf("pod %s: %s", pod.Name, now)
			last = now
		}
		return ready, nil
	}, fmt.Sprintf("the %s pod on %s has every container ready", ds.Name, node))
	return pod
}

// TestRealNodeStatusFromRealPods: the crio-metrics pod's kube-rbac-proxy on
// the real node crash-loops while another program of the node holds its
// port; the kubelet's restarts and containerStatuses reach the DaemonSet's
// status, the operator's conditions say one node lacks metrics (within
// MetricsDegraded's maxUnavailable and inertia), and a new version is
// reported only once the pod is ready again.
func TestRealNodeStatusFromRealPods(t *testing.T) {
	node := framework.StartRealNode(t)
	c, op := framework.Setup(t, framework.OperatorOptions{})
	ds := crioMetricsDaemonSet(t)
	readyPodOn(t, ds, node.Name)

	t.Run("CrashLoopShowsInConditionsAndRecovers", func(t *testing.T) {
		readyAgainOn(t, ds, node.Name)
		release := occupyProxyPort(t, node, ds)
		desired := crashLooping(t, ds, node.Name)
		co := c.WaitForClusterOperator(t, 2*time.Minute, func(co *configv1.ClusterOperator) string {
			return metricsServedOn(co, desired-1, desired)
		})
		// One node of four is within maxUnavailable (10%, at least one): not Degraded, at once or after inertia.
		assert.Equal(t, configv1.ConditionFalse, framework.COCondition(co, configv1.OperatorDegraded).Status, framework.DescribeClusterOperator(co))
		release()
		readyAgainOn(t, ds, node.Name)
		c.WaitForClusterOperator(t, 2*time.Minute, func(co *configv1.ClusterOperator) string {
			if msg := metricsServedOn(co, desired, desired); msg != "" {
				return msg
			}
			return framework.Settled(co)
		})
	})

	t.Run("NewVersionWaitsForTheRealPod", func(t *testing.T) {
		readyAgainOn(t, ds, node.Name)
		op.Stop()
		release := occupyProxyPort(t, node, ds)
		crashLooping(t, ds, node.Name)
		const version = "0.0.2-e2e"
		op = framework.StartOperator(t, framework.OperatorOptions{Version: version})
		op.WaitLeading(t, 2*time.Minute)
		c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
			if p := framework.COCondition(co, configv1.OperatorProgressing); p == nil || p.Status != configv1.ConditionTrue || !strings.Contains(p.Message, "rolling out version "+version) {
				return "Progressing does not announce " + version
			}
			return ""
		})
		// Held past the announcement (10 s) while every other condition says rolled out: only the pod's readiness holds it.
		held := time.Now()
		framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
			co, err := c.ClusterOperator(context.Background())
			if err != nil {
				return false, err
			}
			if framework.OperatorVersion(co) == version {
				return false, fmt.Errorf("version %s reported while the real node's pod crash-loops: %s", version, framework.DescribeClusterOperator(co))
			}
			return time.Since(held) > 30*time.Second, nil
		}, "the version held while the pod is not ready")
		release()
		readyAgainOn(t, ds, node.Name)
		c.WaitForClusterOperator(t, 3*time.Minute, func(co *configv1.ClusterOperator) string {
			if v := framework.OperatorVersion(co); v != version {
				return "versions[operator] is " + v
			}
			return framework.Settled(co)
		})
	})
}

// occupyProxyPort stops the node's kube-rbac-proxy container through CRI (as
// an OOM kill would) and binds its address first from the node's network
// namespace, as another program of the node could; the kubelet's restarts
// then fail until release (also at the test's end).
func occupyProxyPort(t *testing.T, node *framework.RealNode, ds *appsv1.DaemonSet) (release func()) {
	t.Helper()
	ctx, cri := context.Background(), framework.DialCRI(t, node.CRISocket())
	addr := net.JoinHostPort(node.IP, "9638")
	var l net.Listener
	framework.Eventually(t, time.Minute, 100*time.Millisecond, func() (bool, error) {
		var err error
		if l, err = node.Listen(addr); err == nil {
			return true, nil
		}
		running, err := cri.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
			State:         &runtimeapi.ContainerStateValue{State: runtimeapi.ContainerState_CONTAINER_RUNNING},
			LabelSelector: map[string]string{"io.kubernetes.pod.namespace": ds.Namespace, "io.kubernetes.container.name": "kube-rbac-proxy"}}})
		if err != nil {
			return false, err
		}
		for _, c := range running.Containers {
			if _, err := cri.StopContainer(ctx, &runtimeapi.StopContainerRequest{ContainerId: c.Id}); err != nil {
				return false, err
			}
		}
		// Before the kubelet's next relist (every second) restarts it.
		l, err = node.Listen(addr)
		return err == nil, nil
	}, "binding "+addr+" on the node before the kubelet restarts kube-rbac-proxy")
	t.Logf("%s held on node %s", addr, node.Name)
	var once sync.Once
	release = func() { once.Do(func() { _ = l.Close(); t.Logf("%s released", addr) }) }
	t.Cleanup(release)
	return release
}

// crashLooping waits until the kubelet reports the node's kube-rbac-proxy
// failed on its taken address and not ready, and the DaemonSet's status
// counts the pod unavailable; it returns the DaemonSet's desired count.
func crashLooping(t *testing.T, ds *appsv1.DaemonSet, node string) int32 {
	t.Helper()
	ctx, kube := context.Background(), framework.KubeClient(t)
	var desired int32
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		pods, err := kube.CoreV1().Pods(ds.Namespace).List(ctx, metav1.ListOptions{
			LabelSelector: metav1.FormatLabelSelector(ds.Spec.Selector), FieldSelector: "spec.nodeName=" + node})
		if err != nil || len(pods.Items) != 1 {
			return false, err
		}
		failed := false
		for _, s := range pods.Items[0].Status.ContainerStatuses {
			if last := s.LastTerminationState.Terminated; s.Name == "kube-rbac-proxy" && !s.Ready && s.RestartCount > 0 && last != nil {
				failed = last.ExitCode != 0 && strings.Contains(last.Message, "address already in use")
			}
		}
		now, err := kube.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		desired = now.Status.DesiredNumberScheduled
		return failed && now.Status.NumberUnavailable == 1 && now.Status.NumberAvailable == desired-1, nil
	}, "the kubelet reports kube-rbac-proxy failing on its taken port, and the DaemonSet one pod unavailable")
	return desired
}

// metricsServedOn checks the ClusterOperator's Available=True message for MetricsAvailable's "served on ready of desired nodes".
func metricsServedOn(co *configv1.ClusterOperator, ready, desired int32) string {
	want := fmt.Sprintf("MetricsAvailable: CRI-O metrics served over TLS on %d of %d nodes", ready, desired)
	if a := framework.COCondition(co, configv1.OperatorAvailable); a == nil || a.Status != configv1.ConditionTrue || !strings.Contains(a.Message, want) {
		return "Available=True does not say " + want
	}
	return ""
}

// TestRealNodePlatformPath: MCO's kube-rbac-proxy-crio as a real static pod on the real node (docs/platform-fixture.md): the kubelet runs it on CRI-O and creates its mirror pod, the operator decides PlatformProxy from it and runs nothing of its own on the node, and a real Prometheus scrapes CRI-O through it as job="crio" without a failed scrape.
func TestRealNodePlatformPath(t *testing.T) {
	c := framework.NewCluster(t)
	requireMachineConfigAPI(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	deleteOperatorStack(t, c) // an earlier test's DaemonSet would have a pod on the node at once
	objects := framework.InstallPlatformCRIOMetrics(t, c.Config, nil)
	// The node boots with its pool's MachineConfigs: the static pod's manifest and MCO's 00-default (CRI-O's metrics plain HTTP on 127.0.0.1:9537).
	node := framework.StartRealNode(t, framework.RealNodeOptions{MachineConfigs: objects.MachineConfigs(t, "worker")})
	ctx, kube := context.Background(), framework.KubeClient(t)
	start := time.Now()

	mirror := kubeletMirrorPod(t, node)
	t.Run("MirrorPodOfTheKubelet", func(t *testing.T) {
		n, err := kube.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		require.NoError(t, err)
		// The kubelet's mirror pod: annotated with the static pod's hash and source, owned by the Node.
		hash := mirror.Annotations["kubernetes.io/config.hash"]
		assert.NotEmpty(t, hash)
		assert.Equal(t, hash, mirror.Annotations["kubernetes.io/config.mirror"])
		assert.Equal(t, "file", mirror.Annotations["kubernetes.io/config.source"])
		require.Len(t, mirror.OwnerReferences, 1)
		owner := mirror.OwnerReferences[0]
		assert.Equal(t, []string{"v1", "Node", node.Name, string(n.UID)}, []string{owner.APIVersion, owner.Kind, owner.Name, string(owner.UID)})
		var managers []string
		for _, f := range mirror.ManagedFields {
			managers = append(managers, f.Manager)
		}
		assert.Equal(t, []string{"kubelet"}, slices.Compact(slices.Sorted(slices.Values(managers))), "who wrote the mirror pod")
		// Its container is CRI-O's.
		cri := framework.DialCRI(t, node.CRISocket())
		listed, err := cri.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{State: &runtimeapi.ContainerStateValue{State: runtimeapi.ContainerState_CONTAINER_RUNNING}}})
		require.NoError(t, err)
		require.Len(t, mirror.Status.ContainerStatuses, 1)
		var ids []string
		for _, ctr := range listed.Containers {
			ids = append(ids, "cri-o://"+ctr.Id)
		}
		assert.Equal(t, []string{mirror.Status.ContainerStatuses[0].ContainerID}, ids, "the node's running containers")
	})

	// The proxy serves the kubelet's serving pair and lets only prometheus-k8s in.
	bundle, err := os.ReadFile(node.HostPath("/etc/kubernetes/kubelet-ca.crt"))
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(bundle))
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	url := "https://" + net.JoinHostPort(node.IP, "9637") + "/metrics"
	t.Run("OnlyPrometheusK8sLetIn", func(t *testing.T) {
		allowed, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
		require.NoError(t, err)
		_, _ = kube.CoreV1().ServiceAccounts("openshift-monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
		nobody, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "default", framework.TokenOptions{})
		require.NoError(t, err)
		for _, caller := range []struct {
			who   string
			token string
			want  int
		}{{"prometheus-k8s's token", allowed, http.StatusOK}, {"no credentials", "", http.StatusUnauthorized}, {"another ServiceAccount's token", nobody, http.StatusForbidden}} {
			code, body, err := framework.HTTPGet(client, url, caller.token)
			require.NoError(t, err)
			assert.Equal(t, caller.want, code, caller.who)
			if caller.want == http.StatusOK {
				assert.Contains(t, string(body), "\ncontainer_runtime_crio_", "CRI-O's own metrics, plain HTTP behind the proxy")
			}
		}
	})

	prom := node.StartPlatformPrometheus(t, time.Second)
	prom.WaitCount(t, `count(up{job="crio",node="real-worker-0"} == 1)`, 1, 2*time.Minute)
	prom.WaitCount(t, `count(count by (node) ({job="crio",node="real-worker-0",__name__=~"container_runtime_crio_.+"}))`, 1, time.Minute)

	// An operator acts on the mode an earlier one recorded before it decides anew, and an earlier test's recorded its own TLS stack: a first operator records the platform path, and the one restarted on that record is watched (as TestDiscoveryFaults).
	c, first := framework.Setup(t, framework.OperatorOptions{})
	waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	first.Stop()
	deleteOperatorStack(t, c)
	never := neverCreated(t, c, operatorStackRefs)
	op := framework.StartOperator(t, framework.OperatorOptions{})
	op.WaitLeading(t, 2*time.Minute)
	c.ResyncNow(t, op)
	t.Run("OperatorStepsAside", func(t *testing.T) {
		waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, "kube-rbac-proxy-crio serves CRI-O metrics on 1 nodes")
		c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
		var names []string
		framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
			pods, err := kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node.Name})
			names = nil
			for _, p := range pods.Items {
				names = append(names, p.Namespace+"/"+p.Name)
			}
			return err == nil && len(names) == 1, err
		}, "the first operator's pods gone from the node")
		assert.Equal(t, []string{framework.MCONamespace + "/" + mirror.Name}, names, "pods on the node")
	})

	t.Run("TenOptOutOptInFlips", func(t *testing.T) {
		crioPID := func() string {
			pid, err := os.ReadFile(filepath.Join(node.Dir, "crio", "crio.pid"))
			require.NoError(t, err)
			return strings.TrimSpace(string(pid))
		}
		before := crioPID()
		for i := 1; i <= 10; i++ {
			c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackDisabled)
			c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false})
			c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackState(""))
			waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
			c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
			assert.Zero(t, prom.Scalar(t, twoJobsQuery), "flip %d: container_runtime_crio_* from two jobs", i)
		}
		assert.Empty(t, never(), "the operator's own stack existed beside the platform path")
		assert.Equal(t, before, crioPID(), "CRI-O restarted")
		// Scrapes through the static pod since the node came up, none failed, none of a second job.
		scraped := time.Now()
		framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
			n, _ := prom.ScrapesSince(t, framework.PlatformCRIOJob, scraped)
			return n >= 3, nil
		}, "three more scrapes of job crio")
		scrapes, failed := prom.ScrapesSince(t, framework.PlatformCRIOJob, start)
		t.Logf("job=\"crio\" scrapes through the static pod: %d, failed %d", scrapes, failed)
		assert.Zero(t, failed, "failed scrapes through MCO's proxy")
		assert.Zero(t, prom.Scalar(t, twoJobsQuery), "container_runtime_crio_* from two jobs")
	})
	assert.Equal(t, mirror.UID, kubeletMirrorPod(t, node).UID, "the mirror pod was not replaced")
}

// kubeletMirrorPod waits for the mirror pod kube-rbac-proxy-crio-<node> Running with its container ready and never restarted.
func kubeletMirrorPod(t *testing.T, node *framework.RealNode) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	last := ""
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		p, err := framework.KubeClient(t).CoreV1().Pods(framework.MCONamespace).Get(context.Background(), framework.PlatformProxyName+"-"+node.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		pod = p
		now := string(p.Status.Phase)
		for _, s := range p.Status.ContainerStatuses {
			now += fmt.Sprintf("; %s ready=%t restarts=%d %s", s.Name, s.Ready, s.RestartCount, containerState(s.State))
		}
		if now != last {
			t.Logf("mirror pod %s: %s", p.Name, now)
			last = now
		}
		for _, s := range p.Status.ContainerStatuses {
			if s.RestartCount != 0 {
				return false, fmt.Errorf("container %s restarted %d times: %+v", s.Name, s.RestartCount, s.LastTerminationState)
			}
		}
		return p.Status.Phase == corev1.PodRunning && len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].Ready, nil
	}, "the kubelet's mirror pod "+framework.PlatformProxyName+"-"+node.Name+" Running and ready")
	return pod
}

// containerState is a container's state in a word or two.
func containerState(s corev1.ContainerState) string {
	switch {
	case s.Running != nil:
		return "running"
	case s.Waiting != nil:
		return "waiting: " + s.Waiting.Reason
	case s.Terminated != nil:
		return fmt.Sprintf("terminated: %s (%d)", s.Terminated.Reason, s.Terminated.ExitCode)
	}
	return "unknown"
}
