//go:build e2e

package e2e

// Coexistence with the platform's own CRI-O metrics path (OpenShift >= 4.14:
// MCO's kube-rbac-proxy-crio static pod in front of CRI-O's plain-HTTP
// metrics, scraped by the cluster-monitoring operator as job="crio"),
// reproduced from the facts of MCO's and CMO's configuration by the fixture
// in framework/platform.go (docs/platform-fixture.md).

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
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

var (
	serviceMonitorGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	prometheusRuleGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	daemonSetGVR      = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	serviceGVR        = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	nodeOperatorGVR   = nodev1alpha1.GroupVersionResource
)

// twoJobsQuery is non-empty when some container_runtime_crio_* metric is
// scraped by more than one job (the double scrape coexistence must avoid).
const twoJobsQuery = `count by (__name__) (count by (__name__, job) ({__name__=~"container_runtime_crio_.+"})) > 1`

// platformWorld is the fixture: MCO's objects, simulated nodes with CRI-O
// and kube-rbac-proxy-crio, Prometheus with CMO's job="crio".
type platformWorld struct {
	objects *framework.PlatformObjects
	pki     *framework.PlatformPKI
	nodes   []*framework.PlatformNode
	prom    *framework.Prometheus
}

// platformNodeNames picks the first master and the first worker of the
// local world's kwok nodes, one per MCO pool.
func platformNodeNames(t *testing.T) []string {
	t.Helper()
	nodes, err := framework.KubeClient(t).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "type=kwok"})
	require.NoError(t, err)
	sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
	var master, worker string
	for _, n := range nodes.Items {
		if _, ok := n.Labels["node-role.kubernetes.io/master"]; ok {
			if master == "" {
				master = n.Name
			}
		} else if worker == "" {
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
		t.Fatalf("machineconfiguration.openshift.io/v1 machineconfigs is not served: the platform fixture needs it (hack/local-cluster.sh with LCP_MACHINECONFIG_CRDS=1)")
	}
}

// startPlatformWorld installs the fixture on the API server and starts its
// nodes (with the proxy when withProxy), Prometheus only with the proxy.
func startPlatformWorld(t *testing.T, c *framework.Cluster, withProxy bool) *platformWorld {
	t.Helper()
	requireMachineConfigAPI(t)
	names := platformNodeNames(t)
	w := &platformWorld{pki: framework.NewPlatformPKI(t)}
	if withProxy {
		w.objects = framework.InstallPlatformCRIOMetrics(t, c.Config, names)
	} else {
		w.objects = framework.InstallPlatformContainerRuntime(t, c.Config, names)
	}
	for _, name := range names {
		w.nodes = append(w.nodes, framework.StartPlatformNode(t, c.Config, w.pki, name))
	}
	if withProxy {
		w.startPrometheus(t)
	}
	return w
}

func (w *platformWorld) startPrometheus(t *testing.T) {
	t.Helper()
	w.prom = framework.StartPlatformPrometheus(t, w.pki, w.nodes, time.Second)
}

// waitCRIOJobUp waits until Prometheus scrapes job="crio" on every node
// through MCO's proxy and holds CRI-O series of each node.
func (w *platformWorld) waitCRIOJobUp(t *testing.T, timeout time.Duration) {
	t.Helper()
	var last string
	framework.Eventually(t, timeout, time.Second, func() (bool, error) {
		tgs, err := w.prom.Targets()
		if err != nil {
			return false, err
		}
		up := map[string]bool{}
		var states []string
		for _, tg := range tgs {
			states = append(states, fmt.Sprintf("%s %s node=%s %s", tg.ScrapeURL, tg.Health, tg.Labels["node"], tg.LastError))
			if tg.Labels["job"] == framework.PlatformCRIOJob && tg.Health == "up" {
				up[tg.Labels["node"]] = true
			}
		}
		last = strings.Join(states, "; ")
		for _, n := range w.nodes {
			if !up[n.Name] {
				return false, nil
			}
		}
		v, _, err := w.prom.QueryScalar(`count(count by (node) ({job="crio",__name__=~"container_runtime_crio_.+"}))`)
		return err == nil && int(v) == len(w.nodes), err
	}, fmt.Sprintf("job=\"crio\" up on every platform node with container_runtime_crio_* series (targets: %s)", last))
}

