// Package operator wires the node operator's controllers together.
package operator

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/managementstatecontroller"
	"github.com/openshift/library-go/pkg/operator/staleconditions"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/unsupportedconfigoverridescontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/features"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/pkg/operator/crioplatform"
	"github.com/openshift/cluster-node-operator/pkg/operator/launcher"
	"github.com/openshift/cluster-node-operator/pkg/operator/metricsclientca"
	"github.com/openshift/cluster-node-operator/pkg/operator/nmstate"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
	"github.com/openshift/cluster-node-operator/pkg/operator/stackdecision"
	"github.com/openshift/cluster-node-operator/pkg/operator/versioncontroller"
	"github.com/openshift/cluster-node-operator/pkg/operator/watchtimeout"
)

// staleConditionTypes lists condition types that earlier versions of this
// operator wrote and this one no longer does; they are removed on start so
// that they cannot hold the ClusterOperator in a stale state. Add a type here
// when a controller is renamed or removed.
var staleConditionTypes = []string{
	// The CRI-O metrics stack's steps were four controllers with their own
	// conditions before one controller took them (all under Metrics*).
	"CRIOMetricsNodeConfigProgressing", "CRIOMetricsNodeConfigDegraded",
	"CRIOMetricsStaticResourcesDegraded", "CertRotation_CRIOMetrics_Degraded",
}

// staleConditions adds, where the node settings gate is off, the conditions
// of the node settings controller, which then does not run: a condition
// left by a run with the gate on must not hold the ClusterOperator.
func staleConditions(nodeSettings bool) []string {
	if nodeSettings {
		return staleConditionTypes
	}
	return append(slices.Clone(staleConditionTypes), nodesettings.Prefix+"Progressing", nodesettings.Prefix+"Degraded")
}

// Options are the operator's own flags.
type Options struct {
	// CertTiming is the validity and refresh of the CRI-O metrics
	// certificates; tests shorten it to force rotations.
	CertTiming certrotation.Timing
	// NodeSettingsTiming bounds each pool's step of a node settings
	// rollout; tests shorten it.
	NodeSettingsTiming nodesettings.Timing
	// Prometheus is where the node settings health gate asks whether
	// CRI-O's metrics are scraped; an empty URL leaves that check out.
	Prometheus PrometheusOptions
}

// PrometheusOptions locate the cluster's Prometheus query API and the
// operator's credentials for it.
type PrometheusOptions struct {
	URL       string
	CAFile    string
	TokenFile string
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{CertTiming: certrotation.DefaultTiming, NodeSettingsTiming: nodesettings.DefaultTiming,
		Prometheus: PrometheusOptions{
			URL: nodesettings.DefaultPrometheusURL,
			// The service CA bundle injected into the ConfigMap the
			// Deployment mounts, and the pod's ServiceAccount token.
			CAFile:    "/var/run/configmaps/service-ca/service-ca.crt",
			TokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
		}}
}

// Validate checks the configuration from flags and environment.
func (o *Options) Validate() error {
	if os.Getenv("OPERATOR_IMAGE_VERSION") == "" {
		return fmt.Errorf("OPERATOR_IMAGE_VERSION must be set to the version of this operator")
	}
	if err := o.NodeSettingsTiming.Validate(); err != nil {
		return err
	}
	return o.CertTiming.Validate()
}

