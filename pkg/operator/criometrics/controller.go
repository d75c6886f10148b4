package criometrics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	librarycertrotation "github.com/openshift/library-go/pkg/operator/certrotation"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslistersv1 "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/crioplatform"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// ControllerName names the stack's controller, its queue and events,
	// and is the field manager of what it writes.
	ControllerName = "CRIOMetrics"
	// DaemonSetName is the own TLS path's kube-rbac-proxy DaemonSet, in
	// the operator's namespace.
	DaemonSetName = "crio-metrics"
	// rolloutKey is what a DaemonSet event queues: thousands while a large
	// cluster rolls out. Its sync takes no step and writes nothing; it
	// queues the full sync rolloutWindow later, and the delaying queue
	// keeps the earliest of those, so a rollout costs at most one full sync
	// per window. A DaemonSet gone from the cache (the removal's delete
	// event, or one deleted by hand) is answered at once.
	rolloutKey    = "rollout"
	rolloutWindow = 5 * time.Second
	// waitRecheck is how soon a sync looks again while the MachineConfigs
	// wait for MCO's node disruption policy: MCO's operator normally lists
	// our entry within seconds.
	waitRecheck = 2 * time.Second
	// resync is how often a sync reads again the parts no informer holds
	// (RBAC, Service, SCC, ServiceMonitor, alerts, dashboard, the drop-in
	// MachineConfigs, CMO's objects): one edited or deleted by hand is put
	// back within it. Every informer event, and every change of the
	// NodeOperator, syncs at once (a DaemonSet event within rolloutWindow).
	// Each such sync costs about 16 GETs, so a shorter period would miss
	// the steady-state read budget (docs/benchmarks.md).
	resync = 10 * time.Minute
)

// certificateExpiry feeds the CRIOMetricsCertificateNotRotated alert.
var certificateExpiry = metrics.NewGauge(&metrics.GaugeOpts{
	Name:           "cluster_node_operator_crio_metrics_certificate_expiry_timestamp_seconds",
	Help:           "Expiry of the CRI-O metrics serving certificate, in seconds since the epoch; 0 when none exists.",
	StabilityLevel: metrics.ALPHA,
})

func init() {
	legacyregistry.MustRegister(certificateExpiry)
}

type controller struct {
	clock          clock.PassiveClock
	nodeOperators  *operatorclient.NodeOperators
	operatorClient v1helpers.OperatorClient
	kube           kubernetes.Interface
	dynamic        dynamic.Interface
	clients        *resourceapply.ClientHolder
	cache          resourceapply.ResourceCache
	served         *platform.ServedCache
	scrapeAuth     *ScrapeAuthLookup
	crioPlatform   *crioplatform.Detector
	rotation       *certrotation.Rotation
	images         stack.Images
	conditions     stack.Conditions
	daemonSets     appslistersv1.DaemonSetLister
	// legacyDaemonSets holds the operator's namespace (legacy.go);
	// legacyGone: nothing else of an earlier release is left there.
	legacyDaemonSets appslistersv1.DaemonSetLister
	legacyGone       bool
	secrets          corev1listers.SecretLister
	configMaps       corev1listers.ConfigMapLister
	apiServers       configlistersv1.APIServerLister
	// monitoringConfigs holds only the cluster-monitoring operator's
	// ConfigMap (MonitoringConfigName, by field selector).
	monitoringConfigs corev1listers.ConfigMapLister
}

