package testsext

import (
	"context"
	"fmt"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// The operator's contract with the cluster, pinned as literals: a test
// must fail when the operator's code renames one of them.
const (
	operatorNamespace  = "openshift-cluster-node-operator"
	clusterOperator    = "node"
	operatorDeployment = "cluster-node-operator"
	operatorPodLabel   = "app=cluster-node-operator"
	operatorLease      = "cluster-node-operator-lock"
	nodeOperatorName   = "cluster"

	crioMetricsNamespace = "openshift-crio-metrics"
	crioMetricsName      = "crio-metrics" // DaemonSet, Service, PrometheusRule
	crioMetricsPort      = 9638
	crioMetricsClient    = "crio-metrics-client" // ClusterRole(Binding) for get /metrics
	dashboardNamespace   = "openshift-config-managed"
	dashboardConfigMap   = "grafana-dashboard-node-crio"
	prometheusNamespace  = "openshift-monitoring"
	prometheusAccount    = "prometheus-k8s"
	// MCO's static pod kube-rbac-proxy-crio: the platform's CRI-O metrics path.
	platformProxyNamespace = "openshift-machine-config-operator"
	platformProxyLabel     = "k8s-app=kube-rbac-proxy-crio"

	nmstateNamespace  = "openshift-nmstate"
	nmstateDeployment = "nmstate-operator"
	nmstateCR         = "nmstate"

	monitoringGroup = "monitoring.coreos.com"
)

var (
	nodeOperatorsGVR   = schema.GroupVersionResource{Group: "nodeoperator.openshift.io", Version: "v1alpha1", Resource: "nodeoperators"}
	prometheusRulesGVR = schema.GroupVersionResource{Group: monitoringGroup, Version: "v1", Resource: "prometheusrules"}
	nmstatesGVR        = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nmstates"}
)

// Cluster holds the clients of the cluster under test.
type Cluster struct {
	Config  *rest.Config
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	Configs configclient.Interface
}

// Connect reads the client configuration as kubectl does ($KUBECONFIG,
// ~/.kube/config, or in-cluster).
func Connect() (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "cluster-node-operator-tests-ext"
	// API warnings would otherwise go to stderr, beside the result lines.
	cfg.WarningHandler = rest.NoWarnings{}
	c := &Cluster{Config: cfg}
	if c.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.Configs, err = configclient.NewForConfig(cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// NodeOperator reads the NodeOperator "cluster" into the operator's API type.
func (c *Cluster) NodeOperator(ctx context.Context) (*nodev1alpha1.NodeOperator, error) {
	u, err := c.Dynamic.Resource(nodeOperatorsGVR).Get(ctx, nodeOperatorName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("nodeoperator/%s: %w", nodeOperatorName, err)
	}
	no := &nodev1alpha1.NodeOperator{}
	return no, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, no)
}

// Serves reports whether the cluster serves an API group.
func (c *Cluster) Serves(group string) (bool, error) {
	groups, err := c.Kube.Discovery().ServerGroups()
	if err != nil {
		return false, err
	}
	for _, g := range groups.Groups {
		if g.Name == group {
			return true, nil
		}
	}
	return false, nil
}

// stack returns the recorded decision for a stack, or an error naming it.
func stack(no *nodev1alpha1.NodeOperator, name nodev1alpha1.StackName) (nodev1alpha1.StackStatus, error) {
	for _, s := range no.Status.Stacks {
		if s.Name == name {
			return s, nil
		}
	}
	return nodev1alpha1.StackStatus{}, fmt.Errorf("nodeoperator/%s status.stacks has no %s entry: %+v", nodeOperatorName, name, no.Status.Stacks)
}
