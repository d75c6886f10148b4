//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestRealNodeCRIOMetrics: the CRI-O metrics DaemonSet's pod on the real node (framework.StartRealNode), run by the kubelet on CRI-O, serves CRI-O's metrics over TLS at the node's address to a caller allowed get /metrics only.
func TestRealNodeCRIOMetrics(t *testing.T) {
	node := framework.StartRealNode(t)
	framework.Setup(t, framework.OperatorOptions{})
	ctx, kube := context.Background(), framework.KubeClient(t)
	ds := crioMetricsDaemonSet(t)
	pod := readyPodOn(t, ds, node.Name)

	t.Run("ContainersOfCRIO", func(t *testing.T) {
		cri := framework.DialCRI(t, node.CRISocket())
		listed, err := cri.ListContainers(ctx, &runtimeapi.ListContainersRequest{Filter: &runtimeapi.ContainerFilter{
			LabelSelector: map[string]string{"io.kubernetes.pod.uid": string(pod.UID)}}})
		require.NoError(t, err)
		running := map[string]string{}
		for _, c := range listed.Containers {
			if c.State == runtimeapi.ContainerState_CONTAINER_RUNNING {
				running["cri-o://"+c.Id] = c.Metadata.Name
			}
		}
		for _, s := range pod.Status.ContainerStatuses {
			assert.Equal(t, s.Name, running[s.ContainerID], "container %s (%s) runs in the node's CRI-O", s.Name, s.ContainerID)
		}
	})

	t.Run("MetricsOverTLSToAllowedCallers", func(t *testing.T) {
		bundle, err := kube.CoreV1().ConfigMaps(ds.Namespace).Get(ctx, "crio-metrics-ca-bundle", metav1.GetOptions{})
		require.NoError(t, err)
		roots := x509.NewCertPool()
		require.True(t, roots.AppendCertsFromPEM([]byte(bundle.Data["ca-bundle.crt"])), "the CA bundle ConfigMap holds a certificate")
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: roots, ServerName: fmt.Sprintf("crio-metrics.%s.svc", ds.Namespace), MinVersion: tls.VersionTLS12}}}
		url := "https://" + net.JoinHostPort(node.IP, "9638") + "/metrics"
		allowed, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
		require.NoError(t, err)
		_, _ = kube.CoreV1().ServiceAccounts("openshift-monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
		nobody, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "default", framework.TokenOptions{})
		require.NoError(t, err)
		// CRI-O serves the pair cert-syncer wrote a moment ago: the proxy's upstream may need one reload.
		var body []byte
		framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
			code, b, err := framework.HTTPGet(client, url, allowed)
			body = b
			return err == nil && code == http.StatusOK, nil
		}, "prometheus-k8s's token reads "+url)
		assert.Contains(t, string(body), "\ncontainer_runtime_crio_", "CRI-O's own metrics")
		for _, c := range []struct {
			who   string
			token string
			want  int
		}{{"no token", "", http.StatusUnauthorized}, {"a token of a user without get /metrics", nobody, http.StatusForbidden}} {
			code, _, err := framework.HTTPGet(client, url, c.token)
			require.NoError(t, err)
			assert.Equal(t, c.want, code, c.who)
		}
	})

	// Still the same pod, every container ready and never restarted.
	assert.Equal(t, pod.UID, readyPodOn(t, ds, node.Name).UID, "the pod was not replaced")
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
			if s.RestartCount != 0 {
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