// assertStatusQuo, before any operator runs: the fixture reproduces the
// platform. job="crio" is up in Prometheus through MCO's proxy with
// prometheus-k8s's client certificate and yields container_runtime_crio_*
// series; another identity or no client certificate is refused; and the
// operator's old TLS drop-in on a node's CRI-O breaks MCO's proxy (the bug),
// removing it repairs it.
func assertStatusQuo(t *testing.T, c *framework.Cluster, w *platformWorld) {
	t.Helper()
	assertMCOsObjects(t, c, w)
	w.waitCRIOJobUp(t, 2*time.Minute)
	poller := framework.StartMetricsPoller(t, w.pki, w.nodes, time.Second)
	assertOtherIdentitiesRefused(t, w)
	time.Sleep(3 * time.Second)
	before := poller.Counts()
	assert.Zero(t, before.Failures, "polls through MCO's proxy before the bug: %s", before)
	assert.NotZero(t, before.Polls)

	// The bug: the operator's old MachineConfig drop-in (metrics_cert and
	// metrics_key) makes CRI-O serve HTTPS; MCO's proxy (upstream http://)
	// gets nothing.
	bugStart := w.applyOldOperatorDropIn(t, poller)
	time.Sleep(3 * time.Second)
	during := poller.Counts().Sub(bugStart)
	assert.NotZero(t, during.Failures, "polls with the operator's drop-in: %s", during)
	assert.Zero(t, during.Successes, "polls with the operator's drop-in: %s", during)

	// Removing the drop-in repairs it.
	for _, n := range w.nodes {
		require.True(t, n.ApplyOperatorMachineConfigs(t, nil), "node %s: removing the drop-in must restart CRI-O", n.Name)
		require.False(t, n.CRIOServesTLS())
		require.NoError(t, framework.GetCRIOMetrics(w.pki.HTTPClient(true), n.ProxyAddr), "node %s after removing the drop-in", n.Name)
	}
	repaired := poller.Counts()
	w.waitCRIOJobUp(t, time.Minute)
	time.Sleep(3 * time.Second)
	after := poller.Stop().Sub(repaired)
	assert.Zero(t, after.Failures, "polls after removing the drop-in: %s", after)
	assert.NotZero(t, after.Successes)
}

// assertMCOsObjects: the fixture's objects are MCO's: role labels, mirror
// pods of kube-rbac-proxy-crio bound to their nodes, its Service, and CRI-O
// serving plain HTTP as 00-default says.
func assertMCOsObjects(t *testing.T, c *framework.Cluster, w *platformWorld) {
	t.Helper()
	ctx := context.Background()
	kube := framework.KubeClient(t)
	for _, role := range framework.PlatformRoles {
		for _, name := range []string{"01-" + role + "-kubelet", "01-" + role + "-container-runtime"} {
			mc, err := c.Dynamic.Resource(machineConfigGVR).Get(ctx, name, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, role, mc.GetLabels()["machineconfiguration.openshift.io/role"], name)
		}
	}
	pods, err := kube.CoreV1().Pods(framework.MCONamespace).List(ctx, metav1.ListOptions{LabelSelector: "k8s-app=" + framework.PlatformProxyName})
	require.NoError(t, err)
	require.Len(t, pods.Items, len(w.nodes))
	for _, p := range pods.Items {
		assert.Equal(t, framework.PlatformProxyName+"-"+p.Spec.NodeName, p.Name)
		assert.NotEmpty(t, p.Annotations[corev1.MirrorPodAnnotationKey], "mirror pod annotation on %s", p.Name)
		assert.Equal(t, corev1.PodRunning, p.Status.Phase, p.Name)
		assert.True(t, p.Spec.HostNetwork, p.Name)
	}
	_, err = kube.CoreV1().Services(framework.MCONamespace).Get(ctx, framework.PlatformProxyName, metav1.GetOptions{})
	require.NoError(t, err)
	for _, n := range w.nodes {
		assert.False(t, n.CRIOServesTLS(), "node %s: CRI-O must serve plain HTTP as 00-default says", n.Name)
	}
}