// Options are what the CRI-O metrics controller reads and writes through.
type Options struct {
	// Clock times the first rollout's grace and the disruption policy wait.
	Clock          clock.PassiveClock
	NodeOperators  *operatorclient.NodeOperators
	OperatorClient v1helpers.OperatorClient
	Kube           kubernetes.Interface
	Dynamic        dynamic.Interface
	Served         *platform.ServedCache
	// ScrapeAuth says how the platform Prometheus authenticates
	// (scrapeauth.go): the copy of CMO's metrics client CA, the DaemonSet's
	// --client-ca-file and the ServiceMonitor follow it; nil means a bearer
	// token.
	ScrapeAuth *ScrapeAuthLookup
	// CRIOPlatform counts the nodes where the platform's proxy serves.
	CRIOPlatform *crioplatform.Detector

	// Informers of the stack's namespace.
	DaemonSets appsinformers.DaemonSetInformer
	Secrets    corev1informers.SecretInformer
	ConfigMaps corev1informers.ConfigMapInformer
	// LegacyDaemonSets is an informer of the operator's namespace
	// (legacy.go).
	LegacyDaemonSets appsinformers.DaemonSetInformer
	APIServers       configinformersv1.APIServerInformer
	// MonitoringConfigs is an informer of MonitoringConfigNamespace that
	// holds only the ConfigMap MonitoringConfigName (its collection profile
	// is in the status).
	MonitoringConfigs corev1informers.ConfigMapInformer

	Images stack.Images
	// Timing is the certificates' validity and refresh. Rotation is
	// time-driven: the resync honours a short test validity.
	Timing   certrotation.Timing
	Recorder events.Recorder
}

// NewController returns the one controller of the CRI-O metrics stack. It
// builds, keeps and tears down, in the order path.go explains, on either
// path: RBAC, Service, SCC, certificates (library-go certrotation), the
// DaemonSet, the drop-in MachineConfigs (once MCO's node disruption policy
// lists our entry), the ServiceMonitor, and the alerts and dashboard; and
// it owns the Metrics conditions.
func NewController(o Options) factory.Controller {
	c := newController(o)
	resync := resync
	if o.Timing.ServingRefresh/4 < resync {
		resync = o.Timing.ServingRefresh / 4
	}
	return factory.New().
		WithInformers(o.NodeOperators.Informer(), o.APIServers.Informer(), o.MonitoringConfigs.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(certrotation.SignerSecretName, certrotation.ServingSecretName, certrotation.CABundleName, ClientCAConfigMap),
			o.Secrets.Informer(), o.ConfigMaps.Informer()).
		WithFilteredEventsInformersQueueKeyFunc(func(runtime.Object) string { return rolloutKey },
			factory.NamesFilter(DaemonSetName), o.DaemonSets.Informer(), o.LegacyDaemonSets.Informer()).
		ResyncEvery(resync).
		WithSync(c.sync).
		ToController(ControllerName, o.Recorder)
}

func newController(o Options) *controller {
	return &controller{
		clock:             o.Clock,
		nodeOperators:     o.NodeOperators,
		operatorClient:    o.OperatorClient,
		kube:              o.Kube,
		dynamic:           o.Dynamic,
		clients:           resourceapply.NewClientHolder().WithKubernetes(o.Kube).WithDynamicClient(o.Dynamic),
		cache:             resourceapply.NewResourceCache(),
		served:            o.Served,
		scrapeAuth:        o.ScrapeAuth,
		crioPlatform:      o.CRIOPlatform,
		rotation:          certrotation.New(namespace, serviceName, o.Timing, o.Kube, o.Secrets, o.ConfigMaps, o.Recorder),
		images:            o.Images,
		conditions:        stack.Conditions{Prefix: Prefix},
		daemonSets:        o.DaemonSets.Lister(),
		legacyDaemonSets:  o.LegacyDaemonSets.Lister(),
		secrets:           o.Secrets.Lister(),
		configMaps:        o.ConfigMaps.Lister(),
		apiServers:        o.APIServers.Lister(),
		monitoringConfigs: o.MonitoringConfigs.Lister(),
	}
}

