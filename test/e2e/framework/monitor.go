package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// origin's ClusterOperator invariants, in our own words (docs/testing.md).

// ConditionInterval is a span during which a condition of the ClusterOperator had one status and reason, as the monitor saw it.
type ConditionInterval struct {
	Type configv1.ClusterStatusConditionType
	// Status is "" while the condition is missing.
	Status  configv1.ConditionStatus
	Reason  string
	Message string
	From    time.Time
	// To is zero while the interval is still open.
	To time.Time
}

// endAt is the interval's end, or now while it is open.
func (iv ConditionInterval) endAt(now time.Time) time.Time {
	if iv.To.IsZero() {
		return now
	}
	return iv.To
}

// bad tells whether the interval breaks origin's first invariant unless a window allows it: Available=False or Degraded=True.
func (iv ConditionInterval) bad() bool {
	return (iv.Type == configv1.OperatorAvailable && iv.Status == configv1.ConditionFalse) ||
		(iv.Type == configv1.OperatorDegraded && iv.Status == configv1.ConditionTrue)
}

// allowance is a window in which a condition may have a status.
type allowance struct {
	typ      configv1.ClusterStatusConditionType
	status   configv1.ConditionStatus
	from, to time.Time
	why      string
	// explicit: the test ended the window itself, saying the operator has
	// recovered by then, so an interval must also end inside it. A window
	// that the end of its test closed covers every interval that began in
	// it (the next test's setup repairs what the test left).
	explicit bool
	// owner is the top-level test that declared the window.
	owner string
}

// covers tells whether the window allows the interval.
func (a allowance) covers(iv ConditionInterval, now time.Time) bool {
	if a.typ != iv.Type || a.status != iv.Status || iv.From.Before(a.from) {
		return false
	}
	if a.to.IsZero() {
		return true
	}
	return !iv.From.After(a.to) && (!a.explicit || !iv.endAt(now).After(a.to))
}

// uncovered: the intervals that break the invariant outside every window (monitor_test.go).
func uncovered(intervals []ConditionInterval, allowed []allowance, now time.Time) []ConditionInterval {
	var out []ConditionInterval
	for _, iv := range intervals {
		if !iv.bad() {
			continue
		}
		covered := false
		for _, a := range allowed {
			covered = covered || a.covers(iv, now)
		}
		if !covered {
			out = append(out, iv)
		}
	}
	return out
}

// monitoredConditions are the conditions the monitor follows.
var monitoredConditions = []configv1.ClusterStatusConditionType{
	configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable,
}

// VersionInterval: a pseudo-condition whose Status is versions[operator].
const VersionInterval configv1.ClusterStatusConditionType = "versions[operator]"

// ClusterOperatorMonitor watches a ClusterOperator during a test and keeps the intervals of its conditions.
type ClusterOperatorMonitor struct {
	Name  string
	Start time.Time

	mu        sync.Mutex
	intervals []ConditionInterval
	open      map[configv1.ClusterStatusConditionType]int
	allowed   []allowance
	stopCh    chan struct{}
	stopped   bool
	// seen is the resourceVersion of the last state observed ("" after a deletion).
	seen string
}

// StartClusterOperatorMonitor watches ClusterOperator name until Stop or the end of the test.
func StartClusterOperatorMonitor(t testing.TB, cfg *rest.Config, name string) *ClusterOperatorMonitor {
	t.Helper()
	m, err := startMonitor(cfg, name, time.Minute)
	require.NoError(t, err)
	t.Cleanup(m.Stop)
	return m
}

// startMonitor watches ClusterOperator name until Stop.
func startMonitor(cfg *rest.Config, name string, syncTimeout time.Duration) (*ClusterOperatorMonitor, error) {
	client, err := configclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	m := &ClusterOperatorMonitor{Name: name, Start: time.Now(), open: map[configv1.ClusterStatusConditionType]int{}, stopCh: make(chan struct{})}
	lw := cache.NewListWatchFromClient(client.ConfigV1().RESTClient(), "clusteroperators", "", fields.OneTermEqualSelector("metadata.name", name))
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &configv1.ClusterOperator{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj interface{}) { m.observe(obj) },
			UpdateFunc: func(_, obj interface{}) { m.observe(obj) },
			DeleteFunc: func(interface{}) { m.observe(nil) },
		},
	})
	go informer.Run(m.stopCh)
	ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		m.Stop()
		return nil, fmt.Errorf("watching ClusterOperator %s: no initial list within %s", name, syncTimeout)
	}
	return m, nil
}

