//go:build e2e

package e2e

// Coexistence with the platform's CRI-O metrics path (docs/platform-fixture.md).

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

var serviceMonitorGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}

// twoJobsQuery: some container_runtime_crio_* metric scraped by two jobs (what coexistence avoids).
const twoJobsQuery = `count by (__name__) (count by (__name__, job) ({__name__=~"container_runtime_crio_.+"})) > 1`

// platformWorld: MCO's objects, nodes with CRI-O and kube-rbac-proxy-crio, Prometheus with job="crio".
type platformWorld struct {
	objects *framework.PlatformObjects
	pki     *framework.PlatformPKI
	nodes   []*framework.PlatformNode
	prom    *framework.Prometheus
}

// platformNodeNames: the first master and the first worker kwok node.
func platformNodeNames(t *testing.T) []string {
	t.Helper()
	nodes, err := framework.KubeClient(t).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "type=kwok"})
	require.NoError(t, err)
	sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
	var master, worker string
	for _, n := range nodes.Items {
		if _, ok := n.Labels["node-role.kubernetes.io/master"]; ok && master == "" {
			master = n.Name
		} else if !ok && worker == "" {
			worker = n.Name
		}
	}
	if master == "" || worker == "" {
		t.Fatalf("the local world needs a master and a worker kwok node (hack/local-cluster.sh, LCP_NODES>=2); have %d nodes", len(nodes.Items))
	}
	return []string{master, worker}
}

func requireMachineConfigAPI(t *testing.T) {
	t.Helper()
	if !framework.Served(t, framework.KubeClient(t), machineConfigGVR) {
		t.Fatalf("machineconfiguration.openshift.io/v1 machineconfigs is not served: the platform fixture needs it (hack/local-cluster.sh installs it)")
	}
}

// startPlatformWorld installs the fixture and starts its nodes and Prometheus.
func startPlatformWorld(t *testing.T, c *framework.Cluster) *platformWorld {
	t.Helper()
	requireMachineConfigAPI(t)
	names := platformNodeNames(t)
	w := &platformWorld{pki: framework.NewPlatformPKI(t)}
	w.objects = framework.InstallPlatformCRIOMetrics(t, c.Config, names)
	for _, name := range names {
		w.nodes = append(w.nodes, framework.StartPlatformNode(t, c.Config, w.pki, name))
	}
	w.prom = framework.StartPlatformPrometheus(t, w.pki, w.nodes, time.Second)
	return w
}

// waitCRIOJobUp: job="crio" up through MCO's proxy on every node, with CRI-O series of each.
func (w *platformWorld) waitCRIOJobUp(t *testing.T, timeout time.Duration) {
	t.Helper()
	w.prom.WaitCount(t, `count(up{job="crio"} == 1)`, len(w.nodes), timeout)
	w.prom.WaitCount(t, `count(count by (node) ({job="crio",__name__=~"container_runtime_crio_.+"}))`, len(w.nodes), timeout)
}

// apply has every node apply mcs (MCO's daemon) and checks its CRI-O's restart and TLS.
func (w *platformWorld) apply(t *testing.T, mcs []*unstructured.Unstructured, restart, tls bool) {
	t.Helper()
	for _, n := range w.nodes {
		require.Equal(t, restart, n.ApplyOperatorMachineConfigs(t, mcs), "node %s: CRI-O restarted", n.Name)
		require.Equal(t, tls, n.CRIOServesTLS(), "node %s: CRI-O serves TLS", n.Name)
	}
}

// assertNoFailedScrapes: job="crio" was scraped since since, never failing.
func (w *platformWorld) assertNoFailedScrapes(t *testing.T, since time.Time) {
	t.Helper()
	scrapes, failed := w.prom.ScrapesSince(t, framework.PlatformCRIOJob, since)
	assert.NotZero(t, scrapes)
	assert.Zero(t, failed, "job=\"crio\" scrapes through MCO's proxy failed, of %d", scrapes)
	assert.Zero(t, w.prom.Scalar(t, twoJobsQuery), "container_runtime_crio_* from two jobs")
}

