package operator

import (
	"context"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	configgroup "github.com/openshift/client-go/config/informers/externalversions/config"
	configinternal "github.com/openshift/client-go/config/informers/externalversions/internalinterfaces"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/managementstatecontroller"
	"github.com/openshift/library-go/pkg/operator/staleconditions"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/unsupportedconfigoverridescontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	kubeinformers "k8s.io/client-go/informers"
	appsgroup "k8s.io/client-go/informers/apps"
	coregroup "k8s.io/client-go/informers/core"
	kubeinternal "k8s.io/client-go/informers/internalinterfaces"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/pkg/operator/crioplatform"
	"github.com/openshift/cluster-node-operator/pkg/operator/metricsclientca"
	"github.com/openshift/cluster-node-operator/pkg/operator/nmstate"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
	"github.com/openshift/cluster-node-operator/pkg/operator/stackdecision"
	"github.com/openshift/cluster-node-operator/pkg/operator/versioncontroller"
)

// Each controller's event handlers are docs/architecture.md's (docs/test-behaviours.md).
func TestControllerTableMatchesInformers(t *testing.T) {
	documented := controllerTable(t, "../../docs/architecture.md")

	log := &watchLog{names: map[string]bool{}}
	clk := clocktesting.NewFakeClock(time.Now())
	recorder := events.NewInMemoryRecorder("test", clk)
	no := operatorclienttest.New(t, clk, &nodev1alpha1.NodeOperator{})
	nodeOperatorInformer := loggedInformer{SharedIndexInformer: no.NodeOperators.Informer(), name: "NodeOperator", log: log}
	nodeOperators := operatorclient.NewNodeOperators(clk, nodeOperatorInformer, no.Dynamic)
	operatorClient := loggedOperatorClient{
		OperatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil),
		informer:       nodeOperatorInformer,
	}
	kube := kubefake.NewClientset()
	// Never started: nothing is sent to this address.
	configClient := configclient.NewForConfigOrDie(&rest.Config{Host: "https://127.0.0.1:1"})
	config := loggedConfigInformers{configinformers.NewSharedInformerFactory(configClient, 0), log}
	operatorNamespace := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(operatorclient.OperatorNamespace)), operatorclient.OperatorNamespace, log}
	operands := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(operatorclient.CRIOMetricsNamespace)), operatorclient.CRIOMetricsNamespace, log}
	nmstateNamespace := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(operatorclient.NMStateNamespace)), operatorclient.NMStateNamespace, log}
	monitoringConfig := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(criometrics.MonitoringConfigNamespace)), criometrics.MonitoringConfigNamespace, log}
	served := platform.FixedServed(platform.ServedAPIs{})
	crioPlatform := crioplatform.NewDetector(kube, no.Dynamic, clk, crioplatform.LookupTTL)
	versions := status.NewVersionGetter()

	// Some of library-go's controllers register their informers when they
	// run; with a cancelled context Run returns before any sync. check's
	// arguments are built, and so register theirs, before it takes the log.
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	checked := map[string]bool{}
	check := func(name string, controllers ...stack.Runnable) {
		checked[name] = true
		want, ok := documented[name]
		if !ok {
			t.Errorf("docs/architecture.md's controller table has no row %q", name)
		}
		for _, c := range controllers {
			c.Run(stopped, 1)
		}
		if got := log.take(); ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s registers informers %q; docs/architecture.md's controller table says %q", name, got, want)
		}
	}
	check("StackDecision", stackdecision.New(nodeOperators, config.Config().V1().Infrastructures(), served.Get, crioPlatform.Detect, recorder))
	check("StatusSyncer_node (library-go)", status.NewClusterOperatorStatusController(operatorclient.ClusterOperatorName, nil, configClient.ConfigV1(),
		config.Config().V1().ClusterOperators(), operatorClient, versions, recorder, clk))
	check("ManagementState, LoggingSyncer, UnsupportedConfigOverrides, RemoveStaleConditions (library-go)",
		managementstatecontroller.NewOperatorManagementStateController(operatorclient.ClusterOperatorName, operatorClient, recorder),
		loglevel.NewClusterOperatorLoggingController(operatorClient, recorder),
		unsupportedconfigoverridescontroller.NewUnsupportedConfigOverridesController(operatorclient.ClusterOperatorName, operatorClient, recorder),
		staleconditions.NewRemoveStaleConditionsController(operatorclient.ClusterOperatorName, nil, operatorClient, recorder))
	check("OperatorVersion", versioncontroller.New(versioncontroller.Options{OperatorClient: operatorClient, NodeOperators: nodeOperators,
		ClusterOperators: config.Config().V1().ClusterOperators(), VersionRecorder: versions, Version: "1.0.0",
		Operands: stackOperands(operands, nmstateNamespace, config.Config().V1().Infrastructures()), Recorder: recorder}))
	check("CRIOMetrics", criometrics.NewController(criometrics.Options{Clock: clk, NodeOperators: nodeOperators, OperatorClient: operatorClient,
		Kube: kube, Dynamic: no.Dynamic, Served: served, CRIOPlatform: crioPlatform,
		DaemonSets: operands.Apps().V1().DaemonSets(), Secrets: operands.Core().V1().Secrets(), ConfigMaps: operands.Core().V1().ConfigMaps(),
		LegacyDaemonSets: operatorNamespace.Apps().V1().DaemonSets(), APIServers: config.Config().V1().APIServers(),
		MonitoringConfigs: monitoringConfig.Core().V1().ConfigMaps(), Timing: certrotation.DefaultTiming, Recorder: recorder}))
	check("MetricsClientCA", metricsclientca.NewController(kube, nodeOperators, operatorNamespace.Core().V1().ConfigMaps(), recorder))
	check("NMState", nmstate.NewController(nodeOperators, operatorClient, kube, no.Dynamic, nil, nmstateNamespace.Apps().V1().Deployments(), stack.Images{}, recorder))
	check("NodeSettings", nodesettings.NewController(nodesettings.Options{Clock: clk, NodeOperators: nodeOperators, Dynamic: no.Dynamic,
		Kube: kube, Served: served, Namespace: operatorclient.OperatorNamespace, Timing: nodesettings.DefaultTiming, Recorder: recorder}))
	newFeatureGateAccess("1.0.0", config.Config().V1().FeatureGates(), config.Config().V1().ClusterVersions(), recorder)
	require.NoError(t, exitOnFeatureSetChange(config.Config().V1().FeatureGates(), "Default", func() {}))
	check("FeatureGates (library-go's accessor)")
	// Parts of the process that register no informer.
	check("launcher (the process, not a controller)")
	check("watchtimeout (every watch, not a controller)")
	for name := range documented {
		if !checked[name] {
			t.Errorf("docs/architecture.md's controller table has row %q, which this test does not build", name)
		}
	}
}

