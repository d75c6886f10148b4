package criometrics

import (
	"context"
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslistersv1 "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// switchPollInterval is how often the stack looks at its parts while it
	// switches modes or is removed (a few seconds, then never again).
	switchPollInterval    = 2 * time.Second
	daemonSetName         = "crio-metrics"
	daemonSetFieldManager = "CRIOMetricsDaemonSet"
)

type daemonSetController struct {
	deps       stack.Deps
	conditions stack.Conditions
	daemonSets appslistersv1.DaemonSetLister
	configMaps corev1listers.ConfigMapLister
	apiServers configlistersv1.APIServerLister
}

// newDaemonSetController applies the crio-metrics DaemonSet (library-go has
// no DaemonSet controller) and reports the stack's Available, Progressing
// and Degraded conditions from its rollout.
func newDaemonSetController(deps stack.Deps) stack.Runnable {
	informers := deps.KubeInformers.InformersFor(namespace)
	daemonSets := informers.Apps().V1().DaemonSets()
	configMaps := informers.Core().V1().ConfigMaps()
	apiServers := deps.ClusterConfig.Config().V1().APIServers()
	c := &daemonSetController{
		deps:       deps,
		conditions: stack.Conditions{Prefix: Prefix},
		daemonSets: daemonSets.Lister(),
		configMaps: configMaps.Lister(),
		apiServers: apiServers.Lister(),
	}
	return factory.New().
		WithInformers(deps.NodeOperators.Informer(), daemonSets.Informer(), configMaps.Informer(), apiServers.Informer(), deps.CRIOPlatform.Informer()).
		ResyncEvery(time.Minute).
		WithSync(c.syncDaemonSet).
		ToController("CRIOMetricsDaemonSet", deps.Recorder)
}

func (c *daemonSetController) syncDaemonSet(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := stack.Read(c.deps.NodeOperators, nodev1alpha1.MetricsStack)
	if err != nil {
		return err
	}
	switch IntentFor(state) {
	case Hold:
		if state.Act && state.Enabled && state.Decision.Mode == "" {
			// Guessing "no platform path" could break the platform's
			// job="crio", so nothing node-side is deployed until the lookup
			// works; a lookup that keeps failing turns Degraded after inertia.
			return c.report(ctx, nil,
				c.conditions.Available(true, "PlatformPathUnknown", state.Decision.Message),
				c.conditions.Progressing(false, "PlatformPathUnknown", ""),
				c.conditions.Degraded(true, "PlatformPathUnknown", "nothing is deployed on nodes until the operator can tell whether the machine-config operator's kube-rbac-proxy-crio serves CRI-O metrics: "+state.Decision.Message))
		}
		return nil
	case TearDown:
		return c.tearDown(ctx, syncCtx, state)
	}

	caBundle, err := c.configMaps.ConfigMaps(namespace).Get(certrotation.CABundleName)
	if apierrors.IsNotFound(err) {
		return c.report(ctx, nil,
			c.conditions.Available(true, "WaitingForCertificates", stack.Join(state.Decision.Message, "deploying: waiting for the CRI-O metrics CA bundle to be created")),
			c.conditions.Progressing(true, "WaitingForCertificates", "waiting for the CRI-O metrics certificates"),
			c.conditions.Degraded(false, "AsExpected", ""))
	}
	if err != nil {
		return err
	}
	tlsArgs, err := TLSArgs(c.tlsProfile())
	if err != nil {
		return c.report(ctx, nil, c.conditions.Degraded(true, "InvalidTLSSecurityProfile",
			fmt.Sprintf("apiserver.config.openshift.io/cluster spec.tlsSecurityProfile cannot be used: %v; kube-rbac-proxy keeps its previous settings", err)))
	}
	required, err := RenderDaemonSet(c.deps.Images, tlsArgs, caBundle.Data[certrotation.CABundleKey])
	if err != nil {
		return c.report(ctx, nil, c.conditions.Degraded(true, "InvalidConfiguration", err.Error()))
	}

	_, opStatus, _, err := c.deps.OperatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	ds, _, err := resourceapply.ApplyDaemonSet(ctx, c.deps.KubeClient.AppsV1(), syncCtx.Recorder(), required,
		resourcemerge.ExpectedDaemonSetGeneration(required, opStatus.Generations))
	if err != nil {
		return c.report(ctx, nil, c.conditions.Degraded(true, "ApplyFailed", fmt.Sprintf("unable to apply DaemonSet %s/%s: %v", namespace, daemonSetName, err)))
	}

	rollout := Rollout(ds, time.Now())
	if reason, message, ok := SwitchStatus(Build, nodev1alpha1.OperatorTLS,
		ObserveTLSStack(ctx, c.deps.DynamicClient, c.deps.Served.Get()), c.deps.Served.Get()); ok {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), switchPollInterval)
		if !rollout.Progressing {
			rollout.Progressing, rollout.SwitchReason, rollout.SwitchMessage = true, reason, message
		}
	}
	message := stack.Join(rollout.Message, state.Decision.Message)
	generation := applyoperatorv1.GenerationStatus().
		WithGroup("apps").WithResource("daemonsets").WithNamespace(namespace).WithName(daemonSetName).
		WithLastGeneration(ds.Generation)
	degraded := c.conditions.Degraded(false, "AsExpected", "")
	if rollout.TooManyUnavailable {
		degraded = c.conditions.Degraded(true, "NodesWithoutMetrics", rollout.Message)
	}
	return c.report(ctx, generation,
		c.conditions.Available(rollout.Available, availableReason(rollout), message),
		c.conditions.Progressing(rollout.Progressing, progressingReason(rollout), progressingMessage(rollout)),
		degraded)
}