// assertOtherIdentitiesRefused: MCO's proxy refuses a request without a
// client certificate (401) and a ServiceAccount's token (authenticated by
// TokenReview, refused by the static authorization and RBAC: 403).
func assertOtherIdentitiesRefused(t *testing.T, w *platformWorld) {
	t.Helper()
	kube := framework.KubeClient(t)
	ns := framework.CreateNamespace(t, kube, "e2e-platform")
	_, err := kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	token, err := framework.ServiceAccountToken(context.Background(), kube, ns, "other", framework.TokenOptions{})
	require.NoError(t, err)
	for _, n := range w.nodes {
		code, err := w.pki.GetWithToken(n.ProxyAddr, "")
		require.NoError(t, err)
		assert.Equal(t, 401, code, "node %s: no client certificate, no token", n.Name)
		code, err = w.pki.GetWithToken(n.ProxyAddr, token)
		require.NoError(t, err)
		assert.Equal(t, 403, code, "node %s: token of ServiceAccount %s/other", n.Name, ns)
	}
}

// applyOldOperatorDropIn puts the operator's old TLS drop-in on every
// node's CRI-O and waits until job="crio" is down on every node and MCO's
// proxy gets no metrics. It returns the poller's counts once every CRI-O
// serves TLS.
func (w *platformWorld) applyOldOperatorDropIn(t *testing.T, poller *framework.MetricsPoller) framework.PollCounts {
	t.Helper()
	var old []*unstructured.Unstructured
	for _, role := range framework.PlatformRoles {
		mc, err := criometrics.RenderMachineConfig(role)
		require.NoError(t, err)
		old = append(old, mc)
	}
	for _, n := range w.nodes {
		require.True(t, n.ApplyOperatorMachineConfigs(t, old), "node %s: the drop-in must restart CRI-O", n.Name)
		require.True(t, n.CRIOServesTLS(), "node %s", n.Name)
		_, err := framework.ServedCertificate(n.MetricsAddr)
		require.NoError(t, err, "node %s: CRI-O serves TLS on %s", n.Name, n.MetricsAddr)
	}
	bugStart, bugAt := poller.Counts(), time.Now()
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		tgs, err := w.prom.Targets()
		if err != nil {
			return false, err
		}
		down := 0
		for _, tg := range tgs {
			if tg.Health == "down" && tg.LastScrape.After(bugAt) {
				down++
			}
		}
		return down == len(w.nodes), nil
	}, "job=\"crio\" down on every node with the operator's TLS drop-in")
	for _, n := range w.nodes {
		require.Error(t, framework.GetCRIOMetrics(w.pki.HTTPClient(true), n.ProxyAddr), "node %s: MCO's proxy still gets metrics from a CRI-O serving TLS", n.Name)
	}
	return bugStart
}

// ---------------------------------------------------------------------------
// With the operator

// objectRef names one watched object.
type objectRef struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

func (o objectRef) String() string {
	if o.namespace == "" {
		return o.gvr.Resource + "/" + o.name
	}
	return o.gvr.Resource + "/" + o.namespace + "/" + o.name
}

// objectEvent is an event of a watched object; revision is the
// resourceVersion of the object in the event (etcd's revision of the write,
// or of the deletion), which orders writes across resources on this one
// etcd.
type objectEvent struct {
	ref      objectRef
	typ      watch.EventType // "EXISTED" for objects found by the first list
	revision int64
	at       time.Time
}

// eventRecorder watches objects until the test ends and records their
// events.
type eventRecorder struct {
	mu     sync.Mutex
	events []objectEvent
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

const existed watch.EventType = "EXISTED"

// recordEvents watches each ref's resource (a field selector on its name)
// and records every event, the objects that exist at the start as EXISTED.
func recordEvents(t *testing.T, c *framework.Cluster, refs []objectRef) *eventRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &eventRecorder{cancel: cancel}
	t.Cleanup(r.stop)
	for _, ref := range refs {
		ri := c.Dynamic.Resource(ref.gvr).Namespace(ref.namespace)
		sel := "metadata.name=" + ref.name
		list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("listing %s: %v", ref, err)
		}
		rv := ""
		if list != nil {
			rv = list.GetResourceVersion()
			for i := range list.Items {
				r.add(ref, existed, &list.Items[i])
			}
		}
		r.wg.Add(1)
		go func(ref objectRef) {
			defer r.wg.Done()
			watchFrom(ctx, ri, sel, rv, func(typ watch.EventType, u *unstructured.Unstructured) { r.add(ref, typ, u) })
		}(ref)
	}
	return r
}

