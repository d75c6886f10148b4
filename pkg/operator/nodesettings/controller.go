package nodesettings

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// Prefix of the controller's conditions.
	Prefix = "NodeSettings"
	// FieldManager owns status.nodeSettings and the NodeSettings conditions,
	// and our MachineConfigs.
	FieldManager = "NodeSettings"
	// DisruptionPolicyFieldManager owns our entries of MCO's node disruption
	// policy.
	DisruptionPolicyFieldManager = "cluster-node-operator-node-settings-disruption-policy"

	// Reasons of the NodeSettings conditions.
	ReasonNoSettings      = "NoNodeSettings"
	ReasonNotServed       = "MachineConfigAPINotServed"
	ReasonNoPolicy        = "NodeDisruptionPolicyUnavailable"
	ReasonSyncError       = "SyncError"
	ReasonAsExpected      = "AsExpected"
	ReasonRollingOut      = "RollingOut"
	ReasonRollingBackCond = "RollingBack"
	ReasonRolledBackCond  = "RolledBack"
	// ReasonWaitingForPolicy: our next MachineConfig write waits for MCO's
	// status to list our node disruption policy entries (Progressing);
	// ReasonPolicyNotReady: that wait outlasted its grace (Degraded).
	ReasonWaitingForPolicy = "WaitingForNodeDisruptionPolicy"
	ReasonPolicyNotReady   = "NodeDisruptionPolicyNotReady"

	// pollInterval is how often a rollout in progress looks at MCO's
	// objects again; MCO's objects are not watched (a watch on every
	// MachineConfig and MachineConfigNode would cost memory at every
	// size of cluster for a rollout that runs rarely).
	pollInterval = 2 * time.Second
	// ownedLabel marks our MachineConfigs, so that one list finds them.
	ownedLabel = "nodeoperator.openshift.io/node-settings"
)

// DefaultTiming: MCO updates a pool one node at a time, a CRI-O or kubelet
// restart each, so a pool of hundreds of nodes takes a while.
var DefaultTiming = Timing{Update: 2 * time.Hour, Soak: 2 * time.Minute, Gate: 10 * time.Minute}

// Controller rolls the node settings out pool by pool (rollout.go) through
// our MachineConfigs. A sync observes, decides (idleFor and planRollout,
// both pure) and acts.
type Controller struct {
	clock         clock.PassiveClock
	nodeOperators *operatorclient.NodeOperators
	dynamic       dynamic.Interface
	kube          kubernetes.Interface
	served        *platform.ServedCache
	namespace     string // of our OpenTelemetryCollector
	timing        Timing
	scrapes       ScrapeProbe // nil: the gate does not check CRI-O's scrapes
	recorder      events.Recorder

	mem memory
}

// memory is what one sync leaves the next. Each field is something the
// cluster cannot tell a sync (the informer lags our own write; no field
// records when a wait began) or tells only at the cost of reads every
// minute on every cluster, which the steady-state read budget has no room
// for (docs/benchmarks.md). A restarted process starts with none of it and
// reads once what it needs.
type memory struct {
	// recorded is the rollout this process last wrote to
	// status.nodeSettings (it is the field's only writer): the informer
	// may not have it yet when the next sync runs, and a step taken on an
	// older record would repeat a write the rollout has moved past (write
	// a failed revision again right after reverting it). nil until the
	// first write: then the cache is all there is.
	recorded *record
	// wait is the MachineConfig write held back for MCO's node disruption
	// policy, and since when: a restarted operator gives a wait its grace
	// again, unless NodeSettingsDegraded already reports it.
	wait disruptionWait
	// noneLeft: this process listed our MachineConfigs, with no settings
	// asked for or recorded, and found none.
	noneLeft bool
	// collectorGone: this process saw that our OpenTelemetryCollector does
	// not exist, so a finished rollout need not look again each minute.
	collectorGone bool
	// guardsClear: this process found no scale-down guard of ours left and
	// placed none since (guard.go).
	guardsClear bool
}

// record is one write of status.nodeSettings; a nil status removed it.
type record struct {
	status *nodev1alpha1.NodeSettingsStatus
}

// disruptionWait is why the next MachineConfig write waits, and since when;
// the zero value: it does not.
type disruptionWait struct {
	since  time.Time
	reason string
}

// Options are what the node settings controller reads and writes through.
type Options struct {
	Clock         clock.PassiveClock
	NodeOperators *operatorclient.NodeOperators
	Dynamic       dynamic.Interface
	Kube          kubernetes.Interface
	Served        *platform.ServedCache
	// Namespace holds our OpenTelemetryCollector.
	Namespace string
	Timing    Timing
	// Scrapes asks Prometheus whether CRI-O's metrics are scraped; nil
	// where no Prometheus is configured.
	Scrapes  ScrapeProbe
	Recorder events.Recorder
}

// NewController watches the NodeOperator only; while a rollout runs it
// looks at MCO's pools, MachineConfigs and MachineConfigNodes every
// pollInterval, and at the nodes of the pool being verified and their
// CRI-O scrapes.
func NewController(o Options) factory.Controller {
	c := &Controller{clock: o.Clock, nodeOperators: o.NodeOperators, dynamic: o.Dynamic, kube: o.Kube, served: o.Served,
		namespace: o.Namespace, timing: o.Timing, scrapes: o.Scrapes, recorder: o.Recorder}
	return factory.New().
		WithInformers(o.NodeOperators.Informer()).
		ResyncEvery(time.Minute).
		WithSync(c.sync).
		ToController("NodeSettings", o.Recorder)
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	recheck, err := c.Sync(ctx)
	if recheck > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), recheck)
	}
	return err
}