// assertStatusQuo: before any operator runs, the fixture reproduces the platform and the bug.
func assertStatusQuo(t *testing.T, w *platformWorld) {
	w.waitCRIOJobUp(t, 2*time.Minute)
	assertOtherIdentitiesRefused(t, w)

	// The bug: the operator's old drop-in makes CRI-O serve HTTPS to MCO's http:// proxy.
	var old []*unstructured.Unstructured
	for _, role := range framework.PlatformRoles {
		mc, err := criometrics.RenderMachineConfig(role)
		require.NoError(t, err)
		old = append(old, mc)
	}
	w.apply(t, old, true, true)
	w.prom.WaitCount(t, `count(up{job="crio"} == 0)`, len(w.nodes), time.Minute)

	// Removing the drop-in repairs it.
	w.apply(t, nil, true, false)
	w.waitCRIOJobUp(t, time.Minute)
}

// assertOtherIdentitiesRefused: MCO's proxy answers 401 without a client certificate, 403 to a token.
func assertOtherIdentitiesRefused(t *testing.T, w *platformWorld) {
	t.Helper()
	kube := framework.KubeClient(t)
	ns := framework.CreateNamespace(t, kube, "e2e-platform")
	_, err := kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	token, err := framework.ServiceAccountToken(context.Background(), kube, ns, "other", framework.TokenOptions{})
	require.NoError(t, err)
	// Only the status code matters: no client certificate, any server's.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec
	for _, n := range w.nodes {
		for tok, want := range map[string]int{"": http.StatusUnauthorized, token: http.StatusForbidden} {
			code, _, err := framework.HTTPGet(client, "https://"+n.ProxyAddr+"/metrics", tok)
			require.NoError(t, err)
			assert.Equal(t, want, code, "node %s, with a token %t", n.Name, tok != "")
		}
	}
}

// neverCreated watches refs (absent now); the function returned lists what appeared.
func neverCreated(t *testing.T, c *framework.Cluster, refs []metricsObject) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var wg sync.WaitGroup
	var events []string
	for _, ref := range refs {
		list, err := ref.in(c).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + ref.name})
		require.NoError(t, err, ref.String())
		require.Empty(t, list.Items, ref.String())
		wg.Go(func() {
			watchFrom(ctx, ref.in(c), "metadata.name="+ref.name, list.GetResourceVersion(), func(typ watch.EventType, u *unstructured.Unstructured) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, fmt.Sprintf("%s %s at resourceVersion %s", typ, ref, u.GetResourceVersion()))
			}, func(err error) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, fmt.Sprintf("%s: %v", ref, err))
			})
		})
	}
	stop := func() []string { cancel(); wg.Wait(); return events }
	t.Cleanup(func() { stop() })
	return stop
}

// watchFrom watches ri from rv until ctx ends. A watch the server closes is
// resumed from the last version seen; a failed watch or an error event ends
// it through broken, so that "nothing happened" never rests on a dead watch.
func watchFrom(ctx context.Context, ri dynamic.ResourceInterface, sel, rv string, handle func(watch.EventType, *unstructured.Unstructured), broken func(error)) {
	for ctx.Err() == nil {
		w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if ctx.Err() == nil {
				broken(fmt.Errorf("watch %s from %s: %w", sel, rv, err))
			}
			return
		}
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || ev.Type == watch.Error {
				w.Stop()
				if ctx.Err() == nil { // client-go reports its own cancellation as an error event
					broken(fmt.Errorf("watch %s from %s: error event %v", sel, rv, ev.Object))
				}
				return
			}
			rv = u.GetResourceVersion()
			if ev.Type != watch.Bookmark {
				handle(ev.Type, u)
			}
		}
		w.Stop()
	}
}

// operatorStackRefs: the operator's own stack, never beside the platform path.
var operatorStackRefs = slices.DeleteFunc(slices.Clone(metricsObjects), func(o metricsObject) bool {
	return !slices.Contains([]string{"servicemonitors", "services", "daemonsets", "machineconfigs"}, o.gvr.Resource)
})

