package criometrics

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const nodeConfigFieldManager = "CRIOMetricsNodeConfig"

var (
	sccGVR             = schema.GroupVersionResource{Group: "security.openshift.io", Version: "v1", Resource: "securitycontextconstraints"}
	machineConfigGVR   = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	machineConfigRoles = []string{"master", "worker"}
)

func machineConfigName(role string) string { return "50-" + role + "-crio-metrics-tls" }

// RenderMachineConfig returns the MachineConfig that installs the static
// CRI-O drop-in on the nodes of a pool.
func RenderMachineConfig(role string) (*unstructured.Unstructured, error) {
	dropIn := url.PathEscape(string(bindata.MustAsset("metrics/crio-dropin.conf")))
	raw := strings.NewReplacer("${ROLE}", role, "${DROPIN}", dropIn).Replace(string(bindata.MustAsset("metrics/machineconfig.yaml")))
	return stack.ReadUnstructured([]byte(raw))
}

func renderSCC() (*unstructured.Unstructured, error) {
	return stack.ReadUnstructured(bindata.MustAsset(sccFile))
}

type nodeConfigController struct {
	nodeOperators  *operatorclient.NodeOperators
	operatorClient v1helpers.OperatorClient
	dynamic        dynamic.Interface
	served         *stack.ServedAPIs
	observer       *TLSObserver
	// machineConfigsRemoved wakes the DaemonSet controller, which takes
	// the next step of the teardown: nothing it watches changes when the
	// MachineConfigs go, and its own poll would add up to a second.
	machineConfigsRemoved func()
	recorder              events.Recorder
	clock                 clock.PassiveClock
	// waitingSince is when the drop-in MachineConfigs began to wait for
	// MCO's node disruption policy for the reason waitingFor. In memory
	// only: a restarted operator gives a wait its grace again, unless
	// Degraded already reports it (reportedPersisting).
	waitingSince time.Time
	waitingFor   string
}

// NewNodeConfigController keeps the SecurityContextConstraints and the CRI-O
// drop-in MachineConfigs, kinds that library-go's resourceapply does not
// handle, and, before the MachineConfigs, the drop-in's entry in MCO's node
// disruption policy (disruptionpolicy.go): the MachineConfigs are written
// (or deleted) only once MCO's status lists the entry. It applies only
// when the live object differs from ours. observer says which parts of
// the own TLS stack exist; machineConfigsRemoved is called when a removal
// deleted the MachineConfigs (path.go: the DaemonSet may go next).
func NewNodeConfigController(nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	dyn dynamic.Interface, served *stack.ServedAPIs, observer *TLSObserver, machineConfigsRemoved func(), recorder events.Recorder) factory.Controller {
	c := &nodeConfigController{nodeOperators: nodeOperators, operatorClient: operatorClient, dynamic: dyn, served: served,
		observer: observer, machineConfigsRemoved: machineConfigsRemoved, recorder: recorder, clock: clock.RealClock{}}
	return factory.New().
		WithInformers(nodeOperators.Informer()).
		ResyncEvery(time.Minute).
		WithSync(c.syncNodeConfig).
		ToController("CRIOMetricsNodeConfig", recorder)
}

func (c *nodeConfigController) syncNodeConfig(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := stack.Read(c.nodeOperators, nodev1alpha1.MetricsStack)
	intent := IntentFor(state)
	if err != nil || intent == Hold {
		return err
	}
	wait, syncErr := c.reconcile(ctx, intent)
	now := c.clock.Now()
	if wait != c.waitingFor {
		// Not waiting, or waiting for something new (MCO created the
		// object; our entry went in): a new wait has its grace again.
		c.waitingSince, c.waitingFor = now, wait
	}
	persists := nodedisruption.Persists(c.waitingSince, now) || c.reportedPersisting(wait)
	conds := nodeConfigConditions(wait, persists, syncErr)
	if err := stack.ApplyConditions(ctx, c.operatorClient, nodeConfigFieldManager, conds...); err != nil {
		return err
	}
	if wait != "" && !persists && syncErr == nil {
		// MCO's operator normally lists the entry within seconds: look
		// again soon rather than at the next resync. A wait past its
		// grace is looked at on the resync only.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), waitRecheck)
	}
	return syncErr
}

// reportedPersisting: the Degraded condition already reports this wait as
// persisting (written before this process started, which keeps the time
// of the wait only in memory); a restart must not take it back.
func (c *nodeConfigController) reportedPersisting(wait string) bool {
	if wait == "" || c.operatorClient == nil {
		return false
	}
	_, status, _, err := c.operatorClient.GetOperatorState()
	if err != nil || status == nil {
		return false
	}
	cond := v1helpers.FindOperatorCondition(status.Conditions, nodeConfigConditionPrefix+"Degraded")
	return cond != nil && cond.Status == operatorv1.ConditionTrue && cond.Reason == ReasonDisruptionPolicyNotReady && cond.Message == MachineConfigsHeldBack+wait
}

// waitRecheck is how soon a sync looks again while the MachineConfigs wait.
const waitRecheck = 2 * time.Second