// Sync makes one step and records it; it returns when to look again.
func (c *Controller) Sync(ctx context.Context) (time.Duration, error) {
	no, err := c.nodeOperators.Get()
	if err != nil {
		return 0, err
	}
	current := no.Status.NodeSettings
	if c.mem.recorded != nil {
		current = c.mem.recorded.status
	}
	in := idleInput{State: no.Spec.ManagementState, Traced: traced(no.Spec.NodeSettings), Served: c.served.Get(),
		Recorded: current != nil, NoneLeft: c.mem.noneLeft}
	idle := idleFor(in)
	if idle == listOurs {
		// One labelled list tells whether anything of ours is left to
		// remove, of an earlier process: this one writes a MachineConfig
		// only for settings, and then records them. So once per process.
		ours, err := c.dynamic.Resource(platform.MachineConfigGVR).List(ctx, metav1.ListOptions{LabelSelector: ownedLabel})
		if err != nil {
			return 0, c.recordError(ctx, current, fmt.Errorf("MachineConfigs: %w", err))
		}
		c.mem.noneLeft = len(ours.Items) == 0
		if idle = rollout; c.mem.noneLeft {
			idle = idleNoSettings
		}
	}
	switch idle {
	case idleUnmanaged:
		return 0, nil
	case idleRemoved:
		return 0, c.clearGuards(ctx)
	case idleDiscovery:
		// Nothing is concluded, nothing written: looked at again.
		return time.Minute, nil
	case idleNotServed:
		if err := c.clearGuards(ctx); err != nil {
			return 0, err
		}
		if !in.Traced {
			return 0, c.record(ctx, nil, noSettings)
		}
		return 0, c.record(ctx, current, notServed)
	case idleNoSettings:
		if err := c.clearGuards(ctx); err != nil {
			return 0, c.recordError(ctx, current, err)
		}
		return 0, c.record(ctx, nil, noSettings)
	}
	c.mem.noneLeft = false
	o, err := c.observeRollout(ctx, no, current)
	if err != nil {
		return 0, c.recordError(ctx, current, err)
	}
	return c.act(ctx, planRollout(o, c.namespace, c.timing), o, current)
}

// idle says what a sync does when there is no rollout to look at;
// rollout: there is one.
type idle int

const (
	rollout idle = iota
	// idleUnmanaged: managementState is neither Managed nor Removed.
	idleUnmanaged
	// idleRemoved: no rollout, and no scale-down guard of ours stays.
	idleRemoved
	// idleDiscovery: discovery has not answered for MachineConfigs.
	idleDiscovery
	// idleNotServed: there are no pools to configure.
	idleNotServed
	// listOurs: nothing asked for, nothing recorded; whether anything of
	// ours is left must be looked up.
	listOurs
	// idleNoSettings: nothing asked for, recorded or left.
	idleNoSettings
)

// idleInput is what idleFor decides from.
type idleInput struct {
	State operatorv1.ManagementState
	// Traced: the spec asks for node tracing.
	Traced bool
	Served platform.ServedAPIs
	// Recorded: status.nodeSettings holds a rollout.
	Recorded bool
	// NoneLeft: a list found no MachineConfig of ours.
	NoneLeft bool
}

// idleFor decides whether a sync has a rollout to look at.
func idleFor(in idleInput) idle {
	switch {
	case in.State == operatorv1.Removed:
		return idleRemoved
	case in.State != operatorv1.Managed:
		return idleUnmanaged
	case !in.Served.Known(platform.MachineConfigGVR):
		return idleDiscovery
	case !in.Served.MachineConfig:
		return idleNotServed
	case in.Traced || in.Recorded:
		return rollout
	case in.NoneLeft:
		return idleNoSettings
	}
	return listOurs
}

// traced: the spec asks for node tracing. The zero value is "no tracing":
// the schema requires an endpoint.
func traced(s nodev1alpha1.NodeSettings) bool { return s.Tracing != (nodev1alpha1.NodeTracing{}) }

// rolloutObservation is what a sync read for a rollout.
type rolloutObservation struct {
	Spec nodev1alpha1.NodeSettings
	// Previous is the recorded rollout; Recorded its collector.
	Previous          Rollout
	CollectorRecorded bool
	// CollectorGone: this process saw our OpenTelemetryCollector gone.
	CollectorGone bool
	MCO           *mcoObjects
	// Pools are the pools' observations (ObservePool).
	Pools map[string]PoolObservation
	// Listed are the nodes of the pools in flight: the gate's, and the
	// guard's.
	Listed map[string][]corev1.Node
	// NoScrapes says why the gate cannot check CRI-O's scrapes, if it
	// cannot.
	NoScrapes string
	Now       time.Time
}

// observeRollout reads MCO's objects, and the nodes and their health for
// the pools in flight.
func (c *Controller) observeRollout(ctx context.Context, no *nodev1alpha1.NodeOperator, current *nodev1alpha1.NodeSettingsStatus) (rolloutObservation, error) {
	spec := no.Spec.NodeSettings
	_, collectorRecorded := collectorOf(current)
	o := rolloutObservation{Spec: spec, Previous: rolloutFromStatus(current), CollectorRecorded: collectorRecorded,
		CollectorGone: c.mem.collectorGone, Listed: map[string][]corev1.Node{}, Pools: map[string]PoolObservation{}}
	var err error
	if o.MCO, err = c.observe(ctx, o.Previous, traced(spec)); err != nil {
		return o, err
	}
	w := o.MCO
	for _, p := range GuardedPools(o.Previous) {
		if w.pool[p] == nil {
			continue
		}
		if o.Listed[p], err = c.poolNodes(ctx, w.pool[p]); err != nil {
			return o, err
		}
	}
	members := map[string][]GuardNode{}
	for p, nodes := range o.Listed {
		for i := range nodes {
			members[p] = append(members[p], guardNode(&nodes[i]))
		}
	}
	removed := PlanGuards(members, nil).LeftOut
	var job string
	job, o.NoScrapes = c.scrapeJob(no.Status.Stacks)
	for _, p := range w.pools {
		health, leftOut := "", []string(nil)
		if nodes, ok := o.Listed[p]; ok {
			leftOut = append(removed[p], gone(nodes, w.nodesOf[p])...)
		}
		if pool := poolOf(o.Previous, p); pool.State == Verifying {
			health, leftOut = c.health(ctx, o.Listed[p], w.nodesOf[p], leftOut, job, pool.Since)
		}
		objs := PoolObjects{Pool: w.pool[p], Ours: w.ours[p], Current: w.current[p], Nodes: w.mcns[p]}
		if p != "worker" && inheritsWorker(w.pool[p]) {
			objs.Inherited = w.ours["worker"]
		}
		o.Pools[p] = withRemoved(ObservePool(objs, health), leftOut)
	}
	o.Now = c.clock.Now()
	return o, nil
}

