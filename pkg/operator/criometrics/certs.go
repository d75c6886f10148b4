package criometrics

import (
	"context"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	librarycertrotation "github.com/openshift/library-go/pkg/operator/certrotation"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/criometricscerts"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
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
	nodeOperators *operatorclient.NodeOperators
	kube          kubernetes.Interface
	served        *stack.ServedAPIs
	observer      *TLSObserver
	rotation      *criometricscerts.Rotation
	secrets       corev1listers.SecretLister
	configs       corev1listers.ConfigMapLister
}

// NewCertController creates and rotates the CA, the CA bundle and the serving
// certificate while the own TLS stack serves, and deletes them when it goes.
// secrets and configMaps are informers of the operator's namespace; observer
// says whether the parts before them in the teardown order are gone.
func NewCertController(nodeOperators *operatorclient.NodeOperators, operatorClient v1helpers.OperatorClient,
	kube kubernetes.Interface, served *stack.ServedAPIs, observer *TLSObserver,
	secrets corev1informers.SecretInformer, configMaps corev1informers.ConfigMapInformer,
	timing criometricscerts.Timing, recorder events.Recorder) factory.Controller {
	c := &certController{
		nodeOperators: nodeOperators,
		kube:          kube,
		served:        served,
		observer:      observer,
		rotation:      criometricscerts.New(namespace, serviceName, timing, kube, secrets, configMaps, operatorClient, recorder),
		secrets:       secrets.Lister(),
		configs:       configMaps.Lister(),
	}
	// Rotation is time-driven: resync often enough that a short test validity
	// is honoured, which costs only cache reads at steady state.
	resync := time.Minute
	if timing.ServingRefresh < 4*time.Minute {
		resync = timing.ServingRefresh / 4
	}
	return factory.New().
		WithInformers(nodeOperators.Informer(), secrets.Informer(), configMaps.Informer()).
		ResyncEvery(resync).
		WithSync(c.syncCertificates).
		ToController("CRIOMetricsCertificates", recorder)
}

func (c *certController) syncCertificates(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := stack.Read(c.nodeOperators, nodev1alpha1.MetricsStack)
	switch intent := IntentFor(state); {
	case err != nil || intent == Hold:
		return err
	case intent == TearDown:
		certificateExpiry.Set(0)
		// The cache says first whether anything is left, so that an off
		// stack costs no API call at steady state.
		if !c.anyLeft() || !c.observer.Observe(ctx, c.served.Get(), TearDown, false).MayRemoveRest() {
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
	core := c.kube.CoreV1()
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
