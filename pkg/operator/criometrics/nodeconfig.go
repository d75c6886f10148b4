package criometrics

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
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
}

// NewNodeConfigController keeps the SecurityContextConstraints and the CRI-O
// drop-in MachineConfigs, kinds that library-go's resourceapply does not
// handle, and, before the MachineConfigs, the drop-in's entry in MCO's node
// disruption policy (disruptionpolicy.go). It applies only when the live
// object differs from ours. observer says which parts of the own TLS stack
// exist; machineConfigsRemoved is called when a removal deleted the
// MachineConfigs (path.go: the DaemonSet may go next).
func NewNodeConfigController(nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	dyn dynamic.Interface, served *stack.ServedAPIs, observer *TLSObserver, machineConfigsRemoved func(), recorder events.Recorder) factory.Controller {
	c := &nodeConfigController{nodeOperators: nodeOperators, operatorClient: operatorClient, dynamic: dyn, served: served,
		observer: observer, machineConfigsRemoved: machineConfigsRemoved, recorder: recorder}
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
	notes, syncErr := c.reconcile(ctx, intent)
	cond := stack.Conditions{Prefix: "CRIOMetricsNodeConfig"}.Degraded(false, "AsExpected", strings.Join(notes, "; "))
	if syncErr != nil {
		cond = stack.Conditions{Prefix: "CRIOMetricsNodeConfig"}.Degraded(true, "SyncError", syncErr.Error())
	}
	if err := stack.ApplyConditions(ctx, c.operatorClient, nodeConfigFieldManager, cond); err != nil {
		return err
	}
	return syncErr
}

// reconcile applies or removes the stack's node configuration. It returns
// notes on parts skipped because MCO's API or object is missing. Removal
// keeps the drop-in MachineConfigs while the ServiceMonitor still sends a
// scraper to the proxy, and the SCC while the DaemonSet exists (path.go).
func (c *nodeConfigController) reconcile(ctx context.Context, intent Intent) ([]string, error) {
	enabled := intent == Build
	scc, err := renderSCC()
	if err != nil {
		return nil, err
	}
	served := c.served.Get()
	var notes, errs []string
	// The node disruption policy entry goes in before the MachineConfigs:
	// MCO decides how to roll out a rendered config when it renders it, so
	// an entry that comes after them would not spare the first rollout its
	// reboots. Without the entry in place (a failed write) the
	// MachineConfigs are held back. On removal the entry stays: see
	// ensureDisruptionPolicy.
	holdBack := false
	if enabled && served.MachineConfig {
		switch {
		case !served.MachineConfiguration:
			notes = append(notes, SkippedDisruptionPolicyNotServed)
		default:
			wrote, skipped, err := ensureDisruptionPolicy(ctx, c.dynamic)
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("MachineConfiguration %s node disruption policy: %v; CRI-O drop-in MachineConfigs held back until it is in place", MachineConfigurationName, err))
				holdBack = true
			case skipped != "":
				notes = append(notes, skipped)
			case wrote:
				c.recorder.Eventf("CRIOMetricsNodeConfig", "applied node disruption policy entry for %s (restart %s) to MachineConfiguration %s", DropInPath, crioService, MachineConfigurationName)
			}
		}
	}
	type object struct {
		gvr schema.GroupVersionResource
		obj *unstructured.Unstructured
	}
	var objects []object
	tls := TLSStack{}
	if !enabled {
		tls = c.observer.Observe(ctx, served, TearDown, false)
	}
	if enabled || tls.MayRemoveRest() {
		objects = append(objects, object{sccGVR, scc})
	}
	if served.MachineConfig && !holdBack && (enabled || tls.MayRemoveMachineConfigs()) {
		for _, role := range machineConfigRoles {
			mc, err := RenderMachineConfig(role)
			if err != nil {
				return nil, err
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
		return notes, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return notes, nil
}
