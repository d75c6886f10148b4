// Package stackdecision runs the platform decision and records it in the
// NodeOperator's status.stacks, where the stack controllers read it.
package stackdecision

import (
	"context"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// FieldManager owns status.stacks and the StackDecision conditions.
	FieldManager = "NodeOperatorStackDecision"
	// ConditionDegraded is True while the Infrastructure cannot be read. The
	// ClusterOperator turns Degraded only after library-go's inertia.
	ConditionDegraded = "StackDecisionDegraded"
	// resync is also how often optional APIs are looked up in discovery
	// and MCO's base kubelet MachineConfigs are read (six GETs); a CRD or
	// MachineConfig watch would cost a watch for a rare event, and a
	// shorter period most of the steady-state read budget
	// (docs/benchmarks.md).
	resync = 2 * time.Minute
)

type controller struct {
	nodeOperators *operatorclient.NodeOperators
	infraLister   configlistersv1.InfrastructureLister
	served        func() platform.ServedAPIs
	platformPath  func(ctx context.Context, machineConfigServed, fresh bool) platform.PlatformCRIOMetrics
}

// New returns the controller that decides which stacks are deployed. served
// says which optional APIs the cluster serves (see ServedAPIs); platformPath
// looks up the platform's own CRI-O metrics path (each resync, with an
// answer up to crioplatform.LookupTTL old: it appears or goes within 130 s);
// fresh asks it not to answer from an earlier lookup.
func New(nodeOperators *operatorclient.NodeOperators, infraInformer configinformersv1.InfrastructureInformer,
	served func() platform.ServedAPIs,
	platformPath func(ctx context.Context, machineConfigServed, fresh bool) platform.PlatformCRIOMetrics,
	recorder events.Recorder) factory.Controller {
	c := &controller{
		nodeOperators: nodeOperators,
		infraLister:   infraInformer.Lister(),
		served:        served,
		platformPath:  platformPath,
	}
	return factory.New().
		WithInformers(nodeOperators.Informer(), infraInformer.Informer()).
		ResyncEvery(resync).
		WithSync(c.sync).
		ToController("StackDecision", recorder)
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	nodeOperator, err := c.nodeOperators.Get()
	if err != nil {
		// The status controller reports a missing NodeOperator.
		klog.V(4).Infof("StackDecision: %v", err)
		return nil
	}
	if nodeOperator.Spec.ManagementState == operatorv1.Unmanaged {
		return nil
	}

	infra, err := c.infraLister.Get("cluster")
	switch {
	case apierrors.IsNotFound(err):
		infra = nil
	case err != nil:
		klog.Warningf("StackDecision: unable to read Infrastructure cluster: %v", err)
		infra = nil
	}

	// Written once per old spelling; the decision below reads the
	// converted spec whether or not the write succeeds.
	var convertErr error
	if patch := SpecPatch(nodeOperator); patch != nil {
		convertErr = c.nodeOperators.PatchSpec(ctx, patch)
	}

	served := c.served()
	decision := platform.Decide(platform.Input{
		Infrastructure:      infra,
		Spec:                ConvertSpec(nodeOperator.Spec),
		Served:              served,
		Previous:            recorded(nodeOperator),
		PlatformCRIOMetrics: c.lookUpPlatformPath(ctx, served, infra, !stack.Current(nodeOperator)),
	})
	if err := c.nodeOperators.ApplyStatus(ctx, FieldManager, statusFor(decision).WithObservedGeneration(nodeOperator.Generation)); err != nil {
		return err
	}
	return convertErr
}

// lookUpPlatformPath looks for the platform's CRI-O metrics path. A hosted
// control plane's cluster runs no MCO (and the stack is off there): nothing
// to look for. A decision for a new spec looks afresh (fresh): an opt-in
// must not build the own TLS stack on a lookup from before the platform
// path appeared; the syncs that the controllers' own status writes cause
// may reuse a recent one. While discovery has not answered for MCO's API,
// its MachineConfigs are read anyway: found, they prove the path; not
// found, nothing is proven and the lookup is a problem, so the last mode
// stands (guessing "no platform path" would break the platform's scrape).
func (c *controller) lookUpPlatformPath(ctx context.Context, served platform.ServedAPIs, infra *configv1.Infrastructure, fresh bool) platform.PlatformCRIOMetrics {
	if hosted(infra) {
		return c.platformPath(ctx, false, fresh)
	}
	path := c.platformPath(ctx, served.MaybeServed(platform.MachineConfigGVR), fresh)
	if !served.Known(platform.MachineConfigGVR) && !path.Exists() {
		problem := platform.NotAnswered(platform.MachineConfigGVR)
		if path.Problem != "" {
			problem += "; " + path.Problem
		}
		path.Problem = problem
	}
	return path
}

func hosted(infra *configv1.Infrastructure) bool {
	return infra != nil && infra.Status.ControlPlaneTopology == configv1.ExternalTopologyMode
}

// statusFor turns a decision into the status fields this controller owns.
func statusFor(decision platform.Decision) *applynodev1alpha1.NodeOperatorStatusApplyConfiguration {
	status := applynodev1alpha1.NodeOperatorStatus()
	for _, s := range decision.Stacks() {
		stack := applynodev1alpha1.StackStatus().
			WithName(s.Name).WithState(s.State).WithEnabled(s.Enabled).WithReason(s.Reason).WithMessage(s.Message)
		if s.Mode != "" {
			stack.WithMode(s.Mode)
		}
		status.WithStacks(stack)
	}
	degraded := operatorclient.Condition(ConditionDegraded, operatorv1.ConditionFalse, "AsExpected", "")
	if decision.InfrastructureProblem != "" {
		degraded = operatorclient.Condition(ConditionDegraded, operatorv1.ConditionTrue, platform.ReasonInfrastructureUnavailable,
			decision.InfrastructureProblem+": keeping the last decision for each stack; check the config.openshift.io/v1 Infrastructure named cluster")
	}
	status.WithConditions(degraded)
	return status
}

// recorded returns status.stacks with the decisions of the previous release
// converted.
func recorded(nodeOperator *nodev1alpha1.NodeOperator) []nodev1alpha1.StackStatus {
	out := make([]nodev1alpha1.StackStatus, 0, len(nodeOperator.Status.Stacks))
	for _, s := range nodeOperator.Status.Stacks {
		out = append(out, stack.ConvertStatus(s))
	}
	return out
}
