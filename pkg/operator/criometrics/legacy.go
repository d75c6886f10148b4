package criometrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// Releases before openshift-crio-metrics ran the own TLS stack's namespaced
// operands in the operator's namespace, which is restricted now. An update
// removes what they left there, in an order that keeps a node unscraped for
// at most one rollout: the old DaemonSet first, because its pods hold host
// port 9638 on every node and the new DaemonSet's could not be scheduled
// beside them; then the new DaemonSet rolls out; then the rest of the old
// objects, which nothing uses any more. The cluster-scoped operands (SCC,
// cluster roles, drop-in MachineConfigs) keep their names and are updated
// in place.
const legacyNamespace = operatorclient.OperatorNamespace

// legacyFiles are the manifests of the old namespaced objects but the
// DaemonSet, rendered into legacyNamespace by legacyAsset.
var legacyFiles = []string{
	serviceMonitorFile,
	prometheusRuleFile,
	"metrics/service.yaml",
	"metrics/rolebinding-prometheus.yaml",
	"metrics/role-prometheus.yaml",
	"metrics/serviceaccount.yaml",
}

// legacySecrets and legacyConfigMaps are the old certificates and CA copies.
var (
	legacySecrets    = []string{certrotation.ServingSecretName, certrotation.SignerSecretName}
	legacyConfigMaps = []string{certrotation.CABundleName, ClientCAConfigMap}
)

// legacyObjects is what an earlier release left in the operator's namespace.
type legacyObjects struct {
	// DaemonSet is cached; Deleting: its deletion waits for its pods.
	DaemonSet, Deleting bool
	// Rest: any other old object (or a read that failed).
	Rest bool
}

// legacyPlan is what a sync does about the old objects.
type legacyPlan struct {
	DeleteDaemonSet bool
	// HoldDaemonSet: the new DaemonSet is not applied yet.
	HoldDaemonSet bool
	DeleteRest    bool
}

// planLegacy decides, from the caches and the new DaemonSet's rollout, what
// to remove now. Nothing is removed while the mode is not known (Hold).
func planLegacy(intent Intent, old legacyObjects, newRolledOut bool) legacyPlan {
	switch {
	case intent == Hold:
		return legacyPlan{}
	case old.DaemonSet:
		return legacyPlan{DeleteDaemonSet: !old.Deleting, HoldDaemonSet: true}
	case old.Rest && (intent == TearDown || newRolledOut):
		return legacyPlan{DeleteRest: true}
	}
	return legacyPlan{}
}

// rolledOut: the DaemonSet controller has seen it, and every node runs an
// available pod of the newest template.
func rolledOut(ds *appsv1.DaemonSet) bool {
	return ds != nil && ds.Status.ObservedGeneration > 0 && ds.Status.ObservedGeneration >= ds.Generation &&
		ds.Status.UpdatedNumberScheduled >= ds.Status.DesiredNumberScheduled &&
		ds.Status.NumberAvailable >= ds.Status.DesiredNumberScheduled
}

// legacyAsset renders a manifest into the operator's namespace.
func legacyAsset(name string) ([]byte, error) {
	raw, err := bindata.Asset(name)
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(raw, []byte("namespace: "+namespace), []byte("namespace: "+legacyNamespace)), nil
}

// observeLegacy reads the DaemonSet from the cache and looks for the rest
// once per process: after a look found nothing, or a removal succeeded, it
// is known gone and costs no request.
func (c *controller) observeLegacy(ctx context.Context) legacyObjects {
	var old legacyObjects
	if ds, err := c.legacyDaemonSets.DaemonSets(legacyNamespace).Get(DaemonSetName); !apierrors.IsNotFound(err) {
		old.DaemonSet, old.Deleting = true, err == nil && ds.DeletionTimestamp != nil
	}
	if !c.legacyGone {
		old.Rest = c.legacyRestLeft(ctx)
		c.legacyGone = !old.Rest
	}
	return old
}

func (c *controller) legacyRestLeft(ctx context.Context) bool {
	core := c.kube.CoreV1()
	for _, name := range legacySecrets {
		if _, err := core.Secrets(legacyNamespace).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return true
		}
	}
	for _, name := range legacyConfigMaps {
		if _, err := core.ConfigMaps(legacyNamespace).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return true
		}
	}
	return stack.AnyExists(ctx, c.dynamic, legacyAsset, legacyFiles...)
}

// takeLegacy carries out a plan's removals.
func (c *controller) takeLegacy(ctx context.Context, recorder events.Recorder, plan legacyPlan) error {
	switch {
	case plan.DeleteDaemonSet:
		// Foreground: the DaemonSet stays in the cache until its pods are
		// gone, and with it the hold on the new one.
		foreground := metav1.DeletePropagationForeground
		err := c.kube.AppsV1().DaemonSets(legacyNamespace).Delete(ctx, DaemonSetName, metav1.DeleteOptions{PropagationPolicy: &foreground})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("DaemonSet %s/%s of an earlier release: %w", legacyNamespace, DaemonSetName, err)
		}
		recorder.Eventf("CRIOMetricsMoved", "deleted DaemonSet %s/%s of an earlier release; the new one follows in %s", legacyNamespace, DaemonSetName, namespace)
	case plan.DeleteRest:
		var errs []error
		core := c.kube.CoreV1()
		for _, name := range legacySecrets {
			if err := core.Secrets(legacyNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		for _, name := range legacyConfigMaps {
			if err := core.ConfigMaps(legacyNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		errs = append(errs, legacyDeleteErrors(resourceapply.DeleteAll(ctx, c.clients, recorder, legacyAsset, legacyFiles...)))
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("objects of an earlier release in %s: %w", legacyNamespace, err)
		}
		c.legacyGone = true
		recorder.Eventf("CRIOMetricsMoved", "deleted what an earlier release left in %s: Service, ServiceMonitor, PrometheusRule, RBAC, ServiceAccount, certificates", legacyNamespace)
	}
	return nil
}

// legacyDeleteErrors: what is gone, or of a kind that is not served (no
// monitoring API), is no error.
func legacyDeleteErrors(results []resourceapply.ApplyResult) error {
	var msgs []string
	for _, r := range results {
		if r.Error != nil && !apierrors.IsNotFound(r.Error) {
			msgs = append(msgs, fmt.Sprintf("%s: %v", r.File, r.Error))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}