// rolloutPlan is one sync's step of a rollout, in the order act takes it.
type rolloutPlan struct {
	// Collector is our OpenTelemetryCollector, put in place before any
	// MachineConfig that points nodes at it; nil: none is wanted.
	Collector *unstructured.Unstructured
	// Step is the rollout's next step; Files what today's spec renders for
	// the pool its Write names.
	Step  Step
	Files []File
	// RemoveCollector: a complete rollout has no pool pointing at our
	// collector.
	RemoveCollector bool
	Status          *nodev1alpha1.NodeSettingsStatus
	Conditions      nodeConditions
	// Recheck is when to look again once the step is recorded.
	Recheck time.Duration
}

// planRollout decides a rollout's step from what a sync read.
func planRollout(o rolloutObservation, namespace string, timing Timing) rolloutPlan {
	var p rolloutPlan
	w := o.MCO
	targets, rendered, notes := map[string]Revision{}, map[string][]File{}, []string{}
	tracing := tracingFrom(o.Spec.Tracing)
	if tracing != nil && w.collector {
		// Spans go through a collector on each node. Kept in step with the
		// spec whatever the phase: a new destination reaches every node's
		// collector at once (the nodes' files do not change).
		p.Collector = Collector(namespace, tracing.Endpoint)
		tracing.Endpoint = CollectorEndpoint
	}
	for _, pool := range w.pools {
		files, skipped := Render(tracing, w.facts[pool])
		targets[pool], rendered[pool] = RevisionOf(files), files
		for _, s := range skipped {
			notes = append(notes, fmt.Sprintf("pool %s: %s", pool, s))
		}
	}
	if tracing != nil {
		notes = append(notes, destinationNote(o.Spec.Tracing.Endpoint, p.Collector))
		if o.NoScrapes != "" {
			notes = append(notes, "the health gate checks node readiness but not CRI-O's metrics: "+o.NoScrapes)
		}
	}
	p.Step = Next(targets, Order(w.pools, o.Spec.Rollout.CanaryPool), o.Previous, o.Pools, o.Now, timing)
	if p.Step.Write != nil {
		p.Files = rendered[p.Step.Write.Pool]
	}
	p.RemoveCollector = p.Collector == nil && p.Step.Rollout.Phase == PhaseComplete
	p.Status = statusFromRollout(p.Step.Rollout)
	if p.Collector != nil || (o.CollectorRecorded && !o.CollectorGone && !p.RemoveCollector) {
		p.Status.OpenTelemetryCollector = nodev1alpha1.OpenTelemetryCollectorReference{Namespace: namespace, Name: CollectorName}
	}
	p.Conditions = conditionsFor(p.Step.Rollout, notes)
	p.Recheck = p.Step.RecheckAfter
	if p.Step.Write != nil || p.Step.Rollout.Phase == PhaseRollingOut || p.Step.Rollout.Phase == PhaseRollingBack {
		p.Recheck = pollInterval
	}
	return p
}

// act takes the planned step: the collector, the node disruption policy
// entries (a write waits for MCO's status to list them), the scale-down
// guards, the MachineConfig write, the collector's removal, the record,
// and the guards' release.
func (c *Controller) act(ctx context.Context, p rolloutPlan, o rolloutObservation, current *nodev1alpha1.NodeSettingsStatus) (time.Duration, error) {
	if p.Collector != nil {
		if err := c.applyCollector(ctx, p.Collector); err != nil {
			return 0, c.recordError(ctx, current, err)
		}
	}
	if p.Step.Write != nil {
		wait, err := c.ensureDisruptionPolicy(ctx)
		if err != nil {
			return 0, c.recordError(ctx, current, err)
		}
		if wait != "" {
			// The step is not taken: the record stays where it was, and
			// the same step is decided again once MCO's status lists our
			// entries.
			return c.recordWait(ctx, current, wait)
		}
	}
	c.mem.wait = disruptionWait{}
	done, err := c.guard(ctx, p.Step.Rollout, o.MCO, o.Listed)
	if err != nil {
		return 0, c.recordError(ctx, current, err)
	}
	if p.Step.Write != nil {
		if err := c.write(ctx, *p.Step.Write, p.Files); err != nil {
			// The factory retries an error with backoff; a persistent one
			// must not be polled every 2 s too.
			return 0, c.recordError(ctx, current, err)
		}
	}
	if p.RemoveCollector {
		if err := c.removeCollector(ctx); err != nil {
			return 0, c.recordError(ctx, current, err)
		}
	}
	if err := c.record(ctx, p.Status, p.Conditions); err != nil {
		return 0, err
	}
	if err := c.release(ctx, p.Step.Rollout, done); err != nil {
		return 0, err
	}
	return p.Recheck, nil
}

// ensureDisruptionPolicy applies our node disruption policy entries when
// they are missing, and says why no MachineConfig of ours may be written,
// created or deleted yet: MCO's daemon decides a node's disruption from
// MachineConfiguration cluster's status when it updates the node, and a
// changed file the status has no entry for drains and reboots it (package
// nodedisruption).
func (c *Controller) ensureDisruptionPolicy(ctx context.Context) (string, error) {
	if wait := nodedisruption.WaitServed(c.served.Get()); wait != "" {
		return wait, nil
	}
	wrote, wait, err := nodedisruption.Ensure(ctx, c.dynamic, DisruptionPolicyFieldManager, nodedisruption.Restarts(DisruptionPolicy()))
	if err != nil {
		return "", fmt.Errorf("MachineConfiguration %s node disruption policy: %w; the node settings MachineConfigs are held back until the entries are in place", nodedisruption.MachineConfigurationName, err)
	}
	if wrote {
		c.recorder.Eventf("NodeSettingsDisruptionPolicy", "applied node disruption policy entries for the node settings drop-ins to MachineConfiguration %s", nodedisruption.MachineConfigurationName)
	}
	return wait, nil
}