// sync reads the decision once, takes the steps it allows and reports.
// A removal takes one step per sync and requeues, so that the status says
// what is left between steps.
func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if syncCtx.QueueKey() == rolloutKey {
		// Every sync that writes the status has taken every step: no
		// partial sync can clear what a full one found. An earlier
		// release's DaemonSet, while its pods go, holds the new one back:
		// its events wait for the window too.
		_, err := c.daemonSets.DaemonSets(namespace).Get(DaemonSetName)
		_, legacyErr := c.legacyDaemonSets.DaemonSets(legacyNamespace).Get(DaemonSetName)
		if apierrors.IsNotFound(err) && apierrors.IsNotFound(legacyErr) {
			syncCtx.Queue().Add(factory.DefaultQueueKey)
		} else {
			syncCtx.Queue().AddAfter(factory.DefaultQueueKey, rolloutWindow)
		}
		return nil
	}
	state, err := stack.Read(c.nodeOperators, nodev1alpha1.MetricsStack)
	if err != nil {
		return err
	}
	intent := IntentFor(state)
	if intent == Hold && !(state.Act && state.Enabled) {
		return nil
	}
	served := c.served.Get()
	o := observation{
		Decision:         state.Decision,
		Intent:           intent,
		MonitoringServed: served.Monitoring,
		Now:              c.clock.Now(),
		Profile:          c.monitoringProfile(),
	}
	var generation *applyoperatorv1.GenerationStatusApplyConfiguration
	var errs []error
	tookStep := false
	old := c.observeLegacy(ctx)
	plan := planLegacy(intent, old, false)
	if plan.DeleteDaemonSet {
		if err := c.takeLegacy(ctx, syncCtx.Recorder(), plan); err != nil {
			o.addProblem(ReasonRemovalFailed, "%v", err)
			errs = append(errs, err)
		}
	}
	switch intent {
	case Build:
		var stepErrs []error
		generation, stepErrs = c.build(ctx, syncCtx.Recorder(), state, served, &o, plan.HoldDaemonSet)
		errs = append(errs, stepErrs...)
	case TearDown:
		var stepErrs []error
		tookStep, stepErrs = c.tearDown(ctx, syncCtx.Recorder(), state, served, &o, old.DaemonSet || old.Rest)
		errs = append(errs, stepErrs...)
		o.PlatformProxies = c.crioPlatform.RunningProxies()
	}
	// The rest of the old objects once the new DaemonSet rolled out (or
	// none is coming).
	if plan = planLegacy(intent, old, rolledOut(o.DaemonSet)); plan.DeleteRest {
		if err := c.takeLegacy(ctx, syncCtx.Recorder(), plan); err != nil {
			o.addProblem(ReasonRemovalFailed, "%v", err)
			errs = append(errs, err)
		} else {
			// A teardown held back by them goes on at once.
			tookStep = true
		}
	}
	heldBack := operatorclient.Condition(Prefix+ConditionHeldBack, operatorv1.ConditionFalse, ReasonAsExpected, "")
	if o.Waiting != "" {
		heldBack = operatorclient.Condition(Prefix+ConditionHeldBack, operatorv1.ConditionTrue, ReasonWaitingForDisruptionPolicy, MachineConfigsHeldBack+o.Waiting)
		o.WaitPersists = nodedisruption.Persists(c.heldBackSince(), o.Now)
	}

	conds := conditionsFor(o)
	status := applyoperatorv1.OperatorStatus().WithConditions(
		c.conditions.Available(conds.Available.Status, conds.Available.Reason, conds.Available.Message),
		c.conditions.Progressing(conds.Progressing.Status, conds.Progressing.Reason, conds.Progressing.Message),
		c.conditions.Degraded(conds.Degraded.Status, conds.Degraded.Reason, conds.Degraded.Message), heldBack)
	if generation != nil {
		status.WithGenerations(generation)
	}
	// library-go skips the write when nothing changed.
	if err := c.operatorClient.ApplyOperatorStatus(ctx, ControllerName, status); err != nil {
		return err
	}
	switch again, after := lookAgain(tookStep, o, len(errs) > 0); {
	case again && after == 0:
		syncCtx.Queue().Add(syncCtx.QueueKey())
	case again:
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), after)
	}
	// A failed request is retried with the queue's backoff; the status
	// already says it, and says it once.
	return errors.Join(errs...)
}

// lookAgain says whether, and how soon, a sync is followed by another
// before the resync: at once after a removal step, which takes one step
// per sync; while the drop-in MachineConfigs wait for MCO's policy, which
// no informer reports, every waitRecheck within the grace and every
// minute past it. A failed sync is retried with the queue's backoff
// instead.
func lookAgain(tookStep bool, o observation, failed bool) (bool, time.Duration) {
	switch {
	case tookStep:
		return true, 0
	case o.Waiting == "" || failed:
		return false, 0
	case !o.WaitPersists:
		return true, waitRecheck
	}
	return true, time.Minute
}

