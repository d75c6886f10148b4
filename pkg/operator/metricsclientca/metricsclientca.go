// Package metricsclientca keeps the client CA that the operator Deployment's
// kube-rbac-proxy trusts (--client-ca-file): ConfigMap metrics-client-ca of
// the operator's namespace, a copy of client-ca-file in
// kube-system/extension-apiserver-authentication.
//
// That is the kube-apiserver's own client CA bundle, which the API server
// publishes as it starts, before the CVO applies anything of ours, on every
// cluster (with or without the monitoring capability, hosted or not). It
// holds the CA of the kube-apiserver-client signer, which signs the
// cluster-monitoring operator's client certificate
// (openshift-monitoring/metrics-client-certs), and CMO's own
// openshift-monitoring/metrics-client-ca is a copy of the same key: the
// same trust root that library-go's controllercmd and the CVO verify
// against (docs/crio-metrics.md, "The operator's own metrics").
//
// kube-rbac-proxy exits while its --client-ca-file is missing, so every
// replica writes the copy as it starts, before it waits for the lease
// (Prepare): a new pod of a rolling update must not wait for a leader that
// predates the copy. The leader's controller then keeps it current (CA
// rotations) and reports what fails in MetricsClientCADegraded.
package metricsclientca

import (
	"context"
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"

	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
)

const (
	// Name is the copy, in the operator's namespace; Key its one key, the
	// file kube-rbac-proxy reads.
	Name = "metrics-client-ca"
	Key  = "client-ca.crt"

	// SourceNamespace, SourceName and SourceKey: the API server's client CA.
	SourceNamespace = "kube-system"
	SourceName      = "extension-apiserver-authentication"
	SourceKey       = "client-ca-file"

	// FieldManager writes the copy and owns the condition.
	FieldManager = "NodeOperatorMetricsClientCA"
	// ConditionDegraded is True while the copy cannot be read or written.
	ConditionDegraded = "MetricsClientCADegraded"

	// resync: the source is read by name every 10 minutes, not watched (the
	// read budget); a new CA enters the bundle long before it signs.
	resync = 10 * time.Minute
)

// Ensure makes the copy in namespace equal to the source, with one GET of
// the source and, when the copy (from copies, or a GET when nil) differs,
// one server-side apply. It says whether it wrote.
func Ensure(ctx context.Context, kube kubernetes.Interface, copies corelisters.ConfigMapNamespaceLister, namespace string) (bool, error) {
	src, err := kube.CoreV1().ConfigMaps(SourceNamespace).Get(ctx, SourceName, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("reading ConfigMap %s/%s: %w", SourceNamespace, SourceName, err)
	}
	ca := src.Data[SourceKey]
	if ca == "" {
		return false, fmt.Errorf("ConfigMap %s/%s has no %s", SourceNamespace, SourceName, SourceKey)
	}
	var cur map[string]string
	if copies != nil {
		if cm, err := copies.Get(Name); err == nil {
			cur = cm.Data
		} else if !apierrors.IsNotFound(err) {
			return false, err
		}
	} else {
		cm, err := kube.CoreV1().ConfigMaps(namespace).Get(ctx, Name, metav1.GetOptions{})
		switch {
		case err == nil:
			cur = cm.Data
		case !apierrors.IsNotFound(err):
			return false, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, Name, err)
		}
	}
	if cur != nil && cur[Key] == ca {
		return false, nil
	}
	desired := corev1ac.ConfigMap(Name, namespace).
		WithAnnotations(map[string]string{"openshift.io/description": "Copy of " + SourceKey + " in " + SourceNamespace + "/" + SourceName +
			" (the API server's client CA, which signs the cluster-monitoring operator's client certificate), trusted by the operator's kube-rbac-proxy."}).
		WithData(map[string]string{Key: ca})
	// Server-side apply: one verb (patch) on one name creates and updates.
	if _, err := kube.CoreV1().ConfigMaps(namespace).Apply(ctx, desired, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
		return false, fmt.Errorf("writing ConfigMap %s/%s: %w", namespace, Name, err)
	}
	return true, nil
}

// Prepare writes the copy before the process waits for the lease, retrying
// (1 s doubling to a minute) until it is written or equal, or ctx is done.
// Failures are logged; the leader's condition reports them.
func Prepare(ctx context.Context, kube kubernetes.Interface, namespace string) {
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Cap: time.Minute, Steps: 1 << 30}
	_ = wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		wrote, err := Ensure(ctx, kube, nil, namespace)
		if err != nil {
			klog.Warningf("%s: %v", ConditionDegraded, err)
			return false, nil
		}
		if wrote {
			klog.Infof("wrote ConfigMap %s/%s for kube-rbac-proxy before leader election", namespace, Name)
		}
		return true, nil
	})
}

// ConditionFor is the condition for Ensure's error: stable text, the API
// server's own message.
func ConditionFor(err error) *applynodev1alpha1.NodeOperatorStatusApplyConfiguration {
	c := operatorclient.Condition(ConditionDegraded, operatorv1.ConditionFalse, "AsExpected", "")
	if err != nil {
		c = operatorclient.Condition(ConditionDegraded, operatorv1.ConditionTrue, "CopyFailed",
			fmt.Sprintf("the operator's metrics endpoint cannot trust client certificates (Prometheus' scrapes fail) until ConfigMap %s/%s is a copy of %s in %s/%s: %v",
				operatorclient.OperatorNamespace, Name, SourceKey, SourceNamespace, SourceName, err))
	}
	return applynodev1alpha1.NodeOperatorStatus().WithConditions(c)
}

// NewController keeps the copy while this process leads: on events of the
// copy and each minute.
func NewController(kube kubernetes.Interface, nodeOperators *operatorclient.NodeOperators, configMaps coreinformers.ConfigMapInformer, recorder events.Recorder) factory.Controller {
	lister := configMaps.Lister().ConfigMaps(operatorclient.OperatorNamespace)
	return factory.New().
		WithFilteredEventsInformers(factory.NamesFilter(Name), configMaps.Informer()).
		ResyncEvery(resync).
		WithSync(func(ctx context.Context, sc factory.SyncContext) error {
			wrote, err := Ensure(ctx, kube, lister, operatorclient.OperatorNamespace)
			if wrote {
				sc.Recorder().Eventf("MetricsClientCAUpdated", "ConfigMap %s/%s now holds %s of %s/%s", operatorclient.OperatorNamespace, Name, SourceKey, SourceNamespace, SourceName)
			}
			if _, getErr := nodeOperators.Get(); getErr != nil {
				return err // no NodeOperator: the status controller reports it
			}
			if applyErr := nodeOperators.ApplyStatus(ctx, FieldManager, ConditionFor(err)); applyErr != nil {
				return applyErr
			}
			return err
		}).
		ToController("MetricsClientCA", recorder)
}