// RunOperator starts every controller and blocks until ctx is done.
func (o *Options) RunOperator(ctx context.Context, cc *launcher.Context) error {
	clk := clock.RealClock{}
	config := watchtimeout.Wrap(cc.KubeConfig, watchtimeout.Min)
	// A build of the CRI-O metrics stack is two full syncs (about 60
	// requests) and every status write wakes every controller, which reads
	// too: at 20/s (burst 40) an opt-in took 1 to 3 s (docs/benchmarks.md).
	config.QPS, config.Burst = 50, 100
	recorder := cc.EventRecorder

	operatorVersion := os.Getenv("OPERATOR_IMAGE_VERSION") // checked by Validate

	cl, err := newClients(config)
	if err != nil {
		return err
	}
	configClient, kubeClient, dynamicClient := cl.config, cl.kube, cl.dynamic
	scrapes, err := o.Prometheus.probe()
	if err != nil {
		return err
	}
	operatorClient, dynamicInformers, err := operatorclient.New(clk, config)
	if err != nil {
		return err
	}
	nodeOperators := operatorclient.NewNodeOperators(clk, operatorClient.Informer(), dynamicClient)

	// Cache only the cluster-scoped singletons we read, not every
	// ClusterOperator or config object in the cluster.
	clusterConfigInformers := configinformers.NewSharedInformerFactoryWithOptions(configClient, 0,
		configinformers.WithTweakListOptions(byName("cluster")))
	clusterOperatorInformers := configinformers.NewSharedInformerFactoryWithOptions(configClient, 0,
		configinformers.WithTweakListOptions(byName(operatorclient.ClusterOperatorName)))

	// Feature gates (docs/api.md): what a gate holds back is not started,
	// and a change of the gates ends the process, which starts again on
	// them. ClusterVersion is read, and watched, only by a build whose
	// version is the placeholder.
	clusterVersionInformers := configinformers.NewSharedInformerFactoryWithOptions(configClient, 0,
		configinformers.WithTweakListOptions(byName("version")))
	gateAccess := newFeatureGateAccess(operatorVersion, clusterConfigInformers.Config().V1().FeatureGates(),
		clusterVersionInformers.Config().V1().ClusterVersions(), recorder)
	clusterConfigInformers.Start(ctx.Done())
	if operatorVersion == versionPlaceholder {
		clusterVersionInformers.Start(ctx.Done())
	}
	go gateAccess.Run(ctx)
	gates, featureSet, err := waitForFeatureGates(ctx, gateAccess, clusterConfigInformers.Config().V1().FeatureGates())
	if err != nil {
		return err
	}
	if err := exitOnFeatureSetChange(clusterConfigInformers.Config().V1().FeatureGates(), featureSet, exitForNewGates); err != nil {
		return err
	}
	nodeSettings := gateEnabled(gates, featureSet, features.NodeOperatorNodeSettings)
	klog.Infof("feature set %s; feature gate %s enabled: %v", featureSet, features.NodeOperatorNodeSettings, nodeSettings)

	// Namespaced caches: the operator's namespace (the metrics client CA
	// copy; the CRI-O metrics DaemonSet an earlier release left there), the
	// CRI-O metrics namespace (its operands) and the NMState namespace;
	// MCO's kube-rbac-proxy-crio mirror pods, selected by label, in the
	// detector. No informer resync: each controller has its own period, and
	// a replayed DaemonSet would cost the CRI-O metrics controller a full
	// sync (the steady-state reads).
	kubeInformers := v1helpers.NewKubeInformersForNamespacesWithResyncPeriod(kubeClient, 0,
		operatorclient.OperatorNamespace, operatorclient.CRIOMetricsNamespace, operatorclient.NMStateNamespace)
	operatorNamespace := kubeInformers.InformersFor(operatorclient.OperatorNamespace)
	operands := kubeInformers.InformersFor(operatorclient.CRIOMetricsNamespace)
	nmstateNamespace := kubeInformers.InformersFor(operatorclient.NMStateNamespace)
	// The cluster-monitoring operator's configuration, the one ConfigMap:
	// its collection profile decides which CRI-O series Prometheus keeps.
	monitoringConfig := kubeinformers.NewSharedInformerFactoryWithOptions(kubeClient, 0,
		kubeinformers.WithNamespace(criometrics.MonitoringConfigNamespace),
		kubeinformers.WithTweakListOptions(byName(criometrics.MonitoringConfigName)))
	crioPlatform := crioplatform.NewDetector(kubeClient, dynamicClient, clk, crioplatform.LookupTTL)
	served := platform.NewServedCache(cl.discovery, clk, platform.ServedTTL)
	images := imagesFromEnv()

	metricsRelated, err := criometrics.RelatedObjects()
	if err != nil {
		return err
	}
	nmstateRelated, err := nmstate.RelatedObjects()
	if err != nil {
		return err
	}
	// The stacks in status order; the operator's version is reported once
	// each has said it is Available.
	stacks := []stackObjects{
		{name: nodev1alpha1.MetricsStack, related: metricsRelated},
		{name: nodev1alpha1.NMStateStack, related: nmstateRelated, handedOver: nmstate.HandedOver},
	}

	versionRecorder := status.NewVersionGetter()
	statusController := status.NewClusterOperatorStatusController(
		operatorclient.ClusterOperatorName,
		[]configv1.ObjectReference{
			{Group: nodev1alpha1.GroupName, Resource: nodev1alpha1.Resource, Name: nodev1alpha1.SingletonName},
			{Resource: "namespaces", Name: operatorclient.OperatorNamespace},
			{Resource: "namespaces", Name: operatorclient.CRIOMetricsNamespace},
		},
		configClient.ConfigV1(),
		clusterOperatorInformers.Config().V1().ClusterOperators(),
		operatorClient,
		versionRecorder,
		recorder,
		clk,
	)
	statusController.WithRelatedObjectsFunc(relatedObjects(nodeOperators, stacks))
	statusController = statusController.WithDegradedInertia(degradedInertia)

	// Every controller. Each writes its own conditions on the NodeOperator;
	// the status controller alone writes the ClusterOperator. What each
	// watches is docs/architecture.md's controller table, which
	// TestControllerTableMatchesInformers holds to the constructors.
	controllers := []stack.Runnable{
		// library-go: ClusterOperator status, management state, log level,
		// unsupported overrides, stale conditions.
		statusController,
		managementstatecontroller.NewOperatorManagementStateController(operatorclient.ClusterOperatorName, operatorClient, recorder),
		loglevel.NewClusterOperatorLoggingController(operatorClient, recorder),
		unsupportedconfigoverridescontroller.NewUnsupportedConfigOverridesController(operatorclient.ClusterOperatorName, operatorClient, recorder),
		staleconditions.NewRemoveStaleConditionsController(operatorclient.ClusterOperatorName, staleConditions(nodeSettings), operatorClient, recorder),
		// Which stacks, and how.
		stackdecision.New(nodeOperators, clusterConfigInformers.Config().V1().Infrastructures(), served.Get,
			crioPlatform.Detect, recorder),
		// versions[operator], and Progressing while a new one rolls out;
		// status.stacks[*].observedVersion and containers, and the
		// one-line summary.
		versioncontroller.New(versioncontroller.Options{OperatorClient: operatorClient, NodeOperators: nodeOperators,
			ClusterOperators: clusterOperatorInformers.Config().V1().ClusterOperators(), VersionRecorder: versionRecorder,
			Version: operatorVersion, StackPrefixes: stackNames(stacks),
			Operands: stackOperands(operands, nmstateNamespace, clusterConfigInformers.Config().V1().Infrastructures()), Recorder: recorder}),

		// CRI-O metrics.
		criometrics.NewController(criometrics.Options{Clock: clk, NodeOperators: nodeOperators, OperatorClient: operatorClient,
			Kube: kubeClient, Dynamic: dynamicClient, Served: served, CRIOPlatform: crioPlatform,
			ScrapeAuth: criometrics.NewScrapeAuthLookup(kubeClient, configClient.ConfigV1().ClusterOperators(), clk, criometrics.ScrapeAuthTTL),
			DaemonSets: operands.Apps().V1().DaemonSets(), Secrets: operands.Core().V1().Secrets(), ConfigMaps: operands.Core().V1().ConfigMaps(),
			LegacyDaemonSets: operatorNamespace.Apps().V1().DaemonSets(), APIServers: clusterConfigInformers.Config().V1().APIServers(),
			MonitoringConfigs: monitoringConfig.Core().V1().ConfigMaps(), Images: images, Timing: o.CertTiming, Recorder: recorder}),

		// The client CA of the operator's own metrics endpoint.
		metricsclientca.NewController(kubeClient, nodeOperators, operatorNamespace.Core().V1().ConfigMaps(), recorder),

		// NMState.
		nmstate.NewController(nodeOperators, operatorClient, kubeClient, dynamicClient, cl.apiextensions,
			nmstateNamespace.Apps().V1().Deployments(), images, recorder),
	}

	// Node settings (CRI-O and kubelet tracing), pool by pool through our
	// MachineConfigs: only where their feature gate is on.
	if nodeSettings {
		controllers = append(controllers, nodesettings.NewController(nodesettings.Options{Clock: clk, NodeOperators: nodeOperators,
			Dynamic: dynamicClient, Kube: kubeClient, Served: served, Namespace: operatorclient.OperatorNamespace,
			Timing: o.NodeSettingsTiming, Scrapes: scrapes, Recorder: recorder}))
	} else {
		// A gate switched off mid-rollout: no scale-down guard of ours stays.
		go nodesettings.ReleaseGuardsWhenOff(ctx, kubeClient)
	}

	for _, informers := range []interface{ Start(<-chan struct{}) }{dynamicInformers, clusterConfigInformers, clusterOperatorInformers, kubeInformers, monitoringConfig, crioPlatform} {
		informers.Start(ctx.Done())
	}
	for _, c := range controllers {
		go c.Run(ctx, 1)
	}
	<-ctx.Done()
	return nil
}

