package nmstate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslistersv1 "k8s.io/client-go/listers/apps/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// ControllerName names the controller in logs and events; it is also the
	// field manager of the NMState conditions and of the Deployment's
	// generation in the NodeOperator status.
	ControllerName = "NMStateStack"
	// resync bounds how long an edited or deleted object (or a deleted NMState
	// CR) stays wrong, and how soon an OLM install or the NMState's status is
	// seen: the NMState CR, the RBAC and OLM's objects are not watched, to
	// stay within the operator's watch budget. Only reads happen at steady
	// state, about ten a sync, so a shorter period would take most of the
	// read budget (docs/benchmarks.md).
	resync = 5 * time.Minute
	// pollInterval is how often a sync looks again while it waits for
	// something that no informer reports (a namespace being finalized).
	pollInterval = 2 * time.Second
)

type controller struct {
	readState      func() (stack.State, error)
	operatorClient v1helpers.OperatorClient
	kube           kubernetes.Interface
	dynamic        dynamic.Interface
	clients        *resourceapply.ClientHolder
	deployments    appslistersv1.DeploymentNamespaceLister
	cache          resourceapply.ResourceCache
	images         images
	clock          clock.PassiveClock
	conditions     stack.Conditions

	// applied is the Deployment generation this controller applied last
	// (nil: none since it started, or since the stack was last removed). The
	// NodeOperator status records it too, but that status is read from an
	// informer, which can lag behind the apply that recorded it: the next sync
	// would then see no generation, update the Deployment for nothing, and
	// fail with a conflict (NMStateDegraded) when the Deployment controller
	// wrote its status in between. Only the sync goroutine uses it (one
	// worker).
	applied *operatorv1.GenerationStatus

	// policies is the last answer of policiesExist: a failed LIST keeps it,
	// so that an API hiccup changes no more than NMStateDegraded.
	policies bool
}

// NewController returns the controller that deploys and removes the stack.
// It is triggered by the NodeOperator (the decision), by the nmstate-operator
// Deployment (deployments: an informer of the NMState namespace), and every
// minute.
func NewController(nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	kube kubernetes.Interface, dyn dynamic.Interface, apiExtensions apiextensionsclient.Interface,
	deployments appsinformers.DeploymentInformer, stackImages stack.Images, recorder events.Recorder) factory.Controller {
	c := &controller{
		readState:      func() (stack.State, error) { return stack.Read(nodeOperators, nodev1alpha1.NMStateStack) },
		operatorClient: operatorClient,
		kube:           kube,
		dynamic:        dyn,
		clients: resourceapply.NewKubeClientHolder(kube).
			WithAPIExtensionsClient(apiExtensions),
		deployments: deployments.Lister().Deployments(Namespace),
		cache:       resourceapply.NewResourceCache(),
		images:      imagesFrom(stackImages),
		clock:       clock.RealClock{},
		conditions:  stack.Conditions{Prefix: string(nodev1alpha1.NMStateStack)},
	}
	return factory.New().
		WithInformers(nodeOperators.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(DeploymentName), deployments.Informer()).
		ResyncEvery(resync).
		WithSync(c.syncNMState).
		ToController(ControllerName, recorder)
}

