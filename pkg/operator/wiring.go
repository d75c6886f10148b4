package operator

import (
	"os"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/status"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/pkg/operator/nmstate"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
	"github.com/openshift/cluster-node-operator/pkg/operator/versioncontroller"
)

// What the starter wires in: the clients, what each stack owns and runs,
// the operand images, and what must-gather collects.

// clients are the API clients the controllers share.
type clients struct {
	config        configclient.Interface
	kube          kubernetes.Interface
	dynamic       dynamic.Interface
	apiextensions apiextensionsclient.Interface
	discovery     discovery.DiscoveryInterface
}

func newClients(config *rest.Config) (*clients, error) {
	var c clients
	var err error
	if c.config, err = configclient.NewForConfig(config); err != nil {
		return nil, err
	}
	if c.kube, err = kubernetes.NewForConfig(config); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(config); err != nil {
		return nil, err
	}
	if c.apiextensions, err = apiextensionsclient.NewForConfig(config); err != nil {
		return nil, err
	}
	if c.discovery, err = discovery.NewDiscoveryClientForConfig(config); err != nil {
		return nil, err
	}
	return &c, nil
}

// stackObjects is a stack and what it owns while it is enabled; handedOver,
// where set, tells when another operator runs the stack's operand, so that
// the stack owns none of it.
type stackObjects struct {
	name       nodev1alpha1.StackName
	related    []configv1.ObjectReference
	handedOver func(*nodev1alpha1.NodeOperator) bool
}

// stackNames are the stacks' condition prefixes.
func stackNames(stacks []stackObjects) []string {
	var out []string
	for _, s := range stacks {
		out = append(out, string(s.name))
	}
	return out
}

// stackOperands reads what each stack runs from the informers: the CRI-O
// metrics DaemonSet (own TLS path only: on the platform's path the operator
// runs no container for metrics) and every Deployment and DaemonSet of the
// NMState namespace (the nmstate-operator and what it deploys: handler,
// webhook, metrics).
func stackOperands(operands, nmstateNamespace kubeinformers.SharedInformerFactory, infrastructures configinformersv1.InfrastructureInformer) versioncontroller.Operands {
	daemonSets := operands.Apps().V1().DaemonSets()
	nmstateDeployments := nmstateNamespace.Apps().V1().Deployments()
	nmstateDaemonSets := nmstateNamespace.Apps().V1().DaemonSets()
	return versioncontroller.Operands{
		Workloads: func(s nodev1alpha1.StackStatus) []versioncontroller.Workload {
			if !s.Enabled {
				return nil
			}
			switch s.Name {
			case nodev1alpha1.MetricsStack:
				if s.Mode != nodev1alpha1.OperatorTLS {
					return nil
				}
				ds, err := daemonSets.Lister().DaemonSets(operatorclient.CRIOMetricsNamespace).Get(criometrics.DaemonSetName)
				if err != nil {
					return []versioncontroller.Workload{{Kind: "DaemonSet", Namespace: operatorclient.CRIOMetricsNamespace, Name: criometrics.DaemonSetName, Missing: true}}
				}
				return []versioncontroller.Workload{versioncontroller.DaemonSetWorkload(ds)}
			case nodev1alpha1.NMStateStack:
				out := []versioncontroller.Workload{{Kind: "Deployment", Namespace: nmstate.Namespace, Name: nmstate.DeploymentName, Missing: true}}
				deployments, _ := nmstateDeployments.Lister().Deployments(nmstate.Namespace).List(labels.Everything())
				for _, d := range deployments {
					if d.Name == nmstate.DeploymentName {
						out[0] = versioncontroller.DeploymentWorkload(d)
						continue
					}
					out = append(out, versioncontroller.DeploymentWorkload(d))
				}
				handlers, _ := nmstateDaemonSets.Lister().DaemonSets(nmstate.Namespace).List(labels.Everything())
				for _, ds := range handlers {
					out = append(out, versioncontroller.DaemonSetWorkload(ds))
				}
				return out
			}
			return nil
		},
		Platform: func() configv1.PlatformType {
			infra, err := infrastructures.Lister().Get("cluster")
			switch {
			case err != nil:
				return ""
			case infra.Status.PlatformStatus != nil && infra.Status.PlatformStatus.Type != "":
				return infra.Status.PlatformStatus.Type
			}
			return infra.Status.Platform //nolint:staticcheck // the fallback of clusters installed before platformStatus
		},
		Informers: []factory.Informer{daemonSets.Informer(), nmstateDeployments.Informer(), nmstateDaemonSets.Informer()},
	}
}

func imagesFromEnv() stack.Images {
	return stack.Images{
		KubeRBACProxy:   os.Getenv("KUBE_RBAC_PROXY_IMAGE"),
		CertSyncer:      os.Getenv("OPERATOR_IMAGE"),
		NMStateOperator: os.Getenv("NMSTATE_OPERATOR_IMAGE"),
		NMStateHandler:  os.Getenv("NMSTATE_HANDLER_IMAGE"),
		NMStatePlugin:   os.Getenv("NMSTATE_CONSOLE_PLUGIN_IMAGE"),
	}
}

func byName(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
}

// relatedObjects lists what must-gather collects: the NodeOperator, our
// namespaces, every object of the stacks that are enabled and not handed
// over to another operator, and what a node settings rollout touches.
func relatedObjects(nodeOperators *operatorclient.NodeOperators, stacks []stackObjects) status.RelatedObjectsFunc {
	return func() (bool, []configv1.ObjectReference) {
		nodeOperator, err := nodeOperators.Get()
		if err != nil {
			return false, nil
		}
		var objs []configv1.ObjectReference
		for _, s := range stacks {
			if s.handedOver != nil && s.handedOver(nodeOperator) {
				continue
			}
			if decision, ok := stack.Recorded(nodeOperator, s.name); ok && decision.State == nodev1alpha1.StackEnabled {
				objs = append(objs, s.related...)
			}
		}
		return true, append(objs, nodesettings.RelatedObjects(nodeOperator.Status.NodeSettings)...)
	}
}

// probe is the node settings gate's view of CRI-O's scrapes; nil without
// a URL.
func (p PrometheusOptions) probe() (nodesettings.ScrapeProbe, error) {
	if p.URL == "" {
		return nil, nil
	}
	return nodesettings.NewPrometheusProbe(p.URL, p.CAFile, p.TokenFile)
}
