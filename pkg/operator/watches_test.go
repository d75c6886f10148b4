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
	"k8s.io/client-go/dynamic"
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

// TestControllerTableMatchesInformers: each controller's event handlers are
// docs/architecture.md's "informers" column (docs/test-behaviours.md).
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
	var dyn dynamic.Interface = no.Dynamic
	// Never started: nothing is sent to this address.
	configClient := configclient.NewForConfigOrDie(&rest.Config{Host: "https://127.0.0.1:1"})
	config := loggedConfigInformers{configinformers.NewSharedInformerFactory(configClient, 0), log}
	operands := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(operatorclient.OperatorNamespace)), operatorclient.OperatorNamespace, log}
	nmstateNamespace := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(operatorclient.NMStateNamespace)), operatorclient.NMStateNamespace, log}
	monitoringConfig := loggedKubeInformers{kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
		kubeinformers.WithNamespace(criometrics.MonitoringConfigNamespace)), criometrics.MonitoringConfigNamespace, log}
	served := platform.FixedServed(platform.ServedAPIs{})
	crioPlatform := crioplatform.NewDetector(kube, dyn, clk, crioplatform.LookupTTL)
	versions := status.NewVersionGetter()

	// Keyed by the table's first column; nil: a part of the process that
	// registers no informer.
	controllers := map[string]func() []stack.Runnable{
		"StackDecision": func() []stack.Runnable {
			return []stack.Runnable{stackdecision.New(nodeOperators, config.Config().V1().Infrastructures(), served.Get, crioPlatform.Detect, recorder)}
		},
		"StatusSyncer_node (library-go)": func() []stack.Runnable {
			return []stack.Runnable{status.NewClusterOperatorStatusController(operatorclient.ClusterOperatorName, nil, configClient.ConfigV1(),
				config.Config().V1().ClusterOperators(), operatorClient, versions, recorder, clk)}
		},
		"ManagementState, LoggingSyncer, UnsupportedConfigOverrides, RemoveStaleConditions (library-go)": func() []stack.Runnable {
			return []stack.Runnable{
				managementstatecontroller.NewOperatorManagementStateController(operatorclient.ClusterOperatorName, operatorClient, recorder),
				loglevel.NewClusterOperatorLoggingController(operatorClient, recorder),
				unsupportedconfigoverridescontroller.NewUnsupportedConfigOverridesController(operatorclient.ClusterOperatorName, operatorClient, recorder),
				staleconditions.NewRemoveStaleConditionsController(operatorclient.ClusterOperatorName, nil, operatorClient, recorder),
			}
		},
		"OperatorVersion": func() []stack.Runnable {
			return []stack.Runnable{versioncontroller.New(operatorClient, nodeOperators, config.Config().V1().ClusterOperators(), versions, "1.0.0", nil,
				stackOperands(operands, nmstateNamespace, config.Config().V1().Infrastructures()), recorder)}
		},
		"CRIOMetrics": func() []stack.Runnable {
			return []stack.Runnable{criometrics.NewController(clk, nodeOperators, operatorClient, kube, dyn, served, nil, crioPlatform,
				operands.Apps().V1().DaemonSets(), operands.Core().V1().Secrets(), operands.Core().V1().ConfigMaps(),
				config.Config().V1().APIServers(), monitoringConfig.Core().V1().ConfigMaps(), stack.Images{}, certrotation.DefaultTiming, recorder)}
		},
		"MetricsClientCA": func() []stack.Runnable {
			return []stack.Runnable{metricsclientca.NewController(kube, nodeOperators, operands.Core().V1().ConfigMaps(), recorder)}
		},
		"NMState": func() []stack.Runnable {
			return []stack.Runnable{nmstate.NewController(nodeOperators, operatorClient, kube, dyn, nil,
				nmstateNamespace.Apps().V1().Deployments(), stack.Images{}, recorder)}
		},
		"NodeSettings": func() []stack.Runnable {
			return []stack.Runnable{nodesettings.NewController(clk, nodeOperators, dyn, kube, served, operatorclient.OperatorNamespace,
				nodesettings.DefaultTiming, nil, recorder)}
		},
		"FeatureGates (library-go's accessor)": func() []stack.Runnable {
			newFeatureGateAccess("1.0.0", config.Config().V1().FeatureGates(), config.Config().V1().ClusterVersions(), recorder)
			if err := exitOnFeatureSetChange(config.Config().V1().FeatureGates(), "Default", func() {}); err != nil {
				t.Fatal(err)
			}
			return nil
		},
		"launcher (the process, not a controller)":     nil,
		"watchtimeout (every watch, not a controller)": nil,
	}

	// Some of library-go's controllers register their informers when they
	// run; with a cancelled context Run returns before any sync.
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for name, build := range controllers {
		want, ok := documented[name]
		if !ok {
			t.Errorf("docs/architecture.md's controller table has no row %q", name)
			continue
		}
		var got []string
		if build != nil {
			for _, c := range build() {
				c.Run(stopped, 1)
			}
			got = log.take()
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s registers informers %q; docs/architecture.md's controller table says %q", name, got, want)
		}
	}
	for name := range documented {
		if _, ok := controllers[name]; !ok {
			t.Errorf("docs/architecture.md's controller table has row %q, which this test does not build", name)
		}
	}
}

// controllerTable reads the sorted code spans of the "informers" column of
// the table under "## Controllers", by each row's first cell.
func controllerTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	_, section, _ := strings.Cut(string(raw), "\n## Controllers\n")
	rows, column := map[string][]string{}, -1
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") && column >= 0 {
			break // the end of the table
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !strings.HasPrefix(line, "|"), strings.HasPrefix(cells[0], "---"):
		case column < 0:
			column = slices.Index(cells, "informers")
			require.GreaterOrEqual(t, column, 0, "%s: the controller table has no column \"informers\"", path)
		default:
			require.Greater(t, len(cells), column, "%s: row %q has no informers column", path, line)
			var names []string
			for _, m := range codeSpan.FindAllStringSubmatch(cells[column], -1) {
				names = append(names, m[1])
			}
			rows[cells[0]] = slices.Sorted(slices.Values(names))
		}
	}
	require.NotEmpty(t, rows, "%s: no controller table under \"## Controllers\"", path)
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
