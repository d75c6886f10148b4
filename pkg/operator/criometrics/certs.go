package criometrics

import (
	"context"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	librarycertrotation "github.com/openshift/library-go/pkg/operator/certrotation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/criometricscerts"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// certificateExpiry feeds the CRIOMetricsCertificateNotRotated alert.
var certificateExpiry = metrics.NewGauge(&metrics.GaugeOpts{
	Name:           "cluster_node_operator_crio_metrics_certificate_expiry_timestamp_seconds",
	Help:           "Expiry of the CRI-O metrics serving certificate, in seconds since the epoch; 0 when none exists.",
	StabilityLevel: metrics.ALPHA,
})

func init() {
	legacyregistry.MustRegister(certificateExpiry)
}

type certController struct {
	deps     stack.Deps
	rotation *criometricscerts.Rotation
	secrets  corev1listers.SecretLister
	configs  corev1listers.ConfigMapLister
}

// newCertController creates and rotates the CA, the CA bundle and the serving
// certificate while the stack is on, and deletes them when it is off.
func newCertController(deps stack.Deps) stack.Runnable {
	informers := deps.KubeInformers.InformersFor(namespace)
	secrets := informers.Core().V1().Secrets()
	configMaps := informers.Core().V1().ConfigMaps()
	c := &certController{
		deps:     deps,
		rotation: criometricscerts.New(namespace, serviceName, deps.CertTiming, deps.KubeClient, secrets, configMaps, deps.OperatorClient, deps.Recorder),
		secrets:  secrets.Lister(),
		configs:  configMaps.Lister(),
	}
	// Rotation is time-driven: resync often enough that a short test validity
	// is honoured, which costs only cache reads at steady state.
	resync := time.Minute
	if deps.CertTiming.ServingRefresh < 4*time.Minute {
		resync = deps.CertTiming.ServingRefresh / 4
	}
	return factory.New().
		WithInformers(deps.NodeOperators.Informer(), secrets.Informer(), configMaps.Informer()).
		ResyncEvery(resync).
		WithSync(c.syncCertificates).
		ToController("CRIOMetricsCertificates", deps.Recorder)
}

func (c *certController) syncCertificates(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := stack.Read(c.deps.NodeOperators, nodev1alpha1.MetricsStack)
	switch intent := IntentFor(state); {
	case err != nil || intent == Hold:
		return err
	case intent == TearDown:
		certificateExpiry.Set(0)
		// The cache says first whether anything is left, so that an off
		// stack costs no API call at steady state.
		if !c.anyLeft() || !ObserveTLSStack(ctx, c.deps.DynamicClient, c.deps.Served.Get()).MayRemoveRest() {
			return nil
		}
		return c.remove(ctx)
	}
	err = c.rotation.Ensure(ctx)
	c.recordExpiry()
	return err
}

func (c *certController) recordExpiry() {
	secret, err := c.secrets.Secrets(namespace).Get(criometricscerts.ServingSecretName)
	if err != nil {
		return
	}
	notAfter, err := time.Parse(time.RFC3339, secret.Annotations[librarycertrotation.CertificateNotAfterAnnotation])
	if err != nil {
		return
	}
	certificateExpiry.Set(float64(notAfter.Unix()))
}

func (c *certController) anyLeft() bool {
	for _, name := range []string{criometricscerts.ServingSecretName, criometricscerts.SignerSecretName} {
		if _, err := c.secrets.Secrets(namespace).Get(name); !apierrors.IsNotFound(err) {
			return true
		}
	}
	_, err := c.configs.ConfigMaps(namespace).Get(criometricscerts.CABundleName)
	return !apierrors.IsNotFound(err)
}

// remove deletes what exists, reading the cache first.
func (c *certController) remove(ctx context.Context) error {
	core := c.deps.KubeClient.CoreV1()
	for _, name := range []string{criometricscerts.ServingSecretName, criometricscerts.SignerSecretName} {
		if _, err := c.secrets.Secrets(namespace).Get(name); apierrors.IsNotFound(err) {
			continue
		}
		if err := core.Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		klog.Infof("deleted secret %s/%s: the CRI-O metrics stack is off", namespace, name)
	}
	if _, err := c.configs.ConfigMaps(namespace).Get(criometricscerts.CABundleName); apierrors.IsNotFound(err) {
		return nil
	}
	if err := core.ConfigMaps(namespace).Delete(ctx, criometricscerts.CABundleName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