// Reasons of the CRIOMetricsNodeConfig conditions, and the start of the
// message while the drop-in MachineConfigs wait (a nodedisruption.Wait*
// message follows).
const (
	ReasonWaitingForDisruptionPolicy = "WaitingForNodeDisruptionPolicy"
	ReasonDisruptionPolicyNotReady   = "NodeDisruptionPolicyNotReady"
	MachineConfigsHeldBack           = "CRI-O drop-in MachineConfigs held back: "
	nodeConfigConditionPrefix        = "CRIOMetricsNodeConfig"
	nodeConfigReasonAsExpected       = "AsExpected"
	nodeConfigReasonSyncError        = "SyncError"
)

// nodeConfigConditions: Progressing while the drop-in MachineConfigs wait
// for MCO's node disruption policy, with the wait's stable reason;
// Degraded for a sync error, or once the wait has outlasted its grace
// (persists). Nothing in the messages changes while a wait or an error
// lasts.
func nodeConfigConditions(wait string, persists bool, syncErr error) []*applyoperatorv1.OperatorConditionApplyConfiguration {
	conds := stack.Conditions{Prefix: nodeConfigConditionPrefix}
	progressing := conds.Progressing(false, nodeConfigReasonAsExpected, "")
	degraded := conds.Degraded(false, nodeConfigReasonAsExpected, "")
	if wait != "" {
		msg := MachineConfigsHeldBack + wait
		progressing = conds.Progressing(true, ReasonWaitingForDisruptionPolicy, msg)
		if persists {
			degraded = conds.Degraded(true, ReasonDisruptionPolicyNotReady, msg)
		}
	}
	if syncErr != nil {
		degraded = conds.Degraded(true, nodeConfigReasonSyncError, syncErr.Error())
	}
	return []*applyoperatorv1.OperatorConditionApplyConfiguration{progressing, degraded}
}

// reconcile applies or removes the stack's node configuration. It returns
// why the drop-in MachineConfigs wait, if they do. Removal keeps the
// drop-in MachineConfigs while the ServiceMonitor still sends a scraper to
// the proxy, and the SCC while the DaemonSet exists (path.go).
func (c *nodeConfigController) reconcile(ctx context.Context, intent Intent) (string, error) {
	enabled := intent == Build
	scc, err := renderSCC()
	if err != nil {
		return "", err
	}
	served := c.served.Get()
	var errs []string
	tls := TLSStack{}
	if !enabled {
		tls = c.observer.Observe(ctx, served, TearDown, false)
	}
	// MCO's daemon decides a node's disruption from MachineConfiguration
	// cluster's status when it updates the node, so the drop-in
	// MachineConfigs are created or deleted only once the status lists
	// our entry (package nodedisruption); without it every node would
	// drain and reboot. The entry stays on removal (disruptionpolicy.go).
	touchMachineConfigs := served.MachineConfig && (enabled || (tls.MayRemoveMachineConfigs() && tls.MachineConfigs))
	wait := ""
	if touchMachineConfigs {
		if !served.MachineConfiguration {
			wait = nodedisruption.WaitNotServed
		} else {
			wrote, w, err := ensureDisruptionPolicy(ctx, c.dynamic)
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("MachineConfiguration %s node disruption policy: %v; %sthe entry must be in place first", MachineConfigurationName, err, MachineConfigsHeldBack))
				touchMachineConfigs = false
			case wrote:
				c.recorder.Eventf("CRIOMetricsNodeConfig", "applied node disruption policy entry for %s (restart %s) to MachineConfiguration %s", DropInPath, crioService, MachineConfigurationName)
			}
			wait = w
		}
		if wait != "" {
			touchMachineConfigs = false
		}
	}
	type object struct {
		gvr schema.GroupVersionResource
		obj *unstructured.Unstructured
	}
	var objects []object
	if enabled || tls.MayRemoveRest() {
		objects = append(objects, object{sccGVR, scc})
	}
	if touchMachineConfigs {
		for _, role := range machineConfigRoles {
			mc, err := RenderMachineConfig(role)
			if err != nil {
				return "", err
			}
			objects = append(objects, object{machineConfigGVR, mc})
		}
	}
	removedMachineConfigs := false
	for _, o := range objects {
		var changed bool
		var err error
		if enabled {
			changed, err = stack.ApplyUnstructured(ctx, c.dynamic, o.gvr, o.obj, nodeConfigFieldManager)
		} else {
			changed, err = stack.DeleteUnstructured(ctx, c.dynamic, o.gvr, o.obj)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s %s: %v", o.obj.GetKind(), o.obj.GetName(), err))
			continue
		}
		if changed {
			verb := "applied"
			if !enabled {
				verb = "deleted"
				removedMachineConfigs = removedMachineConfigs || o.gvr == machineConfigGVR
			}
			c.recorder.Eventf("CRIOMetricsNodeConfig", "%s %s %s", verb, o.obj.GetKind(), o.obj.GetName())
		}
	}
	if removedMachineConfigs {
		c.observer.Forget()
		c.machineConfigsRemoved()
	}
	if len(errs) > 0 {
		return wait, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return wait, nil
}
