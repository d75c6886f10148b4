// Package versioncontroller reports the operator's version on the
// ClusterOperator only once every operand has rolled out at that version, as
// the cluster-version operator expects during an upgrade, and says
// Progressing while it does.
package versioncontroller

import (
	"context"
	"errors"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/utils/clock"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
)

const (
	// OperandName is the name of the version the CVO waits for.
	OperandName = "operator"
	// ConditionProgressing is True while a new version rolls out.
	ConditionProgressing = "OperatorVersionProgressing"
	// Announce is how long Progressing=True stands before the new version is
	// reported, even when the operands are ready at once: the CVO and
	// origin's upgrade checks see that the update touched this operator.
	Announce     = 10 * time.Second
	fieldManager = "OperatorVersion"
)

type controller struct {
	operatorClient   v1helpers.OperatorClient
	nodeOperators    *operatorclient.NodeOperators
	clusterOperators configlistersv1.ClusterOperatorLister
	versionRecorder  status.VersionGetter
	version          string
	stackPrefixes    []string
	operands         Operands
	clock            clock.PassiveClock
}

// Operands tells the controller what the stacks run.
type Operands struct {
	// Workloads returns the DaemonSets and Deployments of a stack as its
	// recorded decision has it (none for a stack that is off), from
	// informers.
	Workloads func(nodev1alpha1.StackStatus) []Workload
	// Platform is the Infrastructure's platform type, for the summary.
	Platform func() configv1.PlatformType
	// Informers trigger a sync when an operand changes. The controller does
	// not wait for them to sync: versions[operator] never waits for them,
	// and a workload they have not listed yet counts as missing (the
	// containers of the last rollout stand).
	Informers []factory.Informer
}

// noWait is an informer the controller does not wait for.
type noWait struct{ factory.Informer }

func (noWait) HasSynced() bool { return true }

// Options are what the version controller reads and writes through.
type Options struct {
	OperatorClient v1helpers.OperatorClient
	NodeOperators  *operatorclient.NodeOperators
	// ClusterOperators tells which version the ClusterOperator reports
	// already: a restart at the same version is no upgrade.
	ClusterOperators configinformersv1.ClusterOperatorInformer
	VersionRecorder  status.VersionGetter
	// Version is this operator's.
	Version string
	// StackPrefixes name the stack controllers whose Available condition
	// the version waits for.
	StackPrefixes []string
	Operands      Operands
	Recorder      events.Recorder
}

// New returns a controller that sets version "operator" once no condition
// says that something is still progressing or unavailable, and every stack
// controller named in StackPrefixes has reported its Available condition.
// It also records, per stack in status.stacks, the version and the
// containers of the last complete rollout, and the one-line summary
// condition (StacksFieldManager).
func New(o Options) factory.Controller {
	c := &controller{
		operatorClient:   o.OperatorClient,
		nodeOperators:    o.NodeOperators,
		clusterOperators: o.ClusterOperators.Lister(),
		versionRecorder:  o.VersionRecorder,
		version:          o.Version,
		stackPrefixes:    o.StackPrefixes,
		operands:         o.Operands,
		clock:            clock.RealClock{},
	}
	informers := []factory.Informer{o.OperatorClient.Informer(), o.ClusterOperators.Informer()}
	for _, i := range o.Operands.Informers {
		informers = append(informers, noWait{i})
	}
	return factory.New().
		WithInformers(informers...).
		WithSync(c.sync).
		ToController("OperatorVersion", o.Recorder)
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	spec, st, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	if spec.ManagementState != operatorv1.Managed && spec.ManagementState != operatorv1.Removed {
		return nil
	}
	reported := c.versionRecorder.GetVersions()[OperandName]
	if reported == "" {
		reported = c.clusterOperatorVersion()
	}
	stacks, workloads, recorded := c.recordedWorkloads()
	step := NextStep(reported, c.version, st.Conditions, c.stackPrefixes, recorded && AllRolledOut(workloads), c.clock.Now())
	if step.Wait > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), step.Wait)
	}
	var versionErr error
	switch {
	case step.Announce:
		versionErr = c.progressing(ctx, operatorv1.ConditionTrue, "Upgrading", "rolling out version "+c.version)
	case step.Report:
		c.versionRecorder.SetVersion(OperandName, c.version)
		versionErr = c.progressing(ctx, operatorv1.ConditionFalse, "AsExpected", "")
	}
	if !recorded || c.nodeOperators == nil {
		return versionErr // the status controller reports a missing NodeOperator
	}
	return errors.Join(versionErr, c.applyStacks(ctx, stacks, workloads, st.Conditions, step.Report))
}