// recordWait reports a MachineConfig write held back for MCO's node
// disruption policy: Progressing with the wait's stable message, Degraded
// once the wait outlasts its grace. Within the grace it looks again at the
// rollout's pace; past it, at the resync's.
func (c *Controller) recordWait(ctx context.Context, current *nodev1alpha1.NodeSettingsStatus, wait string) (time.Duration, error) {
	now := c.clock.Now()
	if wait != c.mem.wait.reason {
		// A new reason (MCO created the object; our entries went in):
		// the wait moved on, and has its grace again.
		c.mem.wait = disruptionWait{since: now, reason: wait}
	}
	msg := waitMessage(wait)
	// The time of the wait is kept in memory only: a Degraded condition
	// that already reports this wait (an earlier process wrote it) stays.
	persists := nodedisruption.Persists(c.mem.wait.since, now) || c.reportedPersisting(msg)
	if err := c.record(ctx, current, waitConditions(wait, persists)); err != nil {
		return 0, err
	}
	if persists {
		return 0, nil
	}
	return pollInterval, nil
}

func waitMessage(wait string) string { return "node settings MachineConfigs held back: " + wait }

// reportedPersisting: NodeSettingsDegraded already reports the wait with
// this message as persisting.
func (c *Controller) reportedPersisting(msg string) bool {
	no, err := c.nodeOperators.Get()
	if err != nil {
		return false
	}
	for _, cond := range no.Status.Conditions {
		if cond.Type == Prefix+"Degraded" {
			return cond.Status == operatorv1.ConditionTrue && cond.Reason == ReasonPolicyNotReady && cond.Message == msg
		}
	}
	return false
}

// waitConditions are the conditions while a MachineConfig write waits.
func waitConditions(wait string, persists bool) nodeConditions {
	msg := waitMessage(wait)
	out := nodeConditions{Progressing: condition{true, ReasonWaitingForPolicy, msg}, Degraded: asExpected}
	if persists {
		out.Degraded = condition{true, ReasonPolicyNotReady, msg}
	}
	return out
}

// write puts our MachineConfig for a pool at a revision, or deletes it;
// today are the files today's spec renders for the pool. The caller has
// made sure MCO's status lists our node disruption policy entries.
func (c *Controller) write(ctx context.Context, w Write, today []File) error {
	name := MachineConfigName(w.Pool)
	if w.Revision == "" {
		deleted, err := stack.DeleteUnstructured(ctx, c.dynamic, platform.MachineConfigGVR, MachineConfig(w.Pool, nil))
		if deleted {
			c.recorder.Eventf("NodeSettingsMachineConfig", "deleted MachineConfig %s", name)
		}
		return err
	}
	files := today
	if RevisionOf(today) != w.Revision {
		// A rollback to a revision an earlier spec rendered.
		var err error
		if files, err = c.filesFromRendered(ctx, w); err != nil {
			return err
		}
	}
	mc := MachineConfig(w.Pool, files)
	if changed, err := stack.ApplyUnstructured(ctx, c.dynamic, platform.MachineConfigGVR, mc, FieldManager); err != nil {
		return fmt.Errorf("MachineConfig %s: %w", name, err)
	} else if changed {
		c.recorder.Eventf("NodeSettingsMachineConfig", "applied MachineConfig %s at revision %s", name, w.Revision)
	}
	return nil
}

// filesFromRendered finds our files at a revision in a rendered
// MachineConfig of the pool (MCO keeps them; a pool's earlier renderings
// hold what our MachineConfig carried then).
func (c *Controller) filesFromRendered(ctx context.Context, w Write) ([]File, error) {
	list, err := c.dynamic.Resource(platform.MachineConfigGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		mc := &list.Items[i]
		if !strings.HasPrefix(mc.GetName(), "rendered-"+w.Pool+"-") {
			continue
		}
		typed, err := platform.Typed[mcfgv1.MachineConfig](mc)
		if err != nil {
			return nil, err
		}
		ours, err := ourFiles(typed)
		if err != nil {
			continue // MCO's renderer wrote it: not one of the pool's good renderings
		}
		var files []File
		for path, contents := range ours {
			files = append(files, File{Path: path, Contents: contents, Restart: DisruptionPolicy()[path]})
		}
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
		if RevisionOf(files) == w.Revision {
			return files, nil
		}
	}
	return nil, fmt.Errorf("revision %s of pool %s is no longer known: neither today's node settings nor a rendered MachineConfig of the pool give it", w.Revision, w.Pool)
}

// mcoObjects is what one sync read of MCO's objects.
type mcoObjects struct {
	pools   []string
	pool    map[string]*mcfgv1.MachineConfigPool
	ours    map[string]*mcfgv1.MachineConfig
	current map[string]*mcfgv1.MachineConfig
	mcns    map[string][]*mcfgv1.MachineConfigNode
	nodesOf map[string][]string
	facts   map[string]PoolFacts
	// collector: the OpenTelemetry operator's collector API is served.
	collector bool
}