// heldBackSince is when the drop-in MachineConfigs began to wait, as the
// status records it: the lastTransitionTime of MetricsMachineConfigsHeldBack
// while it is True, which library-go keeps while the status stays True.
// Zero (a wait that begins now) otherwise. So a restarted process neither
// gives a wait its grace again nor takes back its Degraded.
func (c *controller) heldBackSince() time.Time {
	_, status, _, err := c.operatorClient.GetOperatorState()
	if err != nil || status == nil {
		return time.Time{}
	}
	cond := v1helpers.FindOperatorCondition(status.Conditions, Prefix+ConditionHeldBack)
	if cond == nil || cond.Status != operatorv1.ConditionTrue {
		return time.Time{}
	}
	return cond.LastTransitionTime.Time
}

// build applies the own TLS stack in order: the rest (RBAC, Service, SCC,
// certificates, the copy of CMO's metrics client CA), the DaemonSet, the drop-in MachineConfigs, and the
// ServiceMonitor once a proxy serves and CRI-O has the drop-in (path.go);
// and the alerts and dashboard. Each step is a no-op when in place.
//
// hold: an earlier release's DaemonSet still holds the host port
// (legacy.go); the new one is not applied yet.
func (c *controller) build(ctx context.Context, recorder events.Recorder, state stack.State, served platform.ServedAPIs, o *observation, hold bool) (
	*applyoperatorv1.GenerationStatusApplyConfiguration, []error) {
	var errs []error
	fail := func(reason string, err error) {
		o.addProblem(reason, "%v", err)
		errs = append(errs, err)
	}
	if err := c.applyFiles(ctx, recorder, bindata.Asset, staticFiles...); err != nil {
		fail(ReasonApplyFailed, err)
	}
	if err := c.applyNodeObject(ctx, recorder, platform.SecurityContextConstraintsGVR, renderSCC); err != nil {
		fail(ReasonApplyFailed, err)
	}
	if err := c.applyMonitoring(ctx, recorder, state, served); err != nil {
		fail(ReasonApplyFailed, err)
	}
	if err := c.rotation.Ensure(ctx); err != nil {
		fail(ReasonRotationFailed, fmt.Errorf("CRI-O metrics certificates: %w", err))
	}
	c.recordExpiry()
	// A cached answer, at most one look a minute.
	auth := c.scrapeAuth.Get(ctx)
	wroteCopy := false
	if auth.ClientCA != "" {
		// Before the DaemonSet, which mounts it.
		if err := c.applyFiles(ctx, recorder, scrapeAuthAsset(auth), clientCAConfigMapFile); err != nil {
			fail(ReasonApplyFailed, err)
		} else {
			wroteCopy = holdsCertificate(auth.ClientCA)
		}
	}

	var ds appliedDaemonSet
	if hold {
		ds.DaemonSet, _ = c.daemonSets.DaemonSets(namespace).Get(DaemonSetName)
		o.Moving = true
	} else {
		var err error
		if ds, err = c.applyDaemonSet(ctx, recorder, o, wroteCopy); err != nil {
			errs = append(errs, err)
		}
	}
	o.DaemonSet, o.WaitingForCertificates = ds.DaemonSet, ds.WaitingForCertificates
	if o.DaemonSet != nil {
		o.TLS.DaemonSet, o.TLS.DaemonSetServes = true, serves(o.DaemonSet)
	}

	// What an API discovery has not answered may hold is looked up too, so
	// that a discovery fault changes no condition.
	if served.MaybeServed(platform.ServiceMonitorGVR) {
		o.TLS.ServiceMonitor = c.exists(ctx, platform.ServiceMonitorGVR, namespace, serviceName)
	}
	if served.MachineConfig && o.DaemonSet != nil {
		var err error
		o.TLS.MachineConfigs, o.Waiting, err = c.applyMachineConfigs(ctx, recorder, served)
		if err != nil {
			fail(ReasonApplyFailed, err)
		}
	}
	if !o.TLS.MachineConfigs && served.MaybeServed(platform.MachineConfigGVR) {
		o.TLS.MachineConfigs = c.machineConfigsExist(ctx)
	}
	if served.Monitoring && (o.TLS.ServiceMonitor || o.TLS.MayCreateServiceMonitor(served.MaybeServed(platform.MachineConfigGVR))) {
		// A client certificate only where kube-rbac-proxy is told to trust
		// it: otherwise every scrape would be refused.
		auth.ClientCertificate = auth.ClientCertificate && ds.ClientCA
		if err := c.applyFiles(ctx, recorder, scrapeAuthAsset(auth), serviceMonitorFile); err != nil {
			fail(ReasonApplyFailed, err)
		} else {
			o.TLS.ServiceMonitor = true
		}
	}
	return ds.Generation, errs
}