// Prepare is what every replica does before it waits for the lease: the
// copy of the client CA that its pod's kube-rbac-proxy needs to start.
func Prepare(ctx context.Context, cc *launcher.Context) {
	kube, err := kubernetes.NewForConfig(cc.KubeConfig)
	if err != nil {
		klog.Errorf("%s: %v", metricsclientca.ConditionDegraded, err)
		return
	}
	metricsclientca.Prepare(ctx, kube, cc.Namespace)
}

// degradedInertia is the one table of how long a <X>Degraded condition must
// hold before the ClusterOperator turns Degraded. Controllers report a
// problem at once; only this table delays it.
var degradedInertia = status.MustNewInertia(2*time.Minute,
	// Nodes without a ready crio-metrics pod: a rolling reboot or hundreds
	// of nodes joining at once cause it for a while without anything wrong.
	// The stack's other problems share the type, so the inertia.
	status.InertiaCondition{ConditionTypeMatcher: regexp.MustCompile("^" + criometrics.Prefix + "Degraded$"), Duration: 30 * time.Minute},
	// A namespace still terminating or an API server restart delays the
	// NMState stack for a while.
	status.InertiaCondition{ConditionTypeMatcher: regexp.MustCompile("^" + string(nodev1alpha1.NMStateStack) + "Degraded$"), Duration: nmstate.DegradedInertia},
).Inertia