// observe reads MCO's objects. What only a pool in flight needs (the
// MachineConfigNodes, a pool's rendered MachineConfig) is read only while
// one is: on a cluster of thousands of nodes, listing every
// MachineConfigNode each minute at steady state would cost memory for
// nothing.
func (c *Controller) observe(ctx context.Context, previous Rollout, tracing bool) (*mcoObjects, error) {
	updating, inFlight := map[string]bool{}, false
	for _, p := range previous.Pools {
		switch p.State {
		case Applying, Reverting:
			updating[p.Name] = true
			inFlight = true
		case Verifying:
			inFlight = true
		}
	}
	w := &mcoObjects{pool: map[string]*mcfgv1.MachineConfigPool{}, ours: map[string]*mcfgv1.MachineConfig{},
		current: map[string]*mcfgv1.MachineConfig{}, mcns: map[string][]*mcfgv1.MachineConfigNode{},
		nodesOf: map[string][]string{}, facts: map[string]PoolFacts{}}
	pools, err := listTyped[mcfgv1.MachineConfigPool](ctx, c.dynamic, platform.MachineConfigPoolGVR, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("MachineConfigPools: %w", err)
	}
	for _, p := range pools {
		w.pools = append(w.pools, p.Name)
		w.pool[p.Name] = p
	}
	ours, err := listTyped[mcfgv1.MachineConfig](ctx, c.dynamic, platform.MachineConfigGVR, metav1.ListOptions{LabelSelector: ownedLabel})
	if err != nil {
		return nil, fmt.Errorf("MachineConfigs: %w", err)
	}
	for _, mc := range ours {
		w.ours[mc.Labels[roleLabel]] = mc
	}
	if inFlight {
		mcns, err := listTyped[mcfgv1.MachineConfigNode](ctx, c.dynamic, platform.MachineConfigNodeGVR, metav1.ListOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("MachineConfigNodes: %w", err)
		default:
			for _, n := range mcns {
				pool := n.Spec.Pool.Name
				w.mcns[pool] = append(w.mcns[pool], n)
				w.nodesOf[pool] = append(w.nodesOf[pool], n.Name)
			}
		}
	}
	adminTracing, err := c.adminKubeletTracing(ctx)
	if err != nil {
		return nil, err
	}
	roleFacts := map[string]PoolFacts{}
	for _, name := range w.pools {
		p := w.pool[name]
		if current := p.Status.Configuration.Name; current != "" && updating[name] {
			mc, err := getTyped[mcfgv1.MachineConfig](ctx, c.dynamic, platform.MachineConfigGVR, current)
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return nil, fmt.Errorf("MachineConfig %s: %w", current, err)
			default:
				w.current[name] = mc
			}
		}
		facts, known := roleFacts[roleOf(name)]
		if !known {
			if facts, err = c.factsFor(ctx, name); err != nil {
				return nil, err
			}
			roleFacts[roleOf(name)] = facts
		}
		facts.AdminKubeletTracing = adminTracing(p)
		w.facts[name] = facts
	}
	sort.Strings(w.pools)
	if !tracing {
		return w, nil
	}
	_, err = c.dynamic.Resource(platform.OpenTelemetryCollectorGVR).List(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case err == nil:
		w.collector = true
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("OpenTelemetryCollectors: %w", err)
	}
	return w, nil
}

// factsFor reads whether the pool's kubelet reads drop-ins from MCO's
// kubelet MachineConfig of its role (custom pools inherit worker's).
func (c *Controller) factsFor(ctx context.Context, pool string) (PoolFacts, error) {
	role := roleOf(pool)
	mc, err := getTyped[mcfgv1.MachineConfig](ctx, c.dynamic, platform.MachineConfigGVR, "01-"+role+"-kubelet")
	switch {
	case apierrors.IsNotFound(err):
		return PoolFacts{}, nil
	case err != nil:
		return PoolFacts{}, fmt.Errorf("MachineConfig 01-%s-kubelet: %w", role, err)
	}
	ign, err := platform.IgnitionOf(mc)
	if err != nil {
		return PoolFacts{}, err
	}
	for _, u := range ign.Systemd.Units {
		if u.Name == kubeletService {
			return PoolFacts{KubeletConfigDir: KubeletReadsDropIns(u.Contents)}, nil
		}
	}
	return PoolFacts{}, nil
}

// roleOf is the role whose MCO MachineConfigs a pool runs: its own for the
// base pools, worker's for a custom pool.
func roleOf(pool string) string {
	if isBasePool(pool) {
		return pool
	}
	return "worker"
}

// adminKubeletTracing returns which pools a KubeletConfig that sets
// tracing selects; none where KubeletConfigs are not served.
func (c *Controller) adminKubeletTracing(ctx context.Context) (func(pool *mcfgv1.MachineConfigPool) bool, error) {
	list, err := listTyped[mcfgv1.KubeletConfig](ctx, c.dynamic, platform.KubeletConfigGVR, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return func(*mcfgv1.MachineConfigPool) bool { return false }, nil
	case err != nil:
		return nil, fmt.Errorf("KubeletConfigs: %w", err)
	}
	var selectors []labels.Selector
	for _, kc := range list {
		if !setsTracing(kc) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(kc.Spec.MachineConfigPoolSelector)
		if err != nil {
			continue // MCO refuses it too
		}
		selectors = append(selectors, sel)
	}
	return func(pool *mcfgv1.MachineConfigPool) bool {
		for _, s := range selectors {
			if s.Matches(labels.Set(pool.Labels)) {
				return true
			}
		}
		return false
	}, nil
}