func availableReason(r RolloutState) string {
	switch {
	case r.Deploying:
		return "Deploying"
	case r.Available:
		return "AsExpected"
	}
	return "NoNodeServesMetrics"
}

func progressingReason(r RolloutState) string {
	switch {
	case r.SwitchReason != "":
		return r.SwitchReason
	case r.Progressing:
		return "RollingOut"
	}
	return "AsExpected"
}

func progressingMessage(r RolloutState) string {
	switch {
	case r.SwitchReason != "":
		return r.SwitchMessage
	case r.Progressing:
		return r.Message
	}
	return ""
}

// tearDown removes the DaemonSet once the ServiceMonitor and the drop-in
// MachineConfigs are gone (path.go), and reports the stack: off, or served
// by the platform's kube-rbac-proxy-crio.
func (c *daemonSetController) tearDown(ctx context.Context, syncCtx factory.SyncContext, state stack.State) error {
	served := c.deps.Served.Get()
	tls := ObserveTLSStack(ctx, c.deps.DynamicClient, served)
	// The steps are taken by other controllers, which this one's status
	// (what is left) wakes through the NodeOperator: look again soon while
	// something is left, rather than at the next resync.
	if len(tls.Remaining()) > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), switchPollInterval)
	}
	if tls.MayRemoveDaemonSet() {
		if err := c.remove(ctx); err != nil {
			return c.report(ctx, nil, c.conditions.Degraded(true, "RemovalFailed", err.Error()))
		}
		tls.DaemonSet = false
	}
	if !state.Enabled {
		progressing := c.conditions.Progressing(false, "NotDeployed", "")
		if left := tls.Remaining(); len(left) > 0 {
			progressing = c.conditions.Progressing(true, "Removing", "removing in order: "+strings.Join(left, ", "))
		}
		return c.report(ctx, nil,
			c.conditions.Available(true, "NotDeployed", state.Decision.Message),
			progressing,
			c.conditions.Degraded(false, "NotDeployed", ""))
	}
	progressing := c.conditions.Progressing(false, "AsExpected", "")
	if reason, message, ok := SwitchStatus(TearDown, nodev1alpha1.PlatformProxy, tls, served); ok {
		progressing = c.conditions.Progressing(true, reason, message)
	}
	return c.report(ctx, nil,
		c.conditions.Available(true, string(nodev1alpha1.PlatformProxy), stack.Join(PlatformProxyNodes(c.deps.CRIOPlatform.RunningProxies()), state.Decision.Message)),
		progressing,
		c.conditions.Degraded(false, "AsExpected", ""))
}

// PlatformProxyNodes says on how many nodes the platform's proxy runs. MCO
// labels the static pod only since 4.16, so on older clusters the count is
// not known.
func PlatformProxyNodes(n int) string {
	if n == 0 {
		return "kube-rbac-proxy-crio runs on every node of MCO's pools (no mirror pod labelled k8s-app=kube-rbac-proxy-crio to count: MCO before 4.16 does not label them)"
	}
	return fmt.Sprintf("kube-rbac-proxy-crio serves CRI-O metrics on %d nodes", n)
}

// report writes the conditions and the DaemonSet's generation; library-go
// skips the write when nothing changed.
func (c *daemonSetController) report(ctx context.Context, generation *applyoperatorv1.GenerationStatusApplyConfiguration,
	conds ...*applyoperatorv1.OperatorConditionApplyConfiguration) error {
	status := applyoperatorv1.OperatorStatus().WithConditions(conds...)
	if generation != nil {
		status.WithGenerations(generation)
	}
	return c.deps.OperatorClient.ApplyOperatorStatus(ctx, daemonSetFieldManager, status)
}

func (c *daemonSetController) remove(ctx context.Context) error {
	if _, err := c.daemonSets.DaemonSets(namespace).Get(daemonSetName); apierrors.IsNotFound(err) {
		return nil
	}
	err := c.deps.KubeClient.AppsV1().DaemonSets(namespace).Delete(ctx, daemonSetName, metav1.DeleteOptions{})
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