// tearDown takes the next step of the own TLS stack's removal, the first
// one the TLSStack rules allow, and keeps the alerts and dashboard for the
// platform's path (or removes them with the stack). It reports whether it
// took a step, after which the next sync looks again at once.
//
// legacyLeft: an earlier release's objects are still in the operator's
// namespace; its ServiceMonitor may be among them, so the drop-ins stay.
func (c *controller) tearDown(ctx context.Context, recorder events.Recorder, state stack.State, served platform.ServedAPIs, o *observation, legacyLeft bool) (bool, []error) {
	certificateExpiry.Set(0)
	var errs []error
	if err := c.applyMonitoring(ctx, recorder, state, served); err != nil {
		o.addProblem(ReasonRemovalFailed, "%v", err)
		errs = append(errs, err)
	}
	t := c.observe(ctx, served)
	t.Legacy = legacyLeft
	var err error
	took := true
	switch {
	case t.ServiceMonitor:
		if err = c.deleteFiles(ctx, recorder, serviceMonitorFile); err == nil {
			t.ServiceMonitor = false
		}
	case t.MachineConfigs && t.MayRemoveMachineConfigs():
		t.MachineConfigs, o.Waiting, err = c.removeMachineConfigs(ctx, recorder, served)
		took = o.Waiting == ""
	case t.DaemonSet && t.MayRemoveDaemonSet():
		// Gone already: the informer's delete event wakes the next step.
		if took, err = c.deleteDaemonSet(ctx, recorder); err == nil {
			t.DaemonSet = false
		}
	case t.Rest && t.MayRemoveRest():
		if err = c.removeRest(ctx, recorder); err == nil {
			t.Rest = false
		}
	default:
		took = false
	}
	o.TLS = t
	if err != nil {
		o.addProblem(ReasonRemovalFailed, "%v", err)
		return false, append(errs, err)
	}
	return took, errs
}

// observe says which parts of the own TLS stack exist: the DaemonSet and
// the certificates from the informers, the kinds no informer holds with
// GETs. A failed read counts as existing, so nothing after it in the
// teardown order is removed early.
func (c *controller) observe(ctx context.Context, served platform.ServedAPIs) TLSStack {
	var t TLSStack
	// An API discovery has not answered may hold ours: the GET tells, and
	// a failed GET counts as existing.
	if served.MaybeServed(platform.ServiceMonitorGVR) {
		t.ServiceMonitor = c.exists(ctx, platform.ServiceMonitorGVR, namespace, serviceName)
	}
	if served.MaybeServed(platform.MachineConfigGVR) {
		t.MachineConfigs = c.machineConfigsExist(ctx)
	}
	if ds, err := c.daemonSets.DaemonSets(namespace).Get(DaemonSetName); !apierrors.IsNotFound(err) {
		t.DaemonSet, t.DaemonSetServes = true, err == nil && serves(ds)
	}
	t.Rest = c.certificatesLeft() || c.exists(ctx, platform.SecurityContextConstraintsGVR, "", sccName) ||
		stack.AnyExists(ctx, c.dynamic, bindata.Asset, staticFiles...)
	return t
}

// serves: a node's kube-rbac-proxy is available, or the DaemonSet
// controller has seen the DaemonSet and found no node for it (a DaemonSet
// just created has no status yet).
func serves(ds *appsv1.DaemonSet) bool {
	return ds.Status.NumberAvailable > 0 || ds.Status.DesiredNumberScheduled == 0 && ds.Status.ObservedGeneration > 0
}

func (c *controller) exists(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) bool {
	var err error
	if ns == "" {
		_, err = c.dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	} else {
		_, err = c.dynamic.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	}
	return !apierrors.IsNotFound(err)
}