// syncNMState deploys or removes the stack as the recorded decision says, and
// reports NMStateAvailable, NMStateProgressing and NMStateDegraded.
func (c *controller) syncNMState(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := c.readState()
	if err != nil {
		return err
	}
	// Unmanaged (or no NodeOperator): touch nothing. Before the first
	// decision: neither deploy nor remove anything.
	if !state.Act || !state.Decided {
		return nil
	}

	var o observation
	var syncErr error
	other, findErr := c.findProvider(ctx)
	switch nextStep(state.Enabled, other, findErr) {
	case stepStepAside:
		o, syncErr = c.stepAside(ctx)
		o.Provider = other
	case stepDeploy:
		o, syncErr = c.deploy(ctx, syncCtx.Recorder(), state)
	case stepLook:
		o, syncErr = c.look(ctx)
	default:
		o, syncErr = c.remove(ctx)
		exist, err := c.policiesExist(ctx)
		if err == nil {
			c.policies = exist
		}
		o.Policies, syncErr = c.policies, errors.Join(syncErr, err)
	}
	if len(o.deleted) > 0 {
		// One event per sync: the recorder writes synchronously.
		syncCtx.Recorder().Eventf("NMStateStackRemoved", "Deleted %s", strings.Join(o.deleted, ", "))
	}
	syncErr = errors.Join(findErr, syncErr)
	o.Decision = state.Decision

	o.Now = c.clock.Now()
	o.SyncError = syncErr

	applyErr := c.operatorClient.ApplyOperatorStatus(ctx, ControllerName, c.status(state, o))
	if o.Waiting != "" || len(o.Remaining) > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), pollInterval)
	}
	return errors.Join(syncErr, applyErr)
}

// step is what a sync does with the stack.
type step int

const (
	stepDeploy step = iota
	stepRemove
	stepStepAside
	stepLook
)

// nextStep decides from the decision and the look for another NMState
// operator. The stack is deployed (its CRD applied first) only by a sync
// that has just looked and found none: an OLM install arriving meanwhile
// would have its CRD rewritten by ours. A failed look therefore only looks
// at what runs; a removal goes on, as it never touches what OLM owns.
func nextStep(enabled bool, other provider, lookErr error) step {
	switch {
	case other.found():
		return stepStepAside
	case !enabled:
		return stepRemove
	case lookErr != nil:
		return stepLook
	}
	return stepDeploy
}

// policiesExist says whether any NodeNetworkConfigurationPolicy exists: one
// LIST of at most one item on the syncs of a stack that is off. Where the
// CRD is not served it answers NotFound: none.
func (c *controller) policiesExist(ctx context.Context) (bool, error) {
	l, err := c.dynamic.Resource(PolicyGVR).List(ctx, metav1.ListOptions{Limit: 1})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil && len(l.Items) > 0, err
}

// look observes the deployed stack without writing anything.
func (c *controller) look(ctx context.Context) (observation, error) {
	var o observation
	if d, err := c.deployments.Get(DeploymentName); err == nil {
		o.Deployment = d
	}
	var err error
	o.CR, o.Operand, o.Waiting, err = c.ensureCR(ctx, nil, false)
	return o, err
}

// status is what this controller owns in the NodeOperator status: its three
// conditions and, while the stack is on, the Deployment's last applied
// generation (which keeps ApplyDeployment from writing at steady state).
func (c *controller) status(state stack.State, o observation) *applyoperatorv1.OperatorStatusApplyConfiguration {
	conds := conditionsFor(o)
	status := applyoperatorv1.OperatorStatus().WithConditions(
		c.conditions.Available(conds.Available.Status, conds.Available.Reason, conds.Available.Message),
		c.conditions.Progressing(conds.Progressing.Status, conds.Progressing.Reason, conds.Progressing.Message),
		c.conditions.Degraded(conds.Degraded.Status, conds.Degraded.Reason, conds.Degraded.Message),
	)
	if !state.Enabled || o.Provider.found() {
		return status
	}
	for _, g := range c.generations(state) {
		status.WithGenerations(applyoperatorv1.GenerationStatus().
			WithGroup(g.Group).WithResource(g.Resource).WithNamespace(g.Namespace).WithName(g.Name).
			WithLastGeneration(g.LastGeneration))
	}
	return status
}

var deploymentsGR = schema.GroupResource{Group: "apps", Resource: "deployments"}

