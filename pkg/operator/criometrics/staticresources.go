package criometrics

import (
	"context"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// newStaticResourcesController applies (or, when the stack is off, deletes)
// the RBAC, Service, ServiceMonitor and PrometheusRule with library-go. It
// resyncs every minute, which bounds how long an edited or deleted object
// stays wrong, without a watch per kind.
func newStaticResourcesController(deps stack.Deps) stack.Runnable {
	clients := resourceapply.NewClientHolder().
		WithKubernetes(deps.KubeClient).
		WithDynamicClient(deps.DynamicClient)

	enabled := func() bool {
		s, _ := stack.Read(deps.NodeOperators, nodev1alpha1.MetricsStack)
		return s.Act && s.Enabled
	}
	disabled := func() bool {
		s, _ := stack.Read(deps.NodeOperators, nodev1alpha1.MetricsStack)
		return s.Act && s.Decided && !s.Enabled
	}
	monitoring := func() bool { return deps.Served.Get().Monitoring }

	return staticresourcecontroller.NewStaticResourceController(
		"CRIOMetricsStaticResources", bindata.Asset, nil, clients, deps.OperatorClient, deps.Recorder,
	).
		WithConditionalResources(bindata.Asset, staticFiles, enabled,
			func() bool {
				return disabled() && stack.AnyExists(context.TODO(), deps.DynamicClient, bindata.Asset, staticFiles...)
			}).
		WithConditionalResources(bindata.Asset, monitoringFiles,
			func() bool { return enabled() && monitoring() },
			func() bool {
				return disabled() && monitoring() && stack.AnyExists(context.TODO(), deps.DynamicClient, bindata.Asset, monitoringFiles...)
			})
}
