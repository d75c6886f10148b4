// Package crioplatform finds out whether the platform already serves CRI-O
// metrics: since OpenShift 4.14 the machine-config operator (MCO) lays down
// the static pod kube-rbac-proxy-crio on every node, in front of CRI-O's
// plain-HTTP endpoint on 127.0.0.1:9537, and the monitoring stack scrapes it
// as job="crio".
package crioplatform

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

const (
	// Namespace holds MCO's mirror pods kube-rbac-proxy-crio-<node>.
	Namespace = "openshift-machine-config-operator"
	// ProxyLabel is the label MCO (4.16+) puts on the static pod and selects
	// with its Service kube-rbac-proxy-crio.
	ProxyLabel = "k8s-app=kube-rbac-proxy-crio"
	// StaticPodPath is the static pod's file in MCO's 01-<role>-kubelet
	// MachineConfigs.
	StaticPodPath = "/etc/kubernetes/manifests/criometricsproxy.yaml"
)

// LookupTTL is how long the operator reuses a lookup of MCO's base kubelet
// MachineConfigs. A resync may get an answer up to this old, so the
// platform path's appearance or removal reaches the decision within the
// stack decision's resync plus this (130 s); shorter than the served APIs'
// TTL, which the e2e tests' RediscoverNow waits out.
const LookupTTL = 10 * time.Second

// Roles are MCO's base pools; each has a 01-<role>-kubelet MachineConfig.
var Roles = []string{"master", "worker", "arbiter"}

// KubeletMachineConfigName is MCO's base kubelet MachineConfig of a role.
func KubeletMachineConfigName(role string) string { return "01-" + role + "-kubelet" }

// Detector reads MCO's base kubelet MachineConfigs by name (no watch: they
// are large, and a lookup once a minute is enough to notice the path appear
// or go) and counts the static pod's mirror pods from a label-selected cache.
// The lookup's answer is kept for a TTL: the stack decision runs on every
// change of the NodeOperator, its own and the stack controllers' status
// writes included, and three GETs each time would take a third of the
// operator's client rate while a stack is removed. A decision for a new
// spec asks for a fresh lookup.
//
// The cache starts once MCO's MachineConfigs carry the static pod, and
// nothing waits for it: where MCO does not run (a hosted control plane's
// cluster) or its namespace cannot be read, the operator must not stall and
// must not be denied requests; the count is then 0.
type Detector struct {
	machineConfigs dynamic.NamespaceableResourceInterface
	mirrorPods     corev1listers.PodLister
	factory        informers.SharedInformerFactory
	start          sync.Once
	stop           <-chan struct{}

	clock  clock.PassiveClock
	ttl    time.Duration
	mu     sync.Mutex
	lookup lookup
}

// lookup is the last answer of MCO's base kubelet MachineConfigs.
type lookup struct {
	at             time.Time
	served         bool
	machineConfigs []string
	problems       []string
}

// NewDetector builds a Detector; Start starts its mirror pod cache. ttl is
// how long a lookup of the MachineConfigs is reused.
func NewDetector(kube kubernetes.Interface, dyn dynamic.Interface, clk clock.PassiveClock, ttl time.Duration) *Detector {
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithNamespace(Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = ProxyLabel }))
	pods := factory.Core().V1().Pods()
	// One pod per node: keep only what is counted, so that the cache stays
	// small at thousands of nodes.
	_ = pods.Informer().SetTransform(trimPod)
	return &Detector{
		machineConfigs: dyn.Resource(platform.MachineConfigGVR),
		mirrorPods:     pods.Lister(),
		factory:        factory,
		clock:          clk,
		ttl:            ttl,
	}
}

// RunningProxies counts the nodes that run the static pod, from the cache.
func (d *Detector) RunningProxies() int {
	pods, _ := d.mirrorPods.List(labels.Everything())
	return RunningNodes(pods)
}

// Start records when the mirror pod cache must stop; the cache itself
// starts with the first lookup that finds MCO's static pod.
func (d *Detector) Start(stop <-chan struct{}) { d.stop = stop }

// Detect looks the platform path up. machineConfigServed says whether
// machineconfiguration.openshift.io/v1 is served; without it there is no
// MCO and only mirror pods can tell. fresh reads the MachineConfigs even
// if a lookup younger than the TTL could answer.
func (d *Detector) Detect(ctx context.Context, machineConfigServed, fresh bool) platform.PlatformCRIOMetrics {
	var out platform.PlatformCRIOMetrics
	l := d.lookUp(ctx, machineConfigServed, fresh)
	out.MachineConfigs = append([]string(nil), l.machineConfigs...)
	problems := append([]string(nil), l.problems...)
	// The mirror pods are counted only where MCO renders the static pod:
	// elsewhere there is nothing to count, and MCO's namespace may be
	// unreadable (its Role is not in every profile).
	if len(out.MachineConfigs) > 0 && d.stop != nil {
		d.start.Do(func() { d.factory.Start(d.stop) })
	}
	pods, err := d.mirrorPods.List(labels.Everything())
	if err != nil {
		problems = append(problems, fmt.Sprintf("pods -l %s: %v", ProxyLabel, err))
	}
	out.MirrorPods = RunningNodes(pods)
	// A failed lookup matters only while nothing shows the path exists.
	if !out.Exists() && len(problems) > 0 {
		out.Problem = strings.Join(problems, "; ")
	}
	return out
}

// lookUp reads MCO's base kubelet MachineConfigs, or returns the last
// answer while it is younger than the TTL and was for the same served API,
// unless fresh.
func (d *Detector) lookUp(ctx context.Context, served, fresh bool) lookup {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock.Now()
	if !fresh && !d.lookup.at.IsZero() && d.lookup.served == served && now.Sub(d.lookup.at) < d.ttl {
		return d.lookup
	}
	l := lookup{at: now, served: served}
	if served {
		for _, role := range Roles {
			name := KubeletMachineConfigName(role)
			mc, err := d.machineConfigs.Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				l.problems = append(l.problems, fmt.Sprintf("machineconfigs %s: %v", name, err))
				continue
			}
			carries, err := CarriesStaticPod(mc)
			switch {
			case err != nil:
				l.problems = append(l.problems, err.Error())
			case carries:
				l.machineConfigs = append(l.machineConfigs, name)
			}
		}
	}
	d.lookup = l
	return l
}

// CarriesStaticPod reports whether a MachineConfig lays down the
// kube-rbac-proxy-crio static pod.
func CarriesStaticPod(mc *unstructured.Unstructured) (bool, error) {
	typed, err := platform.Typed[mcfgv1.MachineConfig](mc)
	if err != nil {
		return false, err
	}
	ign, err := platform.IgnitionOf(typed)
	if err != nil {
		return false, err
	}
	for _, f := range ign.Storage.Files {
		if f.Path == StaticPodPath {
			return true, nil
		}
	}
	return false, nil
}

// RunningNodes counts the distinct nodes whose mirror pod is Running.
func RunningNodes(pods []*corev1.Pod) int {
	nodes := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
			nodes[p.Spec.NodeName] = true
		}
	}
	return len(nodes)
}

// trimPod keeps a mirror pod's identity, node and phase.
func trimPod(obj interface{}) (interface{}, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: p.ResourceVersion, Labels: p.Labels},
		Spec:       corev1.PodSpec{NodeName: p.Spec.NodeName},
		Status:     corev1.PodStatus{Phase: p.Status.Phase},
	}, nil
}
