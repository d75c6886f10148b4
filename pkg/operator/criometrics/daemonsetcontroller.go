package criometrics

import (
	"context"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslistersv1 "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/criometricscerts"
	"github.com/openshift/cluster-node-operator/pkg/operator/crioplatform"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// switchPollInterval is how often the stack looks at its parts while it
	// switches modes or is removed (a few seconds, then never again). Each
	// look can take the next step of the teardown order, so it bounds how
	// long removal takes: at 5 s, make bench measured a median of 4.9 s
	// from opt-out to the DaemonSet gone.
	switchPollInterval = time.Second
	// firstStepsPollInterval is how often it looks while a removal waits
	// for its first steps, the ServiceMonitor and the MachineConfigs, for
	// at most firstStepsWindow from the removal's start. Other controllers
	// take those steps within milliseconds; nothing this controller watches
	// changes when the ServiceMonitor goes, and its look (its status says
	// what is left) is what wakes the node config controller for the
	// next step. A removal held by a failure is looked at every second.
	firstStepsPollInterval = 200 * time.Millisecond
	firstStepsWindow       = 5 * time.Second
	// DaemonSetName is the own TLS path's kube-rbac-proxy DaemonSet, in
	// the operator's namespace.
	DaemonSetName         = "crio-metrics"
	daemonSetFieldManager = "CRIOMetricsDaemonSet"
)

type daemonSetController struct {
	clock          clock.PassiveClock
	nodeOperators  *operatorclient.NodeOperators
	operatorClient v1helpers.OperatorClient
	kube           kubernetes.Interface
	dynamic        dynamic.Interface
	served         *stack.ServedAPIs
	observer       *TLSObserver
	crioPlatform   *crioplatform.Detector
	images         stack.Images
	conditions     stack.Conditions
	daemonSets     appslistersv1.DaemonSetLister
	configMaps     corev1listers.ConfigMapLister
	apiServers     configlistersv1.APIServerLister

	// serviceMonitorSeen: the ServiceMonitor, the last part built, was seen
	// since the stack last entered Build. Until the intent changes, the
	// syncs of a rollout (one per DaemonSet status change, thousands on a
	// large cluster) then need no GET to know that no switch is under way.
	serviceMonitorSeen bool
	// tearingDownSince: the first sync of the current removal; zero when
	// none is under way.
	tearingDownSince time.Time
}

// DaemonSetControllerName names the DaemonSet controller, its queue and its
// events.
const DaemonSetControllerName = "CRIOMetricsDaemonSet"

// NewDaemonSetController applies the crio-metrics DaemonSet (library-go has
// no DaemonSet controller) and reports the stack's Available, Progressing
// and Degraded conditions from its rollout; clk times the first rollout's
// grace.
//
// daemonSets and configMaps are informers of the operator's namespace;
// crioPlatform counts the nodes where the platform's proxy serves instead;
// observer says which parts of the own TLS stack exist. syncCtx is its
// queue, made by factory.NewSyncContext with DaemonSetControllerName, so
// that the node config controller can wake it (WakeSync) when it has taken
// the step before the DaemonSet's removal.
func NewDaemonSetController(clk clock.PassiveClock, nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	kube kubernetes.Interface, dyn dynamic.Interface, served *stack.ServedAPIs, observer *TLSObserver,
	daemonSets appsinformers.DaemonSetInformer, configMaps corev1informers.ConfigMapInformer,
	apiServers configinformersv1.APIServerInformer, crioPlatform *crioplatform.Detector,
	images stack.Images, syncCtx factory.SyncContext, recorder events.Recorder) factory.Controller {
	c := &daemonSetController{
		clock:          clk,
		nodeOperators:  nodeOperators,
		operatorClient: operatorClient,
		kube:           kube,
		dynamic:        dyn,
		served:         served,
		observer:       observer,
		crioPlatform:   crioPlatform,
		images:         images,
		conditions:     stack.Conditions{Prefix: Prefix},
		daemonSets:     daemonSets.Lister(),
		configMaps:     configMaps.Lister(),
		apiServers:     apiServers.Lister(),
	}
	return factory.New().
		WithInformers(nodeOperators.Informer(), daemonSets.Informer(), configMaps.Informer(), apiServers.Informer()).
		ResyncEvery(time.Minute).
		WithSync(c.syncDaemonSet).
		WithSyncContext(syncCtx).
		ToController(DaemonSetControllerName, recorder)
}

// WakeSync queues a sync of the controller whose queue syncCtx is, now.
func WakeSync(syncCtx factory.SyncContext) func() {
	return func() { syncCtx.Queue().Add(factory.DefaultQueueKey) }
}

func (c *daemonSetController) syncDaemonSet(ctx context.Context, syncCtx factory.SyncContext) error {
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
	}
	var generation *applyoperatorv1.GenerationStatusApplyConfiguration
	if intent != Build {
		c.serviceMonitorSeen = false
	}
	switch intent {
	case TearDown:
		o.TLS = c.observer.Observe(ctx, served, TearDown, true)
		if o.TLS.MayRemoveDaemonSet() {
			if err := c.remove(ctx); err != nil {
				o.Problem = problem(ReasonRemovalFailed, "%v", err)
			} else {
				o.TLS.DaemonSet = false
				c.observer.Forget()
			}
		}
		o.PlatformProxies = c.crioPlatform.RunningProxies()
	case Build:
		o.TLS = c.observeBuild(ctx, served)
		o.DaemonSet, generation, o.WaitingForCertificates, o.Problem, err = c.apply(ctx, syncCtx)
		if err != nil {
			return err
		}
	}
	// The steps of a switch are taken by other controllers, which this
	// one's status (what is left) wakes through the NodeOperator: look again
	// soon while one is under way, rather than at the next resync.
	tearingDown := intent == TearDown && len(o.TLS.Remaining()) > 0
	switch {
	case !tearingDown:
		c.tearingDownSince = time.Time{}
	case c.tearingDownSince.IsZero():
		c.tearingDownSince = o.Now
	}
	if _, _, switching := SwitchStatus(intent, state.Decision.Mode, o.TLS, served.Monitoring); switching || tearingDown {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), nextLook(intent, o.TLS, o.Now.Sub(c.tearingDownSince)))
	}
	conds := conditionsFor(o)
	return c.report(ctx, generation,
		c.conditions.Available(conds.Available.Status, conds.Available.Reason, conds.Available.Message),
		c.conditions.Progressing(conds.Progressing.Status, conds.Progressing.Reason, conds.Progressing.Message),
		c.conditions.Degraded(conds.Degraded.Status, conds.Degraded.Reason, conds.Degraded.Message))
}

