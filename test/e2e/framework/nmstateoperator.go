package framework

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-node-operator/test/fixtures/nmstateoperand"
)

// NMStateOperatorDouble plays the Kubernetes NMState operator's pod (behaviour read at nmstateoperand.Commit):
// docs/nmstate.md, "Known limits". Refused lists what the real API server refused (Forbidden, Invalid).
type NMStateOperatorDouble struct {
	admin *rest.Config
	kube  kubernetes.Interface

	mu          sync.Mutex
	refused     []string
	applied     string    // the NMState generation and environment last applied
	crdsApplied time.Time // when the CRDs were applied last

	stop func()
}

const (
	nmstateNamespace    = "openshift-nmstate"
	nmstateOperatorName = "nmstate-operator"
	// nmstateFieldOwner is the field manager of everything the double applies.
	nmstateFieldOwner = "nmstate-operator"
)

var nmstatesGVR = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nmstates"}

// StartNMStateOperatorDouble starts the double; it stops when the test ends.
func StartNMStateOperatorDouble(t testing.TB, admin *rest.Config) *NMStateOperatorDouble {
	t.Helper()
	d := &NMStateOperatorDouble{admin: admin, kube: kubernetes.NewForConfigOrDie(admin)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := d.reconcile(ctx); err != nil && ctx.Err() == nil {
				t.Logf("NMState operator double: %v", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	d.stop = func() { cancel(); <-done }
	t.Cleanup(d.stop)
	return d
}

// Refused lists the requests the API server refused as Forbidden or Invalid.
func (d *NMStateOperatorDouble) Refused() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.refused...)
}

func (d *NMStateOperatorDouble) record(what string, err error) {
	if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
		d.mu.Lock()
		d.refused = append(d.refused, fmt.Sprintf("%s: %v", what, err))
		d.mu.Unlock()
	}
}

// nmstatePod is what the operator's pod would be given: its identity and environment (podEnvironment), from the Deployment.
type nmstatePod struct {
	user, namespace string
	env             nmstateoperand.Env
}

// pod is nil while the Deployment is missing or unavailable.
func (d *NMStateOperatorDouble) pod(ctx context.Context) (*nmstatePod, error) {
	dep, err := d.kube.AppsV1().Deployments(nmstateNamespace).Get(ctx, nmstateOperatorName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && dep.Status.AvailableReplicas == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: dep.Name, Namespace: dep.Namespace}, Spec: dep.Spec.Template.Spec}
	env, err := podEnvironment(ctx, d.kube, d.admin, pod, pod.Spec.Containers[0])
	if err != nil {
		return nil, err
	}
	p := &nmstatePod{user: "system:serviceaccount:" + dep.Namespace + ":" + cmp.Or(pod.Spec.ServiceAccountName, "default"),
		namespace: dep.Namespace, env: env.values}
	// Unset variables read as empty (os.Getenv).
	for _, k := range []string{"HANDLER_NAMESPACE", "OPERATOR_NAMESPACE", "MONITORING_NAMESPACE", "HANDLER_IMAGE", "KUBE_RBAC_PROXY_IMAGE", "PLUGIN_IMAGE"} {
		if _, ok := p.env[k]; !ok {
			p.env[k] = ""
		}
	}
	return p, nil
}

func (p *nmstatePod) groups() []string {
	return []string{"system:serviceaccounts", "system:serviceaccounts:" + p.namespace, "system:authenticated"}
}

// as returns a config that impersonates the pod's ServiceAccount.
func (d *NMStateOperatorDouble) as(p *nmstatePod) *rest.Config {
	cfg := rest.CopyConfig(d.admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: p.user, Groups: p.groups()}
	return cfg
}

func (d *NMStateOperatorDouble) reconcile(ctx context.Context) error {
	p, err := d.pod(ctx)
	if p == nil {
		return err
	}
	cfg := d.as(p)
	dyn := dynamic.NewForConfigOrDie(cfg)
	list, err := dyn.Resource(nmstatesGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		d.record("list nmstates", err)
		return err
	}
	if len(list.Items) == 0 {
		return nil
	}
	cr := &list.Items[0] // the tests make one NMState, "nmstate"

	envJSON, _ := json.Marshal(p.env)
	key := fmt.Sprintf("%s/%d/%s", cr.GetUID(), cr.GetGeneration(), envJSON)
	d.mu.Lock()
	done := d.applied == key
	d.mu.Unlock()
	// The operator applies its CRDs on every reconcile: so does the double, every 30 s, so that a
	// difference from the payload's would show as writes.
	if crdsOnly := done && time.Since(d.crdsApplied) > 30*time.Second; !done || crdsOnly {
		if err := d.apply(ctx, cfg, p, cr, crdsOnly); err != nil {
			return err // Refused has it: the tests want no refusal
		}
		d.mu.Lock()
		d.applied, d.crdsApplied = key, time.Now()
		d.mu.Unlock()
	}
	if err := d.reportStatus(ctx, dyn, cr); err != nil {
		return err
	}
	return d.enact(ctx, p.env["HANDLER_NAMESPACE"])
}