// generations is the Deployment's last applied generation: the one this
// controller applied last, else the one the NodeOperator status records (a
// previous leader applied it).
func (c *controller) generations(state stack.State) []operatorv1.GenerationStatus {
	if c.applied != nil {
		return []operatorv1.GenerationStatus{*c.applied}
	}
	if state.NodeOperator != nil {
		if g := resourcemerge.GenerationFor(state.NodeOperator.Status.Generations, deploymentsGR, Namespace, DeploymentName); g != nil {
			return []operatorv1.GenerationStatus{*g}
		}
	}
	return nil
}

// deploy applies the stack in order: CRD, namespace, ServiceAccount and RBAC,
// the Deployment, and once it is available the NMState CR. Every step is a
// no-op when nothing changed.
func (c *controller) deploy(ctx context.Context, recorder events.Recorder, state stack.State) (observation, error) {
	var o observation
	// After an opt-out the namespace may still be terminating; nothing can
	// be created in it until it is gone.
	ns, err := c.kube.CoreV1().Namespaces().Get(ctx, Namespace, metav1.GetOptions{})
	switch {
	case err == nil && ns.DeletionTimestamp != nil:
		o.Waiting = fmt.Sprintf("namespace %s to finish terminating (removed by the last opt-out)", Namespace)
		return o, nil
	case err != nil && !apierrors.IsNotFound(err):
		return o, err
	}

	// A failing step does not stop the later ones, so that the conditions
	// describe what runs (a transient RBAC error must not make the stack
	// unavailable); every error is returned.
	if existing, err := c.deployments.Get(DeploymentName); err == nil {
		o.Deployment = existing
	}
	var errs []error
	for _, r := range resourceapply.ApplyDirectly(ctx, c.clients, recorder, c.cache, bindata.Asset, append([]string{crdFile}, staticFiles...)...) {
		if r.Error != nil {
			errs = append(errs, fmt.Errorf("applying %s: %w", r.File, r.Error))
		}
	}

	if required, err := readDeployment(c.images); err != nil {
		errs = append(errs, err)
	} else {
		expected := resourcemerge.ExpectedDeploymentGeneration(required, c.generations(state))
		actual, err := o.Deployment, error(nil)
		if o.Deployment == nil || !stack.InPlace(o.Deployment.ObjectMeta, required.ObjectMeta, required.Spec, expected) {
			actual, _, err = resourceapply.ApplyDeployment(ctx, c.kube.AppsV1(), recorder, required, expected)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("applying Deployment %s/%s: %w", Namespace, DeploymentName, err))
		} else {
			o.Deployment = actual
			o.Applied = true
			var applied []operatorv1.GenerationStatus
			resourcemerge.SetDeploymentGeneration(&applied, actual)
			c.applied = &applied[0]
		}
	}

	available := o.Deployment != nil && deploymentAvailable(o.Deployment)
	o.CR, o.Operand, o.Waiting, err = c.ensureCR(ctx, recorder, available)
	return o, errors.Join(append(errs, err)...)
}

// stepAside leaves NMState to another operator: it deletes the stack's own
// nmstate-operator Deployment and RBAC, so that one operator reconciles the
// NMState, and keeps everything that operator may use: the namespace, the
// ServiceAccount (OLM may have adopted it), the CRD, the NMState (its handler
// is owned by it) and every policy. Objects OLM owns are never touched.
func (c *controller) stepAside(ctx context.Context) (observation, error) {
	var o observation
	c.applied = nil // the status stops recording the Deployment's generation
	if err := c.deleteDeployment(ctx, &o); err != nil {
		return o, err
	}
	return o, c.deleteFiles(ctx, rbacFiles, &o)
}

// ensureCR finds the NMState CR and, when create is true and there is none,
// creates it. It never changes an existing one: an administrator's NMState is
// adopted as it is, and the spec of ours is the administrator's to tune.
func (c *controller) ensureCR(ctx context.Context, recorder events.Recorder, create bool) (crState, operandStatus, string, error) {
	nmstates := c.dynamic.Resource(NMStateGVR)
	live, err := nmstates.Get(ctx, CRName, metav1.GetOptions{})
	switch {
	case err == nil:
		return stateOf(live), operandOf(live), waitingFor(live), nil
	case !apierrors.IsNotFound(err):
		return crMissing, operandStatus{}, "", fmt.Errorf("reading NMState %s: %w", CRName, err)
	case !create:
		return crMissing, operandStatus{}, "", nil
	}
	cr, waiting, err := c.createCR(ctx, recorder)
	return cr, operandStatus{}, waiting, err
}