// setsTracing: the KubeletConfig's kubelet configuration has a tracing
// field. One MCO cannot read sets nothing (MCO refuses it too).
func setsTracing(kc *mcfgv1.KubeletConfig) bool {
	if kc.Spec.KubeletConfig == nil {
		return false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(kc.Spec.KubeletConfig.Raw, &fields); err != nil {
		return false
	}
	_, set := fields["tracing"]
	return set
}

// listTyped lists MCO's objects of a kind and reads them as T.
func listTyped[T any](ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, opts metav1.ListOptions) ([]*T, error) {
	l, err := dyn.Resource(gvr).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return platform.TypedList[T](l)
}

// getTyped reads one of MCO's cluster-scoped objects as T.
func getTyped[T any](ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, name string) (*T, error) {
	u, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return platform.Typed[T](u)
}

// health is the gate's look at the pool's nodes: each must be Ready (the
// kubelet reports NotReady when it or its container runtime is down), and,
// when job is set, have had CRI-O's metrics scraped without a failure
// since the pool was updated (since), over the last soak at most. The
// nodes are the pool's MachineConfigNodes (names), or those its node
// selector picks where MachineConfigNodes are not served; a node being
// removed is left out, and so is a NotReady one whose Machine is marked for
// deletion (returned with leftOut). "" means healthy.
func (c *Controller) health(ctx context.Context, nodes []corev1.Node, names []string, leftOut []string, job string, since time.Time) (string, []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var bad, members []string
	machines := map[string]string{}
	for i := range nodes {
		n := &nodes[i]
		if (len(want) > 0 && !want[n.Name]) || slices.Contains(leftOut, n.Name) {
			continue
		}
		members = append(members, n.Name)
		if why := notReady(n); why != "" {
			bad = append(bad, fmt.Sprintf("node %s is not Ready: %s", n.Name, why))
			if m := n.Annotations[MachineAnnotation]; m != "" {
				machines[n.Name] = m
			}
		}
	}
	if len(machines) > 0 {
		removed := leftOutMachines(ctx, c.dynamic, machines)
		bad = slices.DeleteFunc(bad, func(b string) bool { return removed[strings.Fields(b)[1]] })
		leftOut = append(leftOut, sortedKeys(removed)...)
	}
	sort.Strings(bad)
	if len(bad) > 3 {
		bad = append(bad[:3], fmt.Sprintf("and %d more", len(bad)-3))
	}
	if len(bad) > 0 || job == "" || len(members) == 0 {
		return strings.Join(bad, "; "), leftOut
	}
	scraped, err := c.scrapes.ScrapedThroughout(ctx, job, ScrapeWindow(since, c.clock.Now(), c.timing.Soak))
	if err != nil {
		return fmt.Sprintf("cannot tell whether CRI-O's metrics are scraped: %v", err), leftOut
	}
	return ScrapeVerdict(job, slices.DeleteFunc(members, func(m string) bool { return slices.Contains(leftOut, m) }), scraped), leftOut
}

// poolNodes lists the nodes a pool's node selector picks, from the API
// server's cache.
func (c *Controller) poolNodes(ctx context.Context, pool *mcfgv1.MachineConfigPool) ([]corev1.Node, error) {
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.NodeSelector)
	if err != nil {
		return nil, fmt.Errorf("pool %s's node selector: %w", pool.Name, err)
	}
	nodes, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel.String(), ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("pool %s's nodes: %w", pool.Name, err)
	}
	return nodes.Items, nil
}

// gone are the nodes a pool's MachineConfigNodes (names) name that are
// not among its nodes any more.
func gone(nodes []corev1.Node, names []string) []string {
	have := map[string]bool{}
	for i := range nodes {
		have[nodes[i].Name] = true
	}
	var out []string
	for _, n := range names {
		if !have[n] {
			out = append(out, n)
		}
	}
	return out
}

// guard places the guards the rollout asks for (before the step's write)
// and returns the guards to release once the step is recorded. Nothing is
// read while no pool is guarded and this process saw no guard left.
func (c *Controller) guard(ctx context.Context, r Rollout, w *mcoObjects, listed map[string][]corev1.Node) ([]string, error) {
	pools := GuardedPools(r)
	if len(pools) == 0 && c.mem.guardsClear {
		return nil, nil
	}
	members, versions := map[string][]GuardNode{}, map[string]string{}
	for _, p := range pools {
		nodes, ok := listed[p]
		if !ok && w.pool[p] != nil {
			var err error
			if nodes, err = c.poolNodes(ctx, w.pool[p]); err != nil {
				return nil, err
			}
		}
		for i := range nodes {
			members[p] = append(members[p], guardNode(&nodes[i]))
			versions[nodes[i].Name] = nodes[i].ResourceVersion
		}
	}
	marked, err := listGuarded(ctx, c.kube)
	if err != nil {
		return nil, err
	}
	plan := PlanGuards(members, marked)
	if len(plan.Guard) > 0 {
		c.mem.guardsClear = false
		c.recorder.Eventf("NodeSettingsScaleDownGuard", "guarding %d nodes of pools %s from the cluster autoscaler's scale-down", len(plan.Guard), strings.Join(pools, ", "))
	}
	return plan.Release, placeGuards(ctx, c.kube, plan, versions)
}

// release removes the guards of pools that are done; with no pool guarded,
// this process knows none is left.
func (c *Controller) release(ctx context.Context, r Rollout, names []string) error {
	if err := releaseGuards(ctx, c.kube, names); err != nil {
		return err
	}
	if len(names) > 0 {
		c.recorder.Eventf("NodeSettingsScaleDownGuard", "released the scale-down guards of %d nodes", len(names))
	}
	c.mem.guardsClear = len(GuardedPools(r)) == 0
	return nil
}

// clearGuards releases every guard of ours where no rollout runs; once
// per process while this one places none.
func (c *Controller) clearGuards(ctx context.Context) error {
	if c.mem.guardsClear {
		return nil
	}
	if err := ReleaseAllGuards(ctx, c.kube); err != nil {
		return err
	}
	c.mem.guardsClear = true
	return nil
}

// withRemoved leaves the nodes being removed out of a pool's observation.
func withRemoved(o PoolObservation, leftOut []string) PoolObservation {
	slices.Sort(leftOut)
	o.LeftOut = slices.Compact(leftOut)
	return o
}

func notReady(n *corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				return ""
			}
			// never "" for a node that is not Ready
			return messageOr(c.Message, "Ready="+string(c.Status))
		}
	}
	return "no Ready condition"
}

func destinationNote(destination string, collector *unstructured.Unstructured) string {
	if collector != nil {
		return fmt.Sprintf("spans go to a collector on each node (OpenTelemetryCollector %s/%s, %s), which exports them to %s", collector.GetNamespace(), CollectorName, CollectorEndpoint, destination)
	}
	return fmt.Sprintf("spans go to %s as given: the OpenTelemetry collector API (opentelemetry.io) is not served", destination)
}