// apply asks about the operator's own requests and applies its phases.
func (d *NMStateOperatorDouble) apply(ctx context.Context, cfg *rest.Config, p *nmstatePod, cr *unstructured.Unstructured, crdsOnly bool) error {
	requests, err := nmstateoperand.Requests(p.env)
	if err != nil {
		return err
	}
	for _, r := range requests {
		if err := d.authorized(ctx, p, r); err != nil {
			return err
		}
	}
	phases, err := nmstateoperand.Phases(p.env)
	if err != nil {
		return err
	}
	applier, err := applierFor(cfg)
	if err != nil {
		return err
	}
	owner := metav1.OwnerReference{APIVersion: "nmstate.io/v1", Kind: "NMState", Name: cr.GetName(), UID: cr.GetUID(),
		Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	for _, phase := range phases {
		if crdsOnly && phase.Name != "crds" {
			return nil
		}
		for _, obj := range phase.Objects {
			if phase.Name != "crds" && phase.Name != "namespace" {
				obj.SetOwnerReferences([]metav1.OwnerReference{owner})
			}
			what := fmt.Sprintf("applying %s %s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
			if _, err := applier.Resource(obj); meta.IsNoMatchError(err) && phase.Name != "crds" {
				// The operator skips kinds the cluster does not serve (ServiceMonitor without the monitoring API).
				continue
			}
			if err := applier.Apply(ctx, obj, nmstateFieldOwner); err != nil {
				d.record(what, err)
				return fmt.Errorf("failed applying %s: %s: %w", phase.Name, what, err)
			}
		}
	}
	return d.enableConsolePlugin(ctx, cfg)
}

// authorized asks the API server's authorizer whether the pod may make r.
func (d *NMStateOperatorDouble) authorized(ctx context.Context, p *nmstatePod, r nmstateoperand.Request) error {
	resource, sub, _ := strings.Cut(r.Resource, "/")
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   p.user,
		Groups: p.groups(),
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: r.Verb, Group: r.Group, Resource: resource,
			Subresource: sub, Namespace: r.Namespace, Name: r.Name},
	}}
	got, err := d.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if !got.Status.Allowed {
		err := apierrors.NewForbidden(schema.GroupResource{Group: r.Group, Resource: r.Resource}, r.Name, fmt.Errorf("%s", got.Status.Reason))
		d.record(r.String(), err)
		return err
	}
	return nil
}

// enableConsolePlugin adds the plugin to Console "cluster", as the operator does after applying it.
func (d *NMStateOperatorDouble) enableConsolePlugin(ctx context.Context, cfg *rest.Config) error {
	consoles := dynamic.NewForConfigOrDie(cfg).Resource(schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "consoles"})
	console, err := consoles.Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		d.record("get consoles cluster", err)
		return fmt.Errorf("could not get consoles.operator.openshift.io: %w", err)
	}
	plugins, _, _ := unstructured.NestedStringSlice(console.Object, "spec", "plugins")
	for _, p := range plugins {
		if p == "nmstate-console-plugin" {
			return nil
		}
	}
	if err := unstructured.SetNestedStringSlice(console.Object, append(plugins, "nmstate-console-plugin"), "spec", "plugins"); err != nil {
		return err
	}
	_, err = consoles.Update(ctx, console, metav1.UpdateOptions{})
	d.record("update consoles cluster", err)
	return err
}

// nmstateCondition is one condition of the NMState's status.
type nmstateCondition struct{ typ, status, reason, message string }