// createCR creates the NMState the stack deploys.
func (c *controller) createCR(ctx context.Context, recorder events.Recorder) (crState, string, error) {
	nmstates := c.dynamic.Resource(NMStateGVR)
	desired, err := readCR()
	if err != nil {
		return crMissing, "", err
	}
	_, err = nmstates.Create(ctx, desired, metav1.CreateOptions{FieldManager: ControllerName})
	switch {
	case apierrors.IsNotFound(err):
		// The CRD was created moments ago and is not served yet.
		return crMissing, fmt.Sprintf("CustomResourceDefinition %s to be served", NMStateGVR.GroupResource()), nil
	case apierrors.IsAlreadyExists(err):
		// Created meanwhile, by someone else: look again.
		return crMissing, fmt.Sprintf("NMState %s, created meanwhile, to be read", CRName), nil
	case err != nil:
		return crMissing, "", fmt.Errorf("creating NMState %s: %w", CRName, err)
	}
	recorder.Eventf("NMStateCreated", "Created NMState %s: the NMState operator now deploys its handler", CRName)
	return crOurs, "", nil
}

func stateOf(cr *unstructured.Unstructured) crState {
	switch {
	case cr.GetDeletionTimestamp() != nil:
		return crDeleting
	case ours(cr.GetLabels()):
		return crOurs
	default:
		return crAdopted
	}
}

func waitingFor(cr *unstructured.Unstructured) string {
	if cr.GetDeletionTimestamp() != nil {
		return fmt.Sprintf("NMState %s to finish its deletion", CRName)
	}
	return ""
}

// remove deletes what the stack created, in order: the NMState CR (only ours),
// the Deployment, then RBAC, ServiceAccount and namespace. It never deletes
// the nmstates.nmstate.io CRD, the NodeNetwork* CRDs or any object of them,
// nor anything without the stack's label. At steady state it only reads.
func (c *controller) remove(ctx context.Context) (observation, error) {
	var o observation
	c.applied = nil // the status stops recording it too

	// The NMState CR first: the handler, webhook, metrics and their RBAC and
	// webhook configuration are owned by it and garbage-collected with it,
	// while the NMState operator that created them still runs.
	nmstates := c.dynamic.Resource(NMStateGVR)
	live, err := nmstates.Get(ctx, CRName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		// Gone, or the CRD is not there.
	case err != nil:
		return o, fmt.Errorf("reading NMState %s: %w", CRName, err)
	case !ours(live.GetLabels()):
		o.CR = crAdopted
	case live.GetDeletionTimestamp() != nil:
		o.Remaining = append(o.Remaining, "NMState "+CRName)
		return o, nil
	default:
		uid := live.GetUID()
		err := nmstates.Delete(ctx, CRName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return o, fmt.Errorf("deleting NMState %s: %w", CRName, err)
		}
		o.deleted = append(o.deleted, "NMState "+CRName)
		if _, err := nmstates.Get(ctx, CRName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			o.Remaining = append(o.Remaining, "NMState "+CRName)
			return o, nil
		}
	}

	// Then the NMState operator, then RBAC, ServiceAccount and namespace, in
	// reverse order of creation.
	if err := c.deleteDeployment(ctx, &o); err != nil || len(o.Remaining) > 0 {
		return o, err
	}
	return o, c.deleteFiles(ctx, staticFiles, &o)
}