func (c *controller) machineConfigsExist(ctx context.Context) bool {
	for _, name := range machineConfigNames() {
		if c.exists(ctx, platform.MachineConfigGVR, "", name) {
			return true
		}
	}
	return false
}

func (c *controller) certificatesLeft() bool {
	for _, name := range []string{certrotation.ServingSecretName, certrotation.SignerSecretName} {
		if _, err := c.secrets.Secrets(namespace).Get(name); !apierrors.IsNotFound(err) {
			return true
		}
	}
	for _, name := range []string{certrotation.CABundleName, ClientCAConfigMap} {
		if _, err := c.configMaps.ConfigMaps(namespace).Get(name); !apierrors.IsNotFound(err) {
			return true
		}
	}
	return false
}

// applyMonitoring keeps the alerts and the dashboard, which serve both
// paths, rendered for the job that scrapes CRI-O so that a switch updates
// them in place; an off stack removes them.
func (c *controller) applyMonitoring(ctx context.Context, recorder events.Recorder, state stack.State, served platform.ServedAPIs) error {
	files := []string{dashboardFile}
	if served.Monitoring {
		files = append([]string{prometheusRuleFile}, files...)
	}
	asset := monitoringAsset(state.Decision.Mode)
	if !state.Enabled {
		if !stack.AnyExists(ctx, c.dynamic, asset, files...) {
			return nil
		}
		return resultErrors(resourceapply.DeleteAll(ctx, c.clients, recorder, asset, files...))
	}
	return c.applyFiles(ctx, recorder, asset, files...)
}

func (c *controller) applyFiles(ctx context.Context, recorder events.Recorder, asset resourceapply.AssetFunc, files ...string) error {
	return resultErrors(resourceapply.ApplyDirectly(ctx, c.clients, recorder, c.cache, asset, files...))
}

// deleteFiles deletes what exists of the manifests: library-go's DeleteAll
// would send a DELETE for each, even for what is long gone.
func (c *controller) deleteFiles(ctx context.Context, recorder events.Recorder, files ...string) error {
	if !stack.AnyExists(ctx, c.dynamic, bindata.Asset, files...) {
		return nil
	}
	return resultErrors(resourceapply.DeleteAll(ctx, c.clients, recorder, bindata.Asset, files...))
}