// deleteOperatorStack deletes what an earlier test's operator left.
func deleteOperatorStack(t *testing.T, c *framework.Cluster) {
	t.Helper()
	for _, o := range metricsObjects {
		if err := deleteObject(c, o); err != nil && !apierrors.IsNotFound(err) && !strings.Contains(err.Error(), "could not find the requested resource") {
			t.Fatalf("deleting %s: %v", o, err)
		}
	}
	waitForMetricsObjects(t, c, false, 2*time.Minute)
}

// waitMetricsMode waits for the Metrics stack's mode, MetricsAvailable containing contains.
func waitMetricsMode(t *testing.T, c *framework.Cluster, mode nodev1alpha1.StackMode, contains string) {
	t.Helper()
	c.WaitForNodeOperator(t, 2*time.Minute, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		if s := framework.StackStatus(no, nodev1alpha1.MetricsStack); s == nil || !s.Enabled || s.Mode != mode {
			return fmt.Sprintf("Metrics stack %+v, want mode %s", s, mode)
		}
		if contains == "" {
			return ""
		}
		return framework.ConditionIs("MetricsAvailable", operatorv1.ConditionTrue, contains)(no)
	})
}

// TestCoexistence: one platform world and one operator through the steps (docs/test-behaviours.md).
func TestCoexistence(t *testing.T) {
	c := framework.NewCluster(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	deleteOperatorStack(t, c)
	w := startPlatformWorld(t, c)
	if !t.Run("StatusQuo", func(t *testing.T) { assertStatusQuo(t, w) }) {
		t.FailNow()
	}
	// One operator through the switches; the platform path from the start is TestRealNodePlatformPath's.
	c, _ = framework.Setup(t, framework.OperatorOptions{})
	waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	w.apply(t, framework.OperatorMachineConfigs(t, c.Config), false, false)
	for _, s := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"SwitchToOperatorTLS", func(t *testing.T) { testSwitchToOperatorTLS(t, c, w) }},
		{"SwitchToPlatformProxy", func(t *testing.T) { testSwitchToPlatformProxy(t, c, w) }},
	} {
		if !t.Run(s.name, s.run) {
			t.FailNow() // each step starts from the state the previous one left
		}
	}
}

// testSwitchToOperatorTLS: the platform path goes: the own stack comes back, CRI-O serves HTTPS.
func testSwitchToOperatorTLS(t *testing.T, c *framework.Cluster, w *platformWorld) {
	for _, n := range w.nodes {
		n.StopProxy(t)
	}
	w.objects.RemoveProxy(t)
	waitMetricsMode(t, c, nodev1alpha1.OperatorTLS, "")
	waitForMetricsObjects(t, c, true, 3*time.Minute)
	c.WaitForClusterOperator(t, 3*time.Minute, framework.Settled)
	w.apply(t, framework.OperatorMachineConfigs(t, c.Config), true, true)
}

// testSwitchToPlatformProxy: the platform path appears: the own stack goes, CRI-O plain HTTP, no failed scrape.
func testSwitchToPlatformProxy(t *testing.T, c *framework.Cluster, w *platformWorld) {
	w.objects.InstallProxy(t)
	for _, n := range w.nodes {
		n.StartProxy(t)
	}
	waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	waitForMetricsObjects(t, c, false, 3*time.Minute, "prometheusrules")
	w.apply(t, framework.OperatorMachineConfigs(t, c.Config), true, false)
	w.waitCRIOJobUp(t, time.Minute)
	up := time.Now()
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	// Five scrapes of every node after the settled status, then none failed since up.
	settled := time.Now()
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		scrapes, _ := w.prom.ScrapesSince(t, framework.PlatformCRIOJob, settled)
		return scrapes >= 5*len(w.nodes), nil
	}, "five scrapes of every node after the operator settled")
	w.assertNoFailedScrapes(t, up)
}