// applyCollector puts our OpenTelemetryCollector in place (a read, and a
// write only when it differs); a failure holds the MachineConfigs back.
func (c *Controller) applyCollector(ctx context.Context, collector *unstructured.Unstructured) error {
	changed, err := stack.ApplyUnstructured(ctx, c.dynamic, platform.OpenTelemetryCollectorGVR, collector, FieldManager)
	if err != nil {
		return fmt.Errorf("OpenTelemetryCollector %s/%s: %w; the MachineConfigs that point nodes at it are held back", collector.GetNamespace(), CollectorName, err)
	}
	c.mem.collectorGone = false
	if changed {
		c.recorder.Eventf("NodeSettingsCollector", "applied OpenTelemetryCollector %s/%s exporting to the node tracing destination", collector.GetNamespace(), CollectorName)
	}
	return nil
}

// removeCollector deletes our OpenTelemetryCollector once a complete
// rollout has no pool pointing at it; once this process saw it gone, it
// does not look again.
func (c *Controller) removeCollector(ctx context.Context) error {
	if c.mem.collectorGone {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetNamespace(c.namespace)
	obj.SetName(CollectorName)
	deleted, err := stack.DeleteUnstructured(ctx, c.dynamic, platform.OpenTelemetryCollectorGVR, obj)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("OpenTelemetryCollector %s/%s: %w", c.namespace, CollectorName, err)
	case deleted:
		c.recorder.Eventf("NodeSettingsCollector", "deleted OpenTelemetryCollector %s/%s: no node sends spans to it any more", c.namespace, CollectorName)
	}
	c.mem.collectorGone = true
	return nil
}

// inheritsWorker: the pool's MachineConfig selector takes the worker
// role's MachineConfigs, as a custom pool's usually does.
func inheritsWorker(pool *mcfgv1.MachineConfigPool) bool {
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	return err == nil && sel.Matches(labels.Set{roleLabel: "worker"})
}

func poolOf(r Rollout, pool string) PoolStatus {
	for _, p := range r.Pools {
		if p.Name == pool {
			return p
		}
	}
	return PoolStatus{}
}

// scrapeJob is the job whose CRI-O scrapes the gate checks; "" and why
// the gate cannot check them.
func (c *Controller) scrapeJob(stacks []nodev1alpha1.StackStatus) (string, string) {
	if c.scrapes == nil {
		return "", "the operator has no Prometheus to query (--prometheus-url is empty)"
	}
	return ScrapeJob(stacks)
}

// rateOf is a component's sampling rate; omitted is the default, 0.
func rateOf(s *nodev1alpha1.TracingSampling) *int32 {
	var v int32
	if s.SamplingRatePerMillion != nil {
		v = *s.SamplingRatePerMillion
	}
	return &v
}

func tracingFrom(t nodev1alpha1.NodeTracing) *Tracing {
	if t == (nodev1alpha1.NodeTracing{}) {
		return nil
	}
	out := &Tracing{Endpoint: t.Endpoint}
	if t.CRIO != nil {
		out.CRIOSamplingPerMillion = rateOf(t.CRIO)
	}
	if t.Kubelet != nil {
		out.KubeletSamplingPerMillion = rateOf(t.Kubelet)
	}
	return out
}

// condition is the value of one NodeSettings condition.
type condition struct {
	Status  bool
	Reason  string
	Message string
}

// nodeConditions are the controller's conditions, NodeSettingsProgressing
// and NodeSettingsDegraded.
type nodeConditions struct {
	Progressing, Degraded condition
}

var (
	asExpected = condition{Reason: ReasonAsExpected}
	noSettings = nodeConditions{Progressing: condition{false, ReasonNoSettings, "no node settings"}, Degraded: asExpected}
	notServed  = nodeConditions{Progressing: condition{false, ReasonNotServed,
		"node settings not applied: machineconfiguration.openshift.io/v1 is not served, so there are no pools to configure"}, Degraded: asExpected}
)

// conditionsFor says what the rollout means for the ClusterOperator:
// Progressing while pools change, Degraded once a failed gate has rolled
// the pools back (the administrator must correct the settings).
func conditionsFor(r Rollout, notes []string) nodeConditions {
	msg := r.Message
	if len(notes) > 0 {
		msg = stack.Join(append([]string{msg}, notes...)...)
	}
	rolledBack := condition{true, ReasonRolledBackCond, r.Message}
	switch r.Phase {
	case PhaseRollingOut:
		return nodeConditions{Progressing: condition{true, ReasonRollingOut, msg}, Degraded: asExpected}
	case PhaseRollingBack:
		return nodeConditions{Progressing: condition{true, ReasonRollingBackCond, msg}, Degraded: rolledBack}
	case PhaseStopped:
		return nodeConditions{Progressing: condition{false, ReasonRolledBackCond, msg}, Degraded: rolledBack}
	}
	return nodeConditions{Progressing: condition{false, ReasonAsExpected, msg}, Degraded: asExpected}
}

// recordError reports a failed sync: Degraded, and Progressing while a
// rollout was in progress.
func (c *Controller) recordError(ctx context.Context, previous *nodev1alpha1.NodeSettingsStatus, syncErr error) error {
	inProgress := previous != nil && (previous.Phase == nodev1alpha1.NodeSettingsPhase(PhaseRollingOut) || previous.Phase == nodev1alpha1.NodeSettingsPhase(PhaseRollingBack))
	failed := condition{true, ReasonSyncError, syncErr.Error()}
	progressing := failed
	progressing.Status = inProgress
	if err := c.record(ctx, previous, nodeConditions{Progressing: progressing, Degraded: failed}); err != nil {
		return err
	}
	return syncErr
}