func resultErrors(results []resourceapply.ApplyResult) error {
	var msgs []string
	for _, r := range results {
		if r.Error != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %v", r.File, r.Error))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

// applyNodeObject applies a kind that library-go's resourceapply does not
// handle, only when the live object differs from ours.
func (c *controller) applyNodeObject(ctx context.Context, recorder events.Recorder, gvr schema.GroupVersionResource, render func() (*unstructured.Unstructured, error)) error {
	obj, err := render()
	if err != nil {
		return err
	}
	changed, err := stack.ApplyUnstructured(ctx, c.dynamic, gvr, obj, ControllerName)
	if err != nil {
		return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	if changed {
		recorder.Eventf("CRIOMetricsApplied", "applied %s %s", obj.GetKind(), obj.GetName())
	}
	return nil
}

// disruptionPolicyReady applies our entry to MCO's node disruption policy
// and says why the MachineConfigs must wait, if they must. MCO's daemon
// decides a node's disruption from MachineConfiguration cluster's status
// when it updates the node, so the drop-in MachineConfigs are created or
// deleted only once the status lists our entry (package nodedisruption);
// without it every node would drain and reboot. The entry stays on removal
// (disruptionpolicy.go).
func (c *controller) disruptionPolicyReady(ctx context.Context, recorder events.Recorder, served platform.ServedAPIs) (string, error) {
	if wait := nodedisruption.WaitServed(served); wait != "" {
		return wait, nil
	}
	wrote, wait, err := ensureDisruptionPolicy(ctx, c.dynamic)
	if err != nil {
		return "", fmt.Errorf("MachineConfiguration %s node disruption policy: %w; %sthe entry must be in place first", MachineConfigurationName, err, MachineConfigsHeldBack)
	}
	if wrote {
		recorder.Eventf("CRIOMetricsDisruptionPolicy", "applied node disruption policy entry for %s (restart %s) to MachineConfiguration %s", DropInPath, crioService, MachineConfigurationName)
	}
	return wait, nil
}

// applyMachineConfigs applies the drop-in MachineConfigs once MCO's policy
// lists our entry; applied says they are in place.
func (c *controller) applyMachineConfigs(ctx context.Context, recorder events.Recorder, served platform.ServedAPIs) (applied bool, wait string, err error) {
	if wait, err = c.disruptionPolicyReady(ctx, recorder, served); wait != "" || err != nil {
		return false, wait, err
	}
	for _, role := range machineConfigRoles {
		if err := c.applyNodeObject(ctx, recorder, platform.MachineConfigGVR, func() (*unstructured.Unstructured, error) { return RenderMachineConfig(role) }); err != nil {
			return false, "", err
		}
	}
	return true, "", nil
}

// removeMachineConfigs deletes the drop-in MachineConfigs once MCO's policy
// lists our entry; left says some are still there.
func (c *controller) removeMachineConfigs(ctx context.Context, recorder events.Recorder, served platform.ServedAPIs) (left bool, wait string, err error) {
	if wait, err = c.disruptionPolicyReady(ctx, recorder, served); wait != "" || err != nil {
		return true, wait, err
	}
	for _, role := range machineConfigRoles {
		mc, err := RenderMachineConfig(role)
		if err != nil {
			return true, "", err
		}
		deleted, err := stack.DeleteUnstructured(ctx, c.dynamic, platform.MachineConfigGVR, mc)
		if err != nil {
			return true, "", fmt.Errorf("MachineConfig %s: %w", mc.GetName(), err)
		}
		if deleted {
			recorder.Eventf("CRIOMetricsRemoved", "deleted MachineConfig %s", mc.GetName())
		}
	}
	return false, "", nil
}

// deleteDaemonSet deletes the DaemonSet if the cache holds it; deleted is
// false when it was gone already.
func (c *controller) deleteDaemonSet(ctx context.Context, recorder events.Recorder) (bool, error) {
	if _, err := c.daemonSets.DaemonSets(namespace).Get(DaemonSetName); apierrors.IsNotFound(err) {
		return false, nil
	}
	err := c.kube.AppsV1().DaemonSets(namespace).Delete(ctx, DaemonSetName, metav1.DeleteOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("DaemonSet %s/%s: %w", namespace, DaemonSetName, err)
	}
	recorder.Eventf("CRIOMetricsRemoved", "deleted DaemonSet %s/%s", namespace, DaemonSetName)
	return true, nil
}

// removeRest deletes the RBAC, Service, SCC, certificates and the client
// CA copy (after the DaemonSet that mounts it), reading
// first so that what is gone costs no DELETE.
func (c *controller) removeRest(ctx context.Context, recorder events.Recorder) error {
	var errs []error
	errs = append(errs, c.deleteFiles(ctx, recorder, staticFiles...))
	if scc, err := renderSCC(); err != nil {
		errs = append(errs, err)
	} else if _, err := stack.DeleteUnstructured(ctx, c.dynamic, platform.SecurityContextConstraintsGVR, scc); err != nil {
		errs = append(errs, fmt.Errorf("SecurityContextConstraints %s: %w", sccName, err))
	}
	core := c.kube.CoreV1()
	for _, name := range []string{certrotation.ServingSecretName, certrotation.SignerSecretName} {
		if _, err := c.secrets.Secrets(namespace).Get(name); apierrors.IsNotFound(err) {
			continue
		}
		if err := core.Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	for _, name := range []string{certrotation.CABundleName, ClientCAConfigMap} {
		if _, err := c.configMaps.ConfigMaps(namespace).Get(name); apierrors.IsNotFound(err) {
			continue
		}
		if err := core.ConfigMaps(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// appliedDaemonSet is what applying the DaemonSet came to.
type appliedDaemonSet struct {
	// DaemonSet as applied or, when a problem stopped it, as cached; nil
	// when there is none.
	DaemonSet *appsv1.DaemonSet
	// Generation goes to status.generations, for the next apply's
	// expected generation; nil when nothing was applied.
	Generation *applyoperatorv1.GenerationStatusApplyConfiguration
	// ClientCA: rendered with --client-ca-file.
	ClientCA bool
	// WaitingForCertificates: the CA bundle does not exist yet.
	WaitingForCertificates bool
}

// applyDaemonSet renders and applies the DaemonSet once the CA bundle
// exists. A problem that stops it goes to the status, with the cached
// DaemonSet; the error is for a failed request, retried.
//
// wroteCopy: this sync applied the copy of CMO's client CA, holding a
// certificate, which the ConfigMap cache may not hold yet. So the choice
// follows from this sync and the caches alone, the same after a restart.
func (c *controller) applyDaemonSet(ctx context.Context, recorder events.Recorder, o *observation, wroteCopy bool) (appliedDaemonSet, error) {
	cached, _ := c.daemonSets.DaemonSets(namespace).Get(DaemonSetName)
	kept := appliedDaemonSet{DaemonSet: cached}
	caBundle, err := c.configMaps.ConfigMaps(namespace).Get(certrotation.CABundleName)
	switch {
	case apierrors.IsNotFound(err):
		kept.WaitingForCertificates = true
		return kept, nil
	case err != nil:
		return kept, err
	}
	tlsArgs, err := TLSArgs(c.tlsProfile())
	if err != nil {
		o.addProblem(ReasonInvalidTLSSecurityProfile,
			"apiserver.config.openshift.io/cluster spec.tlsSecurityProfile cannot be used: %v; kube-rbac-proxy keeps its previous settings", err)
		return kept, nil
	}
	// kube-rbac-proxy exits without the file: only once the copy holds a
	// certificate.
	copied, _ := c.configMaps.ConfigMaps(namespace).Get(ClientCAConfigMap)
	clientCA := wroteCopy || copied != nil && holdsCertificate(copied.Data[ClientCAKey])
	required, err := RenderDaemonSet(c.images, tlsArgs, caBundle.Data[certrotation.CABundleKey], clientCA)
	if err != nil {
		o.addProblem(ReasonInvalidConfiguration, "%v", err)
		return kept, nil
	}
	_, opStatus, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return kept, err
	}
	expected := resourcemerge.ExpectedDaemonSetGeneration(required, opStatus.Generations)
	applied := cached
	if cached == nil || !stack.InPlace(cached.ObjectMeta, required.ObjectMeta, required.Spec, expected) {
		applied, _, err = resourceapply.ApplyDaemonSet(ctx, c.kube.AppsV1(), recorder, required, expected)
		if err != nil {
			o.addProblem(ReasonApplyFailed, "unable to apply DaemonSet %s/%s: %v", namespace, DaemonSetName, err)
			return kept, err
		}
	}
	return appliedDaemonSet{
		DaemonSet: applied,
		Generation: applyoperatorv1.GenerationStatus().
			WithGroup("apps").WithResource("daemonsets").WithNamespace(namespace).WithName(DaemonSetName).
			WithLastGeneration(applied.Generation),
		ClientCA: clientCA,
	}, nil
}

// tlsProfile is the cluster's TLS security profile; nil (Intermediate) when
// the APIServer "cluster" does not exist.
func (c *controller) tlsProfile() *configv1.TLSSecurityProfile {
	apiServer, err := c.apiServers.Get("cluster")
	if err != nil {
		return nil
	}
	return apiServer.Spec.TLSSecurityProfile
}

func (c *controller) recordExpiry() {
	secret, err := c.secrets.Secrets(namespace).Get(certrotation.ServingSecretName)
	if err != nil {
		return
	}
	notAfter, err := time.Parse(time.RFC3339, secret.Annotations[librarycertrotation.CertificateNotAfterAnnotation])
	if err != nil {
		return
	}
	certificateExpiry.Set(float64(notAfter.Unix()))
}

// monitoringProfile is the collection profile from the cache; a missing
// ConfigMap means the default.
func (c *controller) monitoringProfile() MonitoringProfile {
	cm, err := c.monitoringConfigs.ConfigMaps(MonitoringConfigNamespace).Get(MonitoringConfigName)
	if err != nil {
		return ReadMonitoringProfile(nil)
	}
	return ReadMonitoringProfile(cm)
}