// observe records the conditions of a new state of the ClusterOperator (nil: deleted, every condition missing).
func (m *ClusterOperatorMonitor) observe(obj interface{}) {
	co, _ := obj.(*configv1.ClusterOperator)
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	m.seen = ""
	if co != nil {
		m.seen = co.ResourceVersion
	}
	for _, typ := range append(monitoredConditions, VersionInterval) {
		cur := ConditionInterval{Type: typ, From: now}
		if co != nil {
			for _, c := range co.Status.Conditions {
				if c.Type == typ {
					cur.Status, cur.Reason, cur.Message = c.Status, c.Reason, c.Message
				}
			}
			for _, v := range co.Status.Versions {
				if typ == VersionInterval && v.Name == "operator" {
					cur.Status = configv1.ConditionStatus(v.Version)
				}
			}
		}
		if i, ok := m.open[typ]; ok {
			prev := &m.intervals[i]
			if prev.Status == cur.Status && prev.Reason == cur.Reason {
				prev.Message = cur.Message
				continue
			}
			prev.To = now
		}
		m.intervals = append(m.intervals, cur)
		m.open[typ] = len(m.intervals) - 1
	}
}

// catchUp waits until the monitor has observed the ClusterOperator as the API server has it now (or its deletion).
func (m *ClusterOperatorMonitor) catchUp(cfg *rest.Config, timeout time.Duration) error {
	client, err := configclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var last string
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		co, err := client.ConfigV1().ClusterOperators().Get(ctx, m.Name, metav1.GetOptions{})
		m.mu.Lock()
		seen := m.seen
		m.mu.Unlock()
		switch {
		case apierrors.IsNotFound(err):
			last = "deleted, last seen " + seen
			return seen == "", nil
		case err != nil:
			last = err.Error()
			return false, nil
		}
		last = fmt.Sprintf("at resourceVersion %s, last seen %s", co.ResourceVersion, seen)
		return seen == co.ResourceVersion, nil
	})
	if err != nil {
		return fmt.Errorf("the monitor of ClusterOperator %s is behind (%s): %w", m.Name, last, err)
	}
	return nil
}

// Stop ends the watch and closes the open intervals.
func (m *ClusterOperatorMonitor) Stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	m.stopped = true
	close(m.stopCh)
	now := time.Now()
	for _, i := range m.open {
		m.intervals[i].To = now
	}
}

// allow opens a window from now; end closes it, explicitly (the test says the operator has recovered) or not (the test ended).
func (m *ClusterOperatorMonitor) allow(a allowance) (end func(explicit bool)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a.from = time.Now()
	m.allowed = append(m.allowed, a)
	i := len(m.allowed) - 1
	return func(explicit bool) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.allowed[i].to.IsZero() {
			m.allowed[i].to = time.Now()
			m.allowed[i].explicit = explicit
		}
	}
}

// allowances returns the windows declared so far.
func (m *ClusterOperatorMonitor) allowances() []allowance {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]allowance{}, m.allowed...)
}

// Intervals returns what the monitor saw so far, in order.
func (m *ClusterOperatorMonitor) Intervals() []ConditionInterval {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]ConditionInterval{}, m.intervals...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].From.Before(out[j].From) })
	return out
}

// Rel is a time relative to the monitor's start.
func (m *ClusterOperatorMonitor) Rel(at time.Time) string {
	return fmt.Sprintf("%+.1fs", at.Sub(m.Start).Seconds())
}

// Timeline renders the intervals relative to the monitor's start, one a line, for the test's log.
func (m *ClusterOperatorMonitor) Timeline() string {
	var b strings.Builder
	for _, iv := range m.Intervals() {
		to := "now"
		if !iv.To.IsZero() {
			to = m.Rel(iv.To)
		}
		status := string(iv.Status)
		if status == "" {
			status = "<missing>"
		}
		msg := iv.Message
		if len(msg) > 160 {
			msg = msg[:160] + "..."
		}
		fmt.Fprintf(&b, "  %8s .. %-8s %-18s=%-9s %s: %s\n", m.Rel(iv.From), to, iv.Type, status, iv.Reason, msg)
	}
	return b.String()
}

// describe names an interval: the condition, from when to when (relative to the monitor's start and in UTC), how long, reason and message.
func (m *ClusterOperatorMonitor) describe(iv ConditionInterval) string {
	to, open := iv.endAt(time.Now()), ""
	if iv.To.IsZero() {
		open = ", still open"
	}
	return fmt.Sprintf("ClusterOperator %s was %s=%s from %s to %s (%s .. %s, %s%s; reason %s: %s)",
		m.Name, iv.Type, iv.Status, m.Rel(iv.From), m.Rel(to), iv.From.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano),
		to.Sub(iv.From).Round(time.Millisecond), open, iv.Reason, iv.Message)
}