// watchFrom watches ri (fieldSelector sel) from resourceVersion rv until ctx
// ends, watching again from the last version seen when a watch ends.
func watchFrom(ctx context.Context, ri dynamic.ResourceInterface, sel, rv string, handle func(watch.EventType, *unstructured.Unstructured)) {
	for ctx.Err() == nil {
		w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue // an error status: watch again from rv
			}
			rv = u.GetResourceVersion()
			if ev.Type != watch.Bookmark {
				handle(ev.Type, u)
			}
		}
		w.Stop()
	}
}

func (r *eventRecorder) add(ref objectRef, typ watch.EventType, u *unstructured.Unstructured) {
	rev, _ := strconv.ParseInt(u.GetResourceVersion(), 10, 64)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, objectEvent{ref: ref, typ: typ, revision: rev, at: time.Now()})
}

func (r *eventRecorder) stop() {
	r.cancel()
	r.wg.Wait()
}

// all returns the events so far, by revision.
func (r *eventRecorder) all() []objectEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]objectEvent(nil), r.events...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].revision < out[j].revision })
	return out
}

// last returns the revision of the last event of type typ for ref since
// revision from (0 when there is none).
func (r *eventRecorder) last(ref objectRef, typ watch.EventType, from int64) int64 {
	var rev int64
	for _, e := range r.all() {
		if e.ref == ref && e.typ == typ && e.revision > from {
			rev = e.revision
		}
	}
	return rev
}

func describeEvents(events []objectEvent) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "  %d %s %s %s\n", e.revision, e.at.Format("15:04:05.000"), e.typ, e.ref)
	}
	return b.String()
}

// operatorStackRefs are the objects of the operator's own CRI-O metrics
// stack that must never exist beside the platform path.
var operatorStackRefs = []objectRef{
	{serviceMonitorGVR, operatorNamespace, "crio-metrics"},
	{serviceGVR, operatorNamespace, "crio-metrics"},
	{daemonSetGVR, operatorNamespace, "crio-metrics"},
	{machineConfigGVR, "", "50-master-crio-metrics-tls"},
	{machineConfigGVR, "", "50-worker-crio-metrics-tls"},
}

// switchRefs are every object of the operator's own stack, for the order
// of a switch.
func switchRefs() []objectRef {
	var refs []objectRef
	for _, o := range metricsObjects {
		if o.gvr.Resource == "prometheusrules" {
			continue // kept in both modes
		}
		refs = append(refs, objectRef{o.gvr, o.namespace, o.name})
	}
	return refs
}

// deleteOperatorStack deletes what a previous test's operator left (no
// operator runs) and waits until it is gone.
func deleteOperatorStack(t *testing.T, c *framework.Cluster) {
	t.Helper()
	for _, o := range metricsObjects {
		if err := deleteObject(c, o); err != nil && !apierrors.IsNotFound(err) && !strings.Contains(err.Error(), "could not find the requested resource") {
			t.Fatalf("deleting %s: %v", o, err)
		}
	}
	waitForMetricsObjects(t, c, false, 2*time.Minute)
}

// metricsStatus checks the Metrics stack's mode, and that its message, the
// MetricsAvailable condition and the ClusterOperator's Available message
// name contains (when not empty).
func metricsStatus(c *framework.Cluster, mode nodev1alpha1.StackMode, contains string) string {
	ctx := context.Background()
	no, err := c.NodeOperator(ctx)
	if err != nil {
		return err.Error()
	}
	s := framework.StackStatus(no, nodev1alpha1.MetricsStack)
	if s == nil || !s.Enabled || s.Mode != mode {
		return fmt.Sprintf("Metrics stack %+v, want enabled in mode %s", s, mode)
	}
	if contains == "" {
		return ""
	}
	if !strings.Contains(s.Message, contains) {
		return fmt.Sprintf("Metrics stack message %q does not name %s", s.Message, contains)
	}
	if cond := framework.NodeOperatorCondition(no, "MetricsAvailable"); cond == nil || cond.Status != operatorv1.ConditionTrue || !strings.Contains(cond.Message, contains) {
		return fmt.Sprintf("MetricsAvailable %+v does not name %s", cond, contains)
	}
	co, err := c.ClusterOperator(ctx)
	if err != nil {
		return err.Error()
	}
	if cond := framework.COCondition(co, configv1.OperatorAvailable); cond == nil || !strings.Contains(cond.Message, contains) {
		return fmt.Sprintf("ClusterOperator Available %+v does not name %s", cond, contains)
	}
	return ""
}

