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
// observer says which parts of the own TLS stack exist.
func NewStaticResourcesController(nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	kube kubernetes.Interface, dyn dynamic.Interface, served *stack.ServedAPIs, observer *TLSObserver, scrapeAuth *ScrapeAuthLookup, recorder events.Recorder) stack.Runnable {
	clients := resourceapply.NewClientHolder().
		WithKubernetes(kube).
		WithDynamicClient(dyn)

	state := func() stack.State {
		s, _ := stack.Read(nodeOperators, nodev1alpha1.MetricsStack)
		return s
	}
	tlsStack := func(s stack.State) TLSStack {
		return observer.Observe(context.TODO(), served.Get(), IntentFor(s), false)
	}
	monitoring := func() bool { return served.Get().Monitoring }
	exists := func(files ...string) bool {
		return stack.AnyExists(context.TODO(), dyn, monitoringAsset(state), files...)
	}
	build := func(s stack.State) bool { return IntentFor(s) == Build }
	tearDown := func(s stack.State) bool { return IntentFor(s) == TearDown }
	// Alerts and the dashboard serve both modes, rendered for the job that
	// scrapes CRI-O, so a switch updates them in place.
	onTopOfEitherPath := func(s stack.State) bool { return s.Act && s.Enabled && s.Decision.Mode != "" }
	off := func(s stack.State) bool { return s.Act && s.Decided && !s.Enabled }

	c := staticresourcecontroller.NewStaticResourceController(
		"CRIOMetricsStaticResources", bindata.Asset, nil, clients, operatorClient, recorder,
	)
	add := func(asset resourceapply.AssetFunc, files []string, create, remove func(stack.State) bool) {
		shouldCreate, shouldDelete := agreeing(state, create, remove)
		c = c.WithConditionalResources(asset, files, shouldCreate, shouldDelete)
	}
	add(bindata.Asset, staticFiles, build,
		func(s stack.State) bool { return tearDown(s) && exists(staticFiles...) && tlsStack(s).MayRemoveRest() })
	// The copy of CMO's metrics client CA, once CMO has one; the
	// ServiceMonitor scrapes with CMO's client certificate where its
	// scrape class exists (scrapeauth.go).
	add(scrapeAuthAsset(scrapeAuth), []string{clientCAConfigMapFile},
		func(s stack.State) bool { return build(s) && scrapeAuth.Get(context.TODO()).ClientCA != "" },
		func(s stack.State) bool {
			return tearDown(s) && exists(clientCAConfigMapFile) && tlsStack(s).MayRemoveRest()
		})
	add(scrapeAuthAsset(scrapeAuth), []string{serviceMonitorFile},
		func(s stack.State) bool {
			return build(s) && monitoring() && tlsStack(s).MayCreateServiceMonitor(served.Get().MachineConfig)
		},
		func(s stack.State) bool { return tearDown(s) && monitoring() && exists(serviceMonitorFile) })
	add(monitoringAsset(state), []string{prometheusRuleFile},
		func(s stack.State) bool { return onTopOfEitherPath(s) && monitoring() },
		func(s stack.State) bool { return off(s) && monitoring() && exists(prometheusRuleFile) })
	add(monitoringAsset(state), []string{dashboardFile},
		onTopOfEitherPath,
		func(s stack.State) bool { return off(s) && exists(dashboardFile) })
	return c
}

// agreeing returns a group's create and delete conditions reading the
// stack's state once: library-go asks one right after the other, and two
// reads of the informer cache can straddle a spec change and answer yes to
// both, which library-go reports as an error ("cannot create and delete at
// the same time"), retried with backoff and flashed in the status.
func agreeing(state func() stack.State, create, remove func(stack.State) bool) (shouldCreate, shouldDelete func() bool) {
	var seen stack.State
	return func() bool { seen = state(); return create(seen) },
		func() bool { return remove(seen) }
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