// reportStatus: Progressing while a workload is unavailable, rolling or unobserved; Available otherwise.
func (d *NMStateOperatorDouble) reportStatus(ctx context.Context, dyn dynamic.Interface, cr *unstructured.Unstructured) error {
	ns := nmstateNamespace
	var progressing []string
	for _, name := range []string{"nmstate-metrics", "nmstate-webhook", "nmstate-console-plugin"} {
		dep, err := d.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return err
		case dep.Status.UnavailableReplicas > 0:
			progressing = append(progressing, fmt.Sprintf("Deployment %q is not available (awaiting %d nodes)", name, dep.Status.UnavailableReplicas))
		case dep.Status.AvailableReplicas == 0:
			progressing = append(progressing, fmt.Sprintf("Deployment %q is not yet scheduled on any nodes", name))
		}
	}
	ds, err := d.kube.AppsV1().DaemonSets(ns).Get(ctx, "nmstate-handler", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case ds.Status.NumberUnavailable > 0:
		progressing = append(progressing, fmt.Sprintf("DaemonSet %q is not available (awaiting %d nodes)", ds.Name, ds.Status.NumberUnavailable))
	case ds.Status.NumberAvailable == 0 && ds.Status.DesiredNumberScheduled != 0:
		progressing = append(progressing, fmt.Sprintf("DaemonSet %q is not yet scheduled on any nodes", ds.Name))
	case ds.Status.UpdatedNumberScheduled < ds.Status.DesiredNumberScheduled:
		progressing = append(progressing, fmt.Sprintf("DaemonSet %q update is rolling out (%d out of %d updated)", ds.Name, ds.Status.UpdatedNumberScheduled, ds.Status.DesiredNumberScheduled))
	}
	if len(progressing) > 0 {
		msg := strings.Join(progressing, "\n")
		return d.setConditions(ctx, dyn, nmstatesGVR, cr, []nmstateCondition{
			{"Progressing", "True", "Deploying", msg},
			{"Available", "False", "Deploying", "Deploying is in progress"},
			{"Degraded", "False", "Deploying", "Deploying is in progress"},
		})
	}
	const ok = "All components are available and ready"
	return d.setConditions(ctx, dyn, nmstatesGVR, cr, []nmstateCondition{
		{"Progressing", "False", "SuccessfullyDeployed", ok},
		{"Available", "True", "SuccessfullyDeployed", ok},
		{"Degraded", "False", "SuccessfullyDeployed", ok},
	})
}

// setConditions writes the conditions when one of them changed, with a transition time where its status changed.
func (d *NMStateOperatorDouble) setConditions(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, cr *unstructured.Unstructured, want []nmstateCondition) error {
	old := map[string]map[string]interface{}{}
	list, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, c := range list {
		if m, ok := c.(map[string]interface{}); ok {
			old[fmt.Sprint(m["type"])] = m
		}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	changed := false
	var conds []interface{}
	for _, w := range want {
		o := old[w.typ]
		since := now
		if o != nil && o["status"] == w.status {
			since = fmt.Sprint(o["lastTransitionTime"])
		}
		if o == nil || o["status"] != w.status || o["reason"] != w.reason || o["message"] != w.message {
			changed = true
		}
		conds = append(conds, map[string]interface{}{"type": w.typ, "status": w.status, "reason": w.reason, "message": w.message,
			"lastHeartbeatTime": now, "lastTransitionTime": since})
	}
	if !changed {
		return nil
	}
	if gvr != nmstatesGVR { // the handler updates its status (its RBAC grants no patch)
		if err := unstructured.SetNestedSlice(cr.Object, conds, "status", "conditions"); err != nil {
			return err
		}
		_, err := dyn.Resource(gvr).UpdateStatus(ctx, cr, metav1.UpdateOptions{})
		d.record("update "+gvr.Resource+"/status "+cr.GetName(), err)
		return err
	}
	patch, err := json.Marshal(map[string]interface{}{"apiVersion": cr.GetAPIVersion(), "kind": cr.GetKind(),
		"metadata": map[string]interface{}{"name": cr.GetName()}, "status": map[string]interface{}{"conditions": conds}})
	if err != nil {
		return err
	}
	_, err = dyn.Resource(gvr).Patch(ctx, cr.GetName(), types.ApplyPatchType, patch,
		metav1.PatchOptions{FieldManager: nmstateFieldOwner, Force: ptr(true)}, "status")
	d.record("patch "+gvr.Resource+"/status "+cr.GetName(), err)
	return err
}

func ptr[T any](v T) *T { return &v }

var (
	nncpGVR = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nodenetworkconfigurationpolicies"}
	nnceGVR = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1beta1", Resource: "nodenetworkconfigurationenactments"}
)

// enact plays the handler (pkg/policyconditions, pkg/node and the policy controller at nmstateoperand.Commit),
// applying no network state: on each node whose handler pod runs and that matches spec.nodeSelector, an enactment
// <node>.<policy> (label nmstate.io/policy) at once Available (SuccessfullyConfigured); the policy is Ignored
// (NoMatchingNode) without a matching node that has a handler pod, Progressing (ConfigurationProgressing)
// while fewer of those finished (the handler counts Ready nodes only; kwok's are), else Available (SuccessfullyConfigured, "<n>/<n> nodes successfully configured").
// It writes as the handler's ServiceAccount, only what changed.
func (d *NMStateOperatorDouble) enact(ctx context.Context, namespace string) error {
	cfg := rest.CopyConfig(d.admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + namespace + ":nmstate-handler",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	dyn := dynamic.NewForConfigOrDie(cfg)
	pods, err := d.kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "component=kubernetes-nmstate-handler"})
	if err != nil {
		return err
	}
	handled := map[string]bool{}
	for _, p := range pods.Items {
		handled[p.Spec.NodeName] = p.Status.Phase == corev1.PodRunning
	}
	nodes, err := d.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	policies, err2 := dyn.Resource(nncpGVR).List(ctx, metav1.ListOptions{})
	if err = cmp.Or(err, err2); err != nil {
		d.record("list nodes and policies", err)
		return err
	}
	for i := range policies.Items {
		policy := &policies.Items[i]
		selector, _, _ := unstructured.NestedStringMap(policy.Object, "spec", "nodeSelector")
		matching, done := 0, 0
		for _, n := range nodes.Items {
			running, pod := handled[n.Name]
			if !pod || !labels.SelectorFromSet(selector).Matches(labels.Set(n.Labels)) {
				continue
			}
			matching++
			if running && d.enactOn(ctx, dyn, n.Name, policy) == nil {
				done++
			}
		}
		var want []nmstateCondition
		switch {
		case matching == 0:
			want = policyConditions("False", "False", "False", "True", "NoMatchingNode", "Policy does not match any node")
		case done < matching:
			want = policyConditions("Unknown", "Unknown", "True", "False", "ConfigurationProgressing", fmt.Sprintf("Policy is progressing %d/%d nodes finished", done, matching))
		default:
			want = policyConditions("True", "False", "False", "False", "SuccessfullyConfigured", fmt.Sprintf("%d/%d nodes successfully configured", done, matching))
		}
		if err := d.setConditions(ctx, dyn, nncpGVR, policy, want); err != nil {
			return err
		}
	}
	return nil
}