// applyStacks records each stack's observedVersion and containers, and the
// summary; the apply is skipped when nothing changed.
func (c *controller) applyStacks(ctx context.Context, stacks []nodev1alpha1.StackStatus, workloads map[nodev1alpha1.StackName][]Workload,
	conditions []operatorv1.OperatorCondition, versionReported bool) error {
	var platformType configv1.PlatformType
	if c.operands.Platform != nil {
		platformType = c.operands.Platform()
	}
	return c.nodeOperators.ApplyStatus(ctx, StacksFieldManager,
		stacksStatus(stacks, conditions, versionReported, c.version,
			func(s nodev1alpha1.StackStatus) []Workload { return workloads[s.Name] }, platformType))
}

// recordedWorkloads reads the recorded stacks and each one's workloads once
// a sync, for the version gate and for status.stacks; recorded is false
// while the NodeOperator cannot be read.
func (c *controller) recordedWorkloads() (stacks []nodev1alpha1.StackStatus, workloads map[nodev1alpha1.StackName][]Workload, recorded bool) {
	if c.nodeOperators == nil {
		return nil, nil, true
	}
	nodeOperator, err := c.nodeOperators.Get()
	if err != nil {
		return nil, nil, false
	}
	workloads = map[nodev1alpha1.StackName][]Workload{}
	for _, s := range nodeOperator.Status.Stacks {
		if c.operands.Workloads != nil {
			workloads[s.Name] = c.operands.Workloads(s)
		}
	}
	return nodeOperator.Status.Stacks, workloads, true
}

// AllRolledOut is true when every workload runs its latest template on
// every node or replica it wants. The stacks' Progressing conditions do not
// say this: by the ClusterOperator's contract a DaemonSet adjusting to a
// node that joins is not progressing, and from its counts neither is the
// last batch of a rollout whose old pods are gone but whose new ones are
// not yet created.
func AllRolledOut(workloads map[nodev1alpha1.StackName][]Workload) bool {
	for _, ws := range workloads {
		for _, w := range ws {
			if w.Missing || !w.RolledOut {
				return false
			}
		}
	}
	return true
}

func (c *controller) clusterOperatorVersion() string {
	co, err := c.clusterOperators.Get(operatorclient.ClusterOperatorName)
	if err != nil {
		return ""
	}
	for _, v := range co.Status.Versions {
		if v.Name == OperandName {
			return v.Version
		}
	}
	return ""
}

func (c *controller) progressing(ctx context.Context, s operatorv1.ConditionStatus, reason, message string) error {
	return c.operatorClient.ApplyOperatorStatus(ctx, fieldManager,
		applyoperatorv1.OperatorStatus().WithConditions(operatorclient.Condition(ConditionProgressing, s, reason, message)))
}

// Step is what the controller does next.
type Step struct {
	// Announce: write OperatorVersionProgressing=True.
	Announce bool
	// Report: set the version and OperatorVersionProgressing=False.
	Report bool
	// Wait: look again after this long.
	Wait time.Duration
}

// NextStep decides, from the version the ClusterOperator reports, the
// version of this process and the NodeOperator's conditions. A version that
// is reported already (a restart) needs no announcement; a new one (install,
// upgrade, downgrade) is announced with Progressing for Announce, then
// reported once every stack has rolled out (its conditions) and every
// workload has (AllRolledOut, from their status).
func NextStep(reported, version string, conditions []operatorv1.OperatorCondition, stackPrefixes []string, workloadsRolledOut bool, now time.Time) Step {
	own := v1helpers.FindOperatorCondition(conditions, ConditionProgressing)
	switch {
	case reported == version:
		return Step{Report: true}
	case own == nil || own.Status != operatorv1.ConditionTrue:
		return Step{Announce: true, Wait: Announce}
	case now.Sub(own.LastTransitionTime.Time) < Announce:
		return Step{Wait: Announce - now.Sub(own.LastTransitionTime.Time)}
	case RolledOut(conditions, stackPrefixes) && workloadsRolledOut:
		return Step{Report: true}
	}
	return Step{}
}

// RolledOut is true when every stack has reported availability and every
// condition but this controller's own announcement is settled.
func RolledOut(conditions []operatorv1.OperatorCondition, stackPrefixes []string) bool {
	for _, prefix := range stackPrefixes {
		if v1helpers.FindOperatorCondition(conditions, prefix+operatorv1.OperatorStatusTypeAvailable) == nil {
			return false
		}
	}
	for _, cond := range conditions {
		if cond.Type != ConditionProgressing && !settled(cond) {
			return false
		}
	}
	return true
}

// settled is the one rule of a rolled-out condition: a Progressing one is
// False, an Available one True; other types have no say.
func settled(cond operatorv1.OperatorCondition) bool {
	switch {
	case strings.HasSuffix(cond.Type, operatorv1.OperatorStatusTypeProgressing):
		return cond.Status == operatorv1.ConditionFalse
	case strings.HasSuffix(cond.Type, operatorv1.OperatorStatusTypeAvailable):
		return cond.Status == operatorv1.ConditionTrue
	}
	return true
}
