package criometrics

import (
	"context"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// NewStaticResourcesController applies (or deletes) with library-go the
// stack's RBAC and Service, its ServiceMonitor, and the alerts and dashboard,
// in the order path.go explains. It resyncs every minute, which bounds how
// long an edited or deleted object stays wrong, without a watch per kind.
func NewStaticResourcesController(nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	kube kubernetes.Interface, dyn dynamic.Interface, served *stack.ServedAPIs, recorder events.Recorder) stack.Runnable {
	clients := resourceapply.NewClientHolder().
		WithKubernetes(kube).
		WithDynamicClient(dyn)

	state := func() stack.State {
		s, _ := stack.Read(nodeOperators, nodev1alpha1.MetricsStack)
		return s
	}
	intent := func() Intent { return IntentFor(state()) }
	tlsStack := func() TLSStack {
		return ObserveTLSStack(context.TODO(), dyn, served.Get(), false)
	}
	monitoring := func() bool { return served.Get().Monitoring }
	exists := func(files ...string) bool {
		return stack.AnyExists(context.TODO(), dyn, monitoringAsset(state), files...)
	}
	// Alerts and the dashboard serve both modes, rendered for the job that
	// scrapes CRI-O, so a switch updates them in place.
	onTopOfEitherPath := func() bool {
		s := state()
		return s.Act && s.Enabled && s.Decision.Mode != ""
	}
	off := func() bool {
		s := state()
		return s.Act && s.Decided && !s.Enabled
	}

	return staticresourcecontroller.NewStaticResourceController(
		"CRIOMetricsStaticResources", bindata.Asset, nil, clients, operatorClient, recorder,
	).
		WithConditionalResources(bindata.Asset, staticFiles,
			func() bool { return intent() == Build },
			func() bool { return intent() == TearDown && exists(staticFiles...) && tlsStack().MayRemoveRest() }).
		WithConditionalResources(bindata.Asset, []string{serviceMonitorFile},
			func() bool {
				return intent() == Build && monitoring() && tlsStack().MayCreateServiceMonitor(served.Get().MachineConfig)
			},
			func() bool { return intent() == TearDown && monitoring() && exists(serviceMonitorFile) }).
		WithConditionalResources(monitoringAsset(state), []string{prometheusRuleFile},
			func() bool { return onTopOfEitherPath() && monitoring() },
			func() bool { return off() && monitoring() && exists(prometheusRuleFile) }).
		WithConditionalResources(monitoringAsset(state), []string{dashboardFile},
			onTopOfEitherPath,
			func() bool { return off() && exists(dashboardFile) })
}

// monitoringAsset renders the alerts and the dashboard for the job that
// scrapes CRI-O in the stack's mode; the alerts about the operator's own TLS
// stack only where it runs.
func monitoringAsset(state func() stack.State) resourceapply.AssetFunc {
	return func(name string) ([]byte, error) {
		mode := state().Decision.Mode
		job := OperatorJob
		if mode == nodev1alpha1.PlatformProxy {
			job = PlatformJob
		}
		switch name {
		case prometheusRuleFile:
			return RenderPrometheusRule(job, mode != nodev1alpha1.PlatformProxy)
		case dashboardFile:
			return RenderDashboard(job), nil
		}
		return bindata.Asset(name)
	}
}