// nextLook is how soon a switch or removal under way is looked at again;
// sinceStart is the time since the removal's first sync.
func nextLook(intent Intent, t TLSStack, sinceStart time.Duration) time.Duration {
	if intent == TearDown && !t.MayRemoveDaemonSet() && sinceStart < firstStepsWindow {
		return firstStepsPollInterval
	}
	return switchPollInterval
}

// observeBuild is what a sync in Build needs of the own TLS stack: whether
// the ServiceMonitor is there yet (SwitchStatus), read with a GET until it
// has been seen once. A failed read counts as there for this sync only.
func (c *daemonSetController) observeBuild(ctx context.Context, served platform.ServedAPIs) TLSStack {
	if c.serviceMonitorSeen || !served.Monitoring {
		return TLSStack{ServiceMonitor: c.serviceMonitorSeen}
	}
	_, err := c.dynamic.Resource(serviceMonitorGVR).Namespace(namespace).Get(ctx, serviceName, metav1.GetOptions{})
	c.serviceMonitorSeen = err == nil
	return TLSStack{ServiceMonitor: !apierrors.IsNotFound(err)}
}

// apply renders and applies the DaemonSet. A problem that stops it is
// returned for the status, with the cached DaemonSet; err is for a failed
// read of our own state, retried.
func (c *daemonSetController) apply(ctx context.Context, syncCtx factory.SyncContext) (
	ds *appsv1.DaemonSet, generation *applyoperatorv1.GenerationStatusApplyConfiguration, waiting bool, prob *condition, err error) {
	cached, _ := c.daemonSets.DaemonSets(namespace).Get(DaemonSetName)
	caBundle, err := c.configMaps.ConfigMaps(namespace).Get(criometricscerts.CABundleName)
	switch {
	case apierrors.IsNotFound(err):
		return cached, nil, true, nil, nil
	case err != nil:
		return nil, nil, false, nil, err
	}
	tlsArgs, err := TLSArgs(c.tlsProfile())
	if err != nil {
		return cached, nil, false, problem(ReasonInvalidTLSSecurityProfile,
			"apiserver.config.openshift.io/cluster spec.tlsSecurityProfile cannot be used: %v; kube-rbac-proxy keeps its previous settings", err), nil
	}
	// The copy of the monitoring client CA, once the static resources
	// controller has written it (scrapeauth.go).
	clientCA, _ := c.configMaps.ConfigMaps(namespace).Get(ClientCAConfigMap)
	required, err := RenderDaemonSet(c.images, tlsArgs, caBundle.Data[criometricscerts.CABundleKey],
		clientCA != nil && holdsCertificate(clientCA.Data[ClientCAKey]))
	if err != nil {
		return cached, nil, false, problem(ReasonInvalidConfiguration, "%v", err), nil
	}
	_, opStatus, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return nil, nil, false, nil, err
	}
	applied, _, err := resourceapply.ApplyDaemonSet(ctx, c.kube.AppsV1(), syncCtx.Recorder(), required,
		resourcemerge.ExpectedDaemonSetGeneration(required, opStatus.Generations))
	if err != nil {
		return cached, nil, false, problem(ReasonApplyFailed, "unable to apply DaemonSet %s/%s: %v", namespace, DaemonSetName, err), nil
	}
	generation = applyoperatorv1.GenerationStatus().
		WithGroup("apps").WithResource("daemonsets").WithNamespace(namespace).WithName(DaemonSetName).
		WithLastGeneration(applied.Generation)
	return applied, generation, false, nil, nil
}

// report writes the conditions and the DaemonSet's generation; library-go
// skips the write when nothing changed.
func (c *daemonSetController) report(ctx context.Context, generation *applyoperatorv1.GenerationStatusApplyConfiguration,
	conds ...*applyoperatorv1.OperatorConditionApplyConfiguration) error {
	status := applyoperatorv1.OperatorStatus().WithConditions(conds...)
	if generation != nil {
		status.WithGenerations(generation)
	}
	return c.operatorClient.ApplyOperatorStatus(ctx, daemonSetFieldManager, status)
}

func (c *daemonSetController) remove(ctx context.Context) error {
	if _, err := c.daemonSets.DaemonSets(namespace).Get(DaemonSetName); apierrors.IsNotFound(err) {
		return nil
	}
	err := c.kube.AppsV1().DaemonSets(namespace).Delete(ctx, DaemonSetName, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// tlsProfile is the cluster's TLS security profile; nil (Intermediate) when
// the APIServer "cluster" does not exist.
func (c *daemonSetController) tlsProfile() *configv1.TLSSecurityProfile {
	apiServer, err := c.apiServers.Get("cluster")
	if err != nil {
		return nil
	}
	return apiServer.Spec.TLSSecurityProfile
}
