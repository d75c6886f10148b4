package criometrics

import (
	"context"
	"fmt"
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
		WithInformers(deps.NodeOperators.Informer(), daemonSets.Informer(), configMaps.Informer(), apiServers.Informer()).
		ResyncEvery(time.Minute).
		WithSync(c.syncDaemonSet).
		ToController("CRIOMetricsDaemonSet", deps.Recorder)
}

func (c *daemonSetController) syncDaemonSet(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := stack.Read(c.deps.NodeOperators, nodev1alpha1.MetricsStack)
	if err != nil || !state.Act || !state.Decided {
		return err
	}
	if !state.Enabled {
		if err := c.remove(ctx); err != nil {
			return c.report(ctx, nil, c.conditions.Degraded(true, "RemovalFailed", err.Error()))
		}
		return c.report(ctx, nil,
			c.conditions.Available(true, "NotDeployed", state.Decision.Message),
			c.conditions.Progressing(false, "NotDeployed", ""),
			c.conditions.Degraded(false, "NotDeployed", ""))
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
	if r.Progressing {
		return "RollingOut"
	}
	return "AsExpected"
}

func progressingMessage(r RolloutState) string {
	if r.Progressing {
		return r.Message
	}
	return ""
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