// controllerTable reads docs/architecture.md's controller table: each row's
// first cell and the sorted code spans of its third column, "informers".
func controllerTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	_, table, found := strings.Cut(string(raw), "\n| controller | package | informers |")
	require.True(t, found, "%s: no controller table with the informers third", path)
	rows := map[string][]string{}
	for _, line := range strings.Split(table, "\n")[2:] { // after the header and its separator
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, " | ")
		var names []string
		for _, m := range codeSpan.FindAllStringSubmatch(cells[2], -1) {
			names = append(names, m[1])
		}
		rows[strings.TrimPrefix(cells[0], "| ")] = slices.Sorted(slices.Values(names))
	}
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// watchLog: the informers that got an event handler since the last take.
type watchLog struct{ names map[string]bool }

func (l *watchLog) take() []string {
	out := slices.Sorted(maps.Keys(l.names))
	l.names = map[string]bool{}
	return out
}

// loggedInformer logs each event handler added to it under its name.
type loggedInformer struct {
	cache.SharedIndexInformer
	name string
	log  *watchLog
}

func (i loggedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	i.log.names[i.name] = true
	return i.SharedIndexInformer.AddEventHandler(h)
}

// The informers never run: a resync period or options change nothing here.
func (i loggedInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, _ time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i loggedInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, _ cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

// loggedOperatorClient: the NodeOperator's operator client, its informer logged.
type loggedOperatorClient struct {
	v1helpers.OperatorClient
	informer cache.SharedIndexInformer
}

func (c loggedOperatorClient) Informer() cache.SharedIndexInformer { return c.informer }

// loggedConfigInformers: informers of cluster-scoped config objects, by kind.
type loggedConfigInformers struct {
	configinformers.SharedInformerFactory
	log *watchLog
}

func (f loggedConfigInformers) InformerFor(obj runtime.Object, newFunc configinternal.NewInformerFunc) cache.SharedIndexInformer {
	return loggedInformer{f.SharedInformerFactory.InformerFor(obj, newFunc), kindOf(obj), f.log}
}

func (f loggedConfigInformers) Config() configgroup.Interface { return configgroup.New(f, "", nil) }

// loggedKubeInformers: informers of one namespace, as "<kind> in <namespace>".
type loggedKubeInformers struct {
	kubeinformers.SharedInformerFactory
	namespace string
	log       *watchLog
}

func (f loggedKubeInformers) InformerFor(obj runtime.Object, newFunc kubeinternal.NewInformerFunc) cache.SharedIndexInformer {
	return loggedInformer{f.SharedInformerFactory.InformerFor(obj, newFunc), kindOf(obj) + " in " + f.namespace, f.log}
}

func (f loggedKubeInformers) Apps() appsgroup.Interface { return appsgroup.New(f, f.namespace, nil) }
func (f loggedKubeInformers) Core() coregroup.Interface { return coregroup.New(f, f.namespace, nil) }

func kindOf(obj runtime.Object) string { return reflect.TypeOf(obj).Elem().Name() }