// deleteDeployment deletes the stack's nmstate-operator Deployment, read
// live (not from the cache, so that one created moments ago is deleted
// before its namespace), unless someone else's.
func (c *controller) deleteDeployment(ctx context.Context, o *observation) error {
	deployments := c.kube.AppsV1().Deployments(Namespace)
	d, err := deployments.Get(ctx, DeploymentName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading Deployment %s/%s: %w", Namespace, DeploymentName, err)
	case !ours(d.Labels) || olmOwned(d.Labels, d.OwnerReferences):
		return nil
	case d.DeletionTimestamp != nil:
		o.Remaining = append(o.Remaining, "Deployment "+DeploymentName)
		return nil
	}
	err = deployments.Delete(ctx, DeploymentName, metav1.DeleteOptions{Preconditions: unchanged(d.UID, d.ResourceVersion)})
	switch {
	case apierrors.IsConflict(err):
		// Changed since it was read, perhaps adopted by OLM: looked at again.
		o.Remaining = append(o.Remaining, "Deployment "+DeploymentName)
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("deleting Deployment %s/%s: %w", Namespace, DeploymentName, err)
	default:
		o.deleted = append(o.deleted, "Deployment "+DeploymentName)
	}
	return nil
}

// deleteFiles deletes the objects of manifests, last first.
func (c *controller) deleteFiles(ctx context.Context, files []string, o *observation) error {
	var errs []error
	for i := len(files) - 1; i >= 0; i-- {
		deleted, remaining, err := c.deleteStatic(ctx, files[i])
		if err != nil {
			errs = append(errs, err)
		}
		if deleted != "" {
			o.deleted = append(o.deleted, deleted)
		}
		if remaining != "" {
			o.Remaining = append(o.Remaining, remaining)
		}
	}
	return errors.Join(errs...)
}

// deleteStatic deletes the object of a manifest if it exists and carries the
// stack's label. It returns what it deleted, and what is still being deleted
// (a namespace being finalized).
func (c *controller) deleteStatic(ctx context.Context, file string) (deleted, remaining string, err error) {
	raw, err := bindata.Asset(file)
	if err != nil {
		return "", "", err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return "", "", fmt.Errorf("%s: %w", file, err)
	}
	gvk := obj.GroupVersionKind()
	resource, ok := stack.ResourceFor(gvk.GroupKind())
	if !ok {
		return "", "", fmt.Errorf("%s: no resource known for kind %s", file, gvk.GroupKind())
	}
	gvr := gvk.GroupVersion().WithResource(resource)
	var ri dynamic.ResourceInterface = c.dynamic.Resource(gvr)
	if ns := obj.GetNamespace(); ns != "" {
		ri = c.dynamic.Resource(gvr).Namespace(ns)
	}
	what := fmt.Sprintf("%s %s", gvk.Kind, obj.GetName())

	live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", "", nil
	case err != nil:
		return "", "", fmt.Errorf("reading %s: %w", what, err)
	case !ours(live.GetLabels()) || olmOwned(live.GetLabels(), live.GetOwnerReferences()):
		return "", "", nil
	case live.GetDeletionTimestamp() != nil:
		return "", what, nil
	}
	err = ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{Preconditions: unchanged(live.GetUID(), live.GetResourceVersion())})
	switch {
	case apierrors.IsNotFound(err):
		return "", "", nil
	case apierrors.IsConflict(err):
		// Changed since it was read (perhaps adopted): looked at again.
		return "", what, nil
	case err != nil:
		return "", "", fmt.Errorf("deleting %s: %w", what, err)
	}
	if gvk.Kind == "Namespace" {
		// Finalized by the namespace controller; reported until it is gone.
		return what, what, nil
	}
	return what, "", nil
}

// unchanged deletes an object only as it was read: one that someone (OLM)
// adopted in between is left alone.
func unchanged(uid types.UID, resourceVersion string) *metav1.Preconditions {
	return &metav1.Preconditions{UID: &uid, ResourceVersion: &resourceVersion}
}