// record applies status.nodeSettings and the conditions; nothing is
// written when they are what we last applied.
func (c *Controller) record(ctx context.Context, s *nodev1alpha1.NodeSettingsStatus, conds nodeConditions) error {
	desired := applynodev1alpha1.NodeOperatorStatus()
	for _, a := range []struct {
		kind string
		condition
	}{{"Progressing", conds.Progressing}, {"Degraded", conds.Degraded}} {
		status := operatorv1.ConditionFalse
		if a.Status {
			status = operatorv1.ConditionTrue
		}
		desired.WithConditions(operatorclient.Condition(Prefix+a.kind, status, a.Reason, a.Message))
	}
	if s != nil {
		desired.WithNodeSettings(applyStatus(s))
	}
	if err := c.nodeOperators.ApplyStatus(ctx, FieldManager, desired); err != nil {
		return err
	}
	c.mem.recorded = &record{status: s}
	return nil
}

func applyStatus(s *nodev1alpha1.NodeSettingsStatus) *applynodev1alpha1.NodeSettingsStatusApplyConfiguration {
	// The API omits an empty string rather than storing "".
	set := func(with func(string), v string) {
		if v != "" {
			with(v)
		}
	}
	out := applynodev1alpha1.NodeSettingsStatus().WithPhase(s.Phase)
	set(func(v string) { out.WithTarget(v) }, s.Target)
	set(func(v string) { out.WithMessage(v) }, s.Message)
	if ref := s.OpenTelemetryCollector; ref.Name != "" {
		out.WithOpenTelemetryCollector(applynodev1alpha1.OpenTelemetryCollectorReference().WithNamespace(ref.Namespace).WithName(ref.Name))
	}
	for _, p := range s.Pools {
		pool := applynodev1alpha1.NodeSettingsPoolStatus().WithName(p.Name).WithState(p.State)
		if p.Since != nil {
			pool.WithSince(*p.Since)
		}
		set(func(v string) { pool.WithTarget(v) }, p.Target)
		set(func(v string) { pool.WithRevision(v) }, p.Revision)
		set(func(v string) { pool.WithLastGood(v) }, p.LastGood)
		set(func(v string) { pool.WithRollbackTo(v) }, p.RollbackTo)
		set(func(v string) { pool.WithReason(v) }, p.Reason)
		set(func(v string) { pool.WithMessage(v) }, p.Message)
		out.WithPools(pool)
	}
	return out
}

// RelatedObjects are what must-gather collects for a rollout: each pool
// it covers, our MachineConfig of the pool where there is one, MCO's
// MachineConfiguration holding our node disruption policy entries, and our
// OpenTelemetryCollector while it exists.
func RelatedObjects(s *nodev1alpha1.NodeSettingsStatus) []configv1.ObjectReference {
	if s == nil {
		return nil
	}
	out := []configv1.ObjectReference{{Group: platform.MachineConfigurationGVR.Group, Resource: platform.MachineConfigurationGVR.Resource, Name: nodedisruption.MachineConfigurationName}}
	if ref, ok := collectorOf(s); ok {
		out = append(out, configv1.ObjectReference{Group: platform.OpenTelemetryCollectorGVR.Group, Resource: platform.OpenTelemetryCollectorGVR.Resource, Namespace: ref.Namespace, Name: ref.Name})
	}
	for _, p := range s.Pools {
		out = append(out, configv1.ObjectReference{Group: platform.MachineConfigPoolGVR.Group, Resource: platform.MachineConfigPoolGVR.Resource, Name: p.Name})
		if p.Revision != "" {
			out = append(out, configv1.ObjectReference{Group: platform.MachineConfigGVR.Group, Resource: platform.MachineConfigGVR.Resource, Name: MachineConfigName(p.Name)})
		}
	}
	return out
}

// collectorOf is the recorded OpenTelemetryCollector: the typed field, or
// the deprecated "namespace/name" of status the previous release wrote
// (docs/api.md, "Compatibility"), until this release's first status write
// replaces it.
func collectorOf(s *nodev1alpha1.NodeSettingsStatus) (nodev1alpha1.OpenTelemetryCollectorReference, bool) {
	if s == nil {
		return nodev1alpha1.OpenTelemetryCollectorReference{}, false
	}
	if s.OpenTelemetryCollector.Name != "" {
		return s.OpenTelemetryCollector, true
	}
	ns, name, ok := strings.Cut(s.Collector, "/")
	return nodev1alpha1.OpenTelemetryCollectorReference{Namespace: ns, Name: name}, ok && ns != "" && name != ""
}

func statusFromRollout(r Rollout) *nodev1alpha1.NodeSettingsStatus {
	out := &nodev1alpha1.NodeSettingsStatus{Target: string(r.Target), Phase: nodev1alpha1.NodeSettingsPhase(r.Phase), Message: r.Message}
	for _, p := range r.Pools {
		out.Pools = append(out.Pools, nodev1alpha1.NodeSettingsPoolStatus{
			Name: p.Name, Target: string(p.Target), Revision: string(p.Revision), LastGood: string(p.LastGood),
			RollbackTo: string(p.RollbackTo), State: nodev1alpha1.NodeSettingsPoolState(p.State),
			// Seconds, as the API server keeps them, so that what we apply
			// compares equal to what we read back.
			Since:  &metav1.Time{Time: p.Since.Truncate(time.Second)},
			Reason: p.Reason, Message: p.Message,
		})
	}
	return out
}

func rolloutFromStatus(s *nodev1alpha1.NodeSettingsStatus) Rollout {
	if s == nil {
		return Rollout{}
	}
	r := Rollout{Target: Revision(s.Target), Phase: Phase(s.Phase), Message: s.Message}
	for _, p := range s.Pools {
		r.Pools = append(r.Pools, PoolStatus{
			Name: p.Name, Target: Revision(p.Target), Revision: Revision(p.Revision), LastGood: Revision(p.LastGood),
			RollbackTo: Revision(p.RollbackTo), State: PoolState(p.State), Since: sinceOf(p.Since),
			Reason: p.Reason, Message: p.Message,
		})
	}
	return r
}

// sinceOf reads a pool's since; the zero time when it is missing.
func sinceOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}