// policyConditions: Available, Degraded, Progressing, Ignored with one reason; the message on the one that is True.
func policyConditions(available, degraded, progressing, ignored, reason, message string) []nmstateCondition {
	out := []nmstateCondition{{"Available", available, reason, ""}, {"Degraded", degraded, reason, ""},
		{"Progressing", progressing, reason, ""}, {"Ignored", ignored, reason, ""}}
	for i := range out {
		if out[i].status == "True" {
			out[i].message = message
		}
	}
	return out
}

// enactOn creates the node's enactment for the policy's generation, reported Available.
func (d *NMStateOperatorDouble) enactOn(ctx context.Context, dyn dynamic.Interface, node string, policy *unstructured.Unstructured) error {
	name := node + "." + policy.GetName()
	e, err := dyn.Resource(nnceGVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		e = &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "nmstate.io/v1beta1", "kind": "NodeNetworkConfigurationEnactment",
			"metadata": map[string]interface{}{"name": name, "labels": map[string]interface{}{"nmstate.io/policy": policy.GetName(), "nmstate.io/node": node}}}}
		e.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "nmstate.io/v1", Kind: "NodeNetworkConfigurationPolicy", Name: policy.GetName(), UID: policy.GetUID()}})
		e, err = dyn.Resource(nnceGVR).Create(ctx, e, metav1.CreateOptions{})
	}
	if err != nil {
		d.record("create nodenetworkconfigurationenactments "+name, err)
		return err
	}
	if g, _, _ := unstructured.NestedInt64(e.Object, "status", "policyGeneration"); g == policy.GetGeneration() {
		return nil
	}
	if err := unstructured.SetNestedField(e.Object, policy.GetGeneration(), "status", "policyGeneration"); err != nil {
		return err
	}
	unstructured.RemoveNestedField(e.Object, "status", "conditions") // written anew with the generation
	return d.setConditions(ctx, dyn, nnceGVR, e, []nmstateCondition{{"Available", "True", "SuccessfullyConfigured", "successfully reconciled"},
		{"Failing", "False", "SuccessfullyConfigured", ""}, {"Progressing", "False", "SuccessfullyConfigured", ""},
		{"Pending", "False", "SuccessfullyConfigured", ""}, {"Aborted", "False", "SuccessfullyConfigured", ""}})
}