func waitMetricsStatus(t *testing.T, c *framework.Cluster, timeout time.Duration, mode nodev1alpha1.StackMode, contains string) {
	t.Helper()
	var why string
	framework.Eventually(t, timeout, time.Second, func() (bool, error) {
		why = metricsStatus(c, mode, contains)
		return why == "", nil
	}, fmt.Sprintf("Metrics mode %s naming %q", mode, contains))
	if why != "" {
		t.Fatal(why)
	}
}

// checkPlatformOperands: in platform mode the operator applies only the
// PrometheusRule (job="crio") and the dashboard.
func checkPlatformOperands(t *testing.T, c *framework.Cluster, timeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	framework.Eventually(t, timeout, time.Second, func() (bool, error) {
		rule, err := c.Dynamic.Resource(prometheusRuleGVR).Namespace(operatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
		text := fmt.Sprint(groups)
		if !strings.Contains(text, `job="crio"`) || strings.Contains(text, `job="crio-metrics"`) {
			return false, fmt.Errorf("PrometheusRule crio-metrics does not select job=\"crio\" only: %.300s", text)
		}
		_, err = framework.KubeClient(t).CoreV1().ConfigMaps("openshift-config-managed").Get(ctx, "grafana-dashboard-node-crio", metav1.GetOptions{})
		return err == nil, err
	}, "PrometheusRule crio-metrics (job=\"crio\") and ConfigMap openshift-config-managed/grafana-dashboard-node-crio")
}

// conditionReasons records the reasons a NodeOperator condition takes.
type conditionReasons struct {
	mu      sync.Mutex
	reasons map[string]bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func watchConditionReasons(t *testing.T, c *framework.Cluster, conditionType string) *conditionReasons {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cr := &conditionReasons{reasons: map[string]bool{}, cancel: cancel, done: make(chan struct{})}
	record := func(u *unstructured.Unstructured) {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]interface{})
			if m["type"] == conditionType && m["status"] == "True" {
				cr.mu.Lock()
				cr.reasons[fmt.Sprint(m["reason"])] = true
				cr.mu.Unlock()
			}
		}
	}
	go func() {
		defer close(cr.done)
		watchFrom(ctx, c.Dynamic.Resource(nodeOperatorGVR), "", "", func(_ watch.EventType, u *unstructured.Unstructured) { record(u) })
	}()
	t.Cleanup(func() { cancel(); <-cr.done })
	return cr
}

func (cr *conditionReasons) seen(reason string) bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.reasons[reason]
}