// ProgressedBetween tells whether the ClusterOperator was Progressing=True at some time between from and to.
func (m *ClusterOperatorMonitor) ProgressedBetween(from, to time.Time) bool {
	for _, iv := range m.Intervals() {
		if iv.Type == configv1.OperatorProgressing && iv.Status == configv1.ConditionTrue && iv.From.Before(to) && iv.endAt(time.Now()).After(from) {
			return true
		}
	}
	return false
}

// CheckRelatedObjects: relatedObjects name a namespace and a cluster-scoped object, each served and existing.
func CheckRelatedObjects(t testing.TB, cfg *rest.Config, co *configv1.ClusterOperator) {
	t.Helper()
	applier := NewApplier(t, cfg)
	for _, p := range relatedObjectProblems(Context(t, time.Minute), applier, co, true) {
		t.Error(p)
	}
}

// relatedObjectProblems checks the relatedObjects as CheckRelatedObjects says; the objects' existence only when exist is set.
func relatedObjectProblems(ctx context.Context, applier *Applier, co *configv1.ClusterOperator, exist bool) []string {
	var problems []string
	errorf := func(format string, args ...interface{}) { problems = append(problems, fmt.Sprintf(format, args...)) }
	namespace, clusterScoped := false, false
	for _, ref := range co.Status.RelatedObjects {
		if ref.Resource != strings.ToLower(ref.Resource) || ref.Group != strings.ToLower(ref.Group) {
			errorf("clusteroperator/%s: relatedObject %+v: group and resource must be lowercase", co.Name, ref)
		}
		gvr, err := applier.Mapper.ResourceFor(schema.GroupVersionResource{Group: ref.Group, Resource: ref.Resource})
		if err != nil {
			applier.Mapper.Reset()
			gvr, err = applier.Mapper.ResourceFor(schema.GroupVersionResource{Group: ref.Group, Resource: ref.Resource})
		}
		if err != nil {
			errorf("clusteroperator/%s: relatedObject %+v does not resolve to a served resource: %v", co.Name, ref, err)
			continue
		}
		if gvr.Resource != ref.Resource {
			errorf("clusteroperator/%s: relatedObject %+v names resource %q; the cluster serves it as %q", co.Name, ref, ref.Resource, gvr.Resource)
		}
		gvk, err := applier.Mapper.KindFor(gvr)
		if err != nil {
			errorf("clusteroperator/%s: relatedObject %+v: %v", co.Name, ref, err)
			continue
		}
		mapping, err := applier.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			errorf("clusteroperator/%s: relatedObject %+v: %v", co.Name, ref, err)
			continue
		}
		namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace
		switch {
		case ref.Group == "" && ref.Resource == "namespaces":
			namespace = true
		case !namespaced && ref.Name != "":
			clusterScoped = true
		}
		if namespaced && ref.Namespace == "" && ref.Name != "" {
			errorf("clusteroperator/%s: relatedObject %+v is of a namespaced resource but names no namespace", co.Name, ref)
			continue
		}
		if ref.Name == "" || !exist {
			continue // every object of the resource
		}
		ri := applier.Dynamic.Resource(gvr)
		var getErr error
		if namespaced {
			_, getErr = ri.Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		} else {
			_, getErr = ri.Get(ctx, ref.Name, metav1.GetOptions{})
		}
		if getErr != nil {
			errorf("clusteroperator/%s: relatedObject %+v: %v", co.Name, ref, getErr)
		}
	}
	if !namespace {
		errorf("clusteroperator/%s: no relatedObject is a namespace: %+v", co.Name, co.Status.RelatedObjects)
	}
	if !clusterScoped {
		errorf("clusteroperator/%s: no relatedObject is a cluster-scoped object other than a namespace: %+v", co.Name, co.Status.RelatedObjects)
	}
	return problems
}

// OperatorVersion is a ClusterOperator's versions[operator], "" when it reports none.
func OperatorVersion(co *configv1.ClusterOperator) string {
	for _, v := range co.Status.Versions {
		if v.Name == "operator" {
			return v.Version
		}
	}
	return ""
}

// CheckOperatorVersion fails the test unless the ClusterOperator's versions[operator] is the ClusterVersion's desired version.
func CheckOperatorVersion(t testing.TB, co *configv1.ClusterOperator, cv *configv1.ClusterVersion) {
	t.Helper()
	if got := OperatorVersion(co); got == "" || got != cv.Status.Desired.Version {
		t.Errorf("clusteroperator/%s reports version operator %q; the cluster's desired version is %q", co.Name, got, cv.Status.Desired.Version)
	}
}

// LiveClusterOperator reads a ClusterOperator.
func LiveClusterOperator(t testing.TB, cfg *rest.Config, name string) *configv1.ClusterOperator {
	t.Helper()
	co, err := configclient.NewForConfigOrDie(cfg).ConfigV1().ClusterOperators().Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err, "clusteroperator/%s", name)
	return co
}