func (cr *conditionReasons) String() string {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	var out []string
	for r := range cr.reasons {
		out = append(out, r)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// currentRevision is etcd's current revision (the resourceVersion of a
// list), to tell later events from earlier ones.
func currentRevision(t *testing.T, c *framework.Cluster) int64 {
	t.Helper()
	list, err := c.Dynamic.Resource(serviceGVR).Namespace(operatorNamespace).List(context.Background(), metav1.ListOptions{Limit: 1})
	require.NoError(t, err)
	rev, err := strconv.ParseInt(list.GetResourceVersion(), 10, 64)
	require.NoError(t, err)
	return rev
}

// TestCoexistencePlatformPath: the fixture reproduces the platform before
// the operator starts (assertStatusQuo); then, on that cluster with the
// platform path from the start, the operator never builds its own stack,
// through ten opt-out / opt-in flips of the Metrics stack, and not one
// request through MCO's proxy fails.
func TestCoexistencePlatformPath(t *testing.T) {
	c := framework.NewCluster(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	deleteOperatorStack(t, c)
	never := recordEvents(t, c, operatorStackRefs)
	w := startPlatformWorld(t, c, true)
	assertStatusQuo(t, c, w)
	restarts := map[string]int{} // the status quo's own
	for _, n := range w.nodes {
		restarts[n.Name] = n.CRIORestarts
	}
	start := time.Now()
	poller := framework.StartMetricsPoller(t, w.pki, w.nodes, time.Second)

	c, _ = framework.Setup(t, framework.OperatorOptions{})
	waitMetricsStatus(t, c, 2*time.Minute, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	checkPlatformOperands(t, c, time.Minute)

	checkTwoJobs := func(when string) {
		t.Helper()
		v, found, err := w.prom.QueryScalar(twoJobsQuery)
		require.NoError(t, err)
		assert.False(t, found, "%s: container_runtime_crio_* from two jobs (%v metrics)", when, v)
	}
	applyToNodes := func() {
		t.Helper()
		mcs := framework.OperatorMachineConfigs(t, c.Config)
		for _, n := range w.nodes {
			assert.False(t, n.ApplyOperatorMachineConfigs(t, mcs), "node %s: the operator's MachineConfigs changed CRI-O's drop-ins", n.Name)
		}
	}
	applyToNodes()
	const flips = 10
	for i := 1; i <= flips; i++ {
		c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackDisabled)
		c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false})
		c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
		applyToNodes()
		c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackState(""))
		waitMetricsStatus(t, c, 2*time.Minute, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
		c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
		checkPlatformOperands(t, c, time.Minute)
		applyToNodes()
		checkTwoJobs(fmt.Sprintf("flip %d", i))
		t.Logf("flip %d/%d settled; poller: %s", i, flips, poller.Counts())
	}
	time.Sleep(3 * time.Second)
	counts := poller.Stop()
	checkTwoJobs("end")
	window := int(time.Since(start).Seconds()) + 1 // not the status quo's failed scrapes
	scrapes, _, err := w.prom.QueryScalar(fmt.Sprintf(`sum(count_over_time(up{job="crio"}[%ds]))`, window))
	require.NoError(t, err)
	good, _, err := w.prom.QueryScalar(fmt.Sprintf(`sum(sum_over_time(up{job="crio"}[%ds]))`, window))
	require.NoError(t, err)
	never.stop()
	if ev := never.all(); len(ev) > 0 {
		t.Errorf("the operator's own stack existed beside the platform path:\n%s", describeEvents(ev))
	}
	for _, n := range w.nodes {
		assert.Equal(t, restarts[n.Name], n.CRIORestarts, "node %s: CRI-O restarted", n.Name)
	}
	t.Logf("MCO proxy poller over %d flips: %s; Prometheus job=\"crio\": %v scrapes, %v failed; test took %s",
		flips, counts, scrapes, scrapes-good, time.Since(start).Round(time.Second))
	assert.NotZero(t, counts.Polls)
	assert.Zero(t, counts.Failures, "requests through MCO's proxy failed: %s", counts)
	assert.Equal(t, scrapes, good, "job=\"crio\" scrapes failed")
}

// switchMetricsRefs are the ServiceMonitor and the drop-in MachineConfigs
// of the operator's own stack.
func switchMetricsRefs() (objectRef, []objectRef) {
	var mcRefs []objectRef
	for _, name := range dropInMachineConfigs {
		mcRefs = append(mcRefs, objectRef{machineConfigGVR, "", name})
	}
	return objectRef{serviceMonitorGVR, operatorNamespace, "crio-metrics"}, mcRefs
}

// assertDeletedInOrder: every ref was deleted since revision from, the
// ServiceMonitor first, the MachineConfigs once it was gone, then the rest.
func assertDeletedInOrder(t *testing.T, events *eventRecorder, refs []objectRef, from int64) {
	t.Helper()
	deleted := map[objectRef]int64{}
	for _, ref := range refs {
		deleted[ref] = events.last(ref, watch.Deleted, from)
		if deleted[ref] == 0 {
			t.Errorf("%s was not deleted", ref)
		}
	}
	sm, mcRefs := switchMetricsRefs()
	for _, mc := range mcRefs {
		assert.Less(t, deleted[sm], deleted[mc], "%s deleted before the ServiceMonitor was gone", mc)
	}
	for _, ref := range refs {
		if ref == sm || ref.gvr == machineConfigGVR {
			continue
		}
		for _, mc := range mcRefs {
			assert.Less(t, deleted[mc], deleted[ref], "%s deleted before %s", ref, mc)
		}
	}
}

// switchBack: the platform path disappears: the own stack comes back, the
// ServiceMonitor after the MachineConfigs, and the nodes' CRI-O serve
// HTTPS again.
func switchBack(t *testing.T, c *framework.Cluster, w *platformWorld, events *eventRecorder) {
	t.Helper()
	from := currentRevision(t, c)
	for _, n := range w.nodes {
		n.StopProxy(t)
	}
	w.objects.RemoveProxy(t)
	waitMetricsStatus(t, c, 2*time.Minute, nodev1alpha1.OperatorTLS, "")
	waitForMetricsObjects(t, c, true, 3*time.Minute)
	created := map[objectRef]int64{}
	sm, mcRefs := switchMetricsRefs()
	for _, ref := range append([]objectRef{sm}, mcRefs...) {
		created[ref] = events.last(ref, watch.Added, from)
		require.NotZero(t, created[ref], "%s was not created again", ref)
	}
	for _, mc := range mcRefs {
		assert.Less(t, created[mc], created[sm], "ServiceMonitor created before %s", mc)
	}
	c.WaitForClusterOperator(t, 3*time.Minute, framework.Settled)
	mcs := framework.OperatorMachineConfigs(t, c.Config)
	for _, n := range w.nodes {
		require.True(t, n.ApplyOperatorMachineConfigs(t, mcs), "node %s", n.Name)
		require.True(t, n.CRIOServesTLS(), "node %s", n.Name)
	}
}

// TestCoexistenceSwitch: the operator's own stack is replaced when the
// platform path appears (ServiceMonitor first, the MachineConfigs once it is
// gone, then the rest) and comes back when it disappears (ServiceMonitor
// last); the nodes' CRI-O go from HTTPS to plain HTTP and MCO's proxy serves
// from then on.
func TestCoexistenceSwitch(t *testing.T) {
	requireMachineConfigAPI(t)
	c := framework.NewCluster(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	deleteOperatorStack(t, c)
	// A cluster before MCO shipped the proxy: 00-default only.
	w := startPlatformWorld(t, c, false)
	c, _ = framework.Setup(t, framework.OperatorOptions{})
	waitMetricsStatus(t, c, 2*time.Minute, nodev1alpha1.OperatorTLS, "")
	waitForMetricsObjects(t, c, true, 3*time.Minute)
	mcs := framework.OperatorMachineConfigs(t, c.Config)
	for _, n := range w.nodes {
		require.True(t, n.ApplyOperatorMachineConfigs(t, mcs), "node %s: the operator's drop-in must restart CRI-O", n.Name)
		require.True(t, n.CRIOServesTLS(), "node %s: CRI-O serves HTTPS with the operator's drop-in", n.Name)
	}

	// The platform path appears (an upgrade to MCO with the proxy).
	refs := switchRefs()
	events := recordEvents(t, c, refs)
	reasons := watchConditionReasons(t, c, "MetricsProgressing")
	from := currentRevision(t, c)
	w.objects.InstallProxy(t)
	for _, n := range w.nodes {
		n.StartProxy(t)
	}
	w.startPrometheus(t)
	waitMetricsStatus(t, c, 2*time.Minute, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	waitForMetricsObjectsExcept(t, c, false, 3*time.Minute, "prometheusrules")
	checkPlatformOperands(t, c, time.Minute)

	assertDeletedInOrder(t, events, refs, from)
	assert.True(t, reasons.seen("SwitchingToPlatformProxy"), "MetricsProgressing reasons seen: %s", reasons)

	// The nodes apply the removal of the drop-in: plain HTTP, MCO's proxy
	// serves from then on.
	mcs = framework.OperatorMachineConfigs(t, c.Config)
	for _, n := range w.nodes {
		require.True(t, n.ApplyOperatorMachineConfigs(t, mcs), "node %s: removing the drop-in must restart CRI-O", n.Name)
		require.False(t, n.CRIOServesTLS(), "node %s", n.Name)
	}
	w.waitCRIOJobUp(t, time.Minute)
	poller := framework.StartMetricsPoller(t, w.pki, w.nodes, time.Second)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	time.Sleep(5 * time.Second)
	counts := poller.Stop()
	assert.NotZero(t, counts.Polls)
	assert.Zero(t, counts.Failures, "requests through MCO's proxy failed after the switch: %s", counts)
	v, found, err := w.prom.QueryScalar(twoJobsQuery)
	require.NoError(t, err)
	assert.False(t, found, "container_runtime_crio_* from two jobs (%v)", v)

	switchBack(t, c, w, events)
	assert.True(t, reasons.seen("SwitchingToOperatorTLS"), "MetricsProgressing reasons seen: %s", reasons)
}
