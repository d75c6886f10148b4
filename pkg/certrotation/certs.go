// Package certrotation keeps the CRI-O metrics CA, CA bundle and serving
// certificate with library-go's certrotation, and reports the result as
// conditions on the NodeOperator.
//
// Timing (defaults; shortened by flags in tests):
//   - the signer CA is valid 60 days and replaced after 30;
//   - the serving certificate is valid 30 days and replaced after 15, but
//     never with a CA younger than 10% of that refresh (1.5 days);
//   - the CA bundle keeps every CA that has not expired, so during a CA
//     change clients trust the old and the new CA. The DaemonSet rolls when
//     the bundle changes (kube-rbac-proxy reads its upstream CA only at start)
//     and has that 1.5-day grace to finish before CRI-O serves a certificate
//     from the new CA.
package certrotation

import (
	"context"
	"fmt"
	"time"

	librarycertrotation "github.com/openshift/library-go/pkg/operator/certrotation"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
)

// Names of the objects this package maintains.
const (
	SignerSecretName   = "crio-metrics-signer"
	CABundleName       = "crio-metrics-ca-bundle"
	CABundleKey        = "ca-bundle.crt"
	ServingSecretName  = "crio-metrics-serving-cert"
	jiraComponent      = "Node / CRI-O"
	conditionNameInfix = "CRIOMetrics"
)

// Timing is the validity and refresh of the CA and the serving certificate.
type Timing struct {
	SignerValidity  time.Duration
	SignerRefresh   time.Duration
	ServingValidity time.Duration
	ServingRefresh  time.Duration
}

// DefaultTiming is used in clusters.
var DefaultTiming = Timing{
	SignerValidity:  60 * 24 * time.Hour,
	SignerRefresh:   30 * 24 * time.Hour,
	ServingValidity: 30 * 24 * time.Hour,
	ServingRefresh:  15 * 24 * time.Hour,
}

// Validate refuses timings that cannot work.
func (t Timing) Validate() error {
	switch {
	case t.SignerRefresh <= 0 || t.SignerValidity <= t.SignerRefresh:
		return fmt.Errorf("signer refresh (%v) must be positive and shorter than its validity (%v)", t.SignerRefresh, t.SignerValidity)
	case t.ServingRefresh <= 0 || t.ServingValidity <= t.ServingRefresh:
		return fmt.Errorf("serving certificate refresh (%v) must be positive and shorter than its validity (%v)", t.ServingRefresh, t.ServingValidity)
	}
	return nil
}

// Rotation wraps library-go's CertRotationController parts; its errors
// are the caller's to report.
type Rotation struct {
	inner librarycertrotation.CertRotationController
}

// Hostnames are the names the serving certificate is valid for: the Service,
// for Prometheus, and loopback, for kube-rbac-proxy talking to CRI-O.
func Hostnames(namespace, service string) []string {
	return []string{
		service + "." + namespace + ".svc",
		service + "." + namespace + ".svc.cluster.local",
		"localhost",
		"127.0.0.1",
	}
}

// New returns the rotation for the CRI-O metrics certificates in namespace.
func New(namespace, service string, timing Timing, kubeClient kubernetes.Interface,
	secrets corev1informers.SecretInformer, configMaps corev1informers.ConfigMapInformer,
	recorder events.Recorder) *Rotation {
	hostnames := Hostnames(namespace, service)
	annotations := librarycertrotation.AdditionalAnnotations{JiraComponent: jiraComponent}
	inner := librarycertrotation.CertRotationController{
		Name: conditionNameInfix,
		RotatedSigningCASecret: librarycertrotation.RotatedSigningCASecret{
			Namespace:             namespace,
			Name:                  SignerSecretName,
			Validity:              timing.SignerValidity,
			Refresh:               timing.SignerRefresh,
			AdditionalAnnotations: withDescription(annotations, "Signs the serving certificate of CRI-O's metrics endpoint and of kube-rbac-proxy in front of it."),
			Informer:              secrets,
			Lister:                secrets.Lister(),
			Client:                kubeClient.CoreV1(),
			EventRecorder:         recorder,
		},
		CABundleConfigMap: librarycertrotation.CABundleConfigMap{
			Namespace:             namespace,
			Name:                  CABundleName,
			AdditionalAnnotations: withDescription(annotations, "CAs trusted by Prometheus and kube-rbac-proxy for CRI-O metrics; keeps the previous CA while it is valid."),
			Informer:              configMaps,
			Lister:                configMaps.Lister(),
			Client:                kubeClient.CoreV1(),
			EventRecorder:         recorder,
		},
		RotatedSelfSignedCertKeySecret: librarycertrotation.RotatedSelfSignedCertKeySecret{
			Namespace:             namespace,
			Name:                  ServingSecretName,
			Validity:              timing.ServingValidity,
			Refresh:               timing.ServingRefresh,
			AdditionalAnnotations: withDescription(annotations, "Serving certificate of CRI-O's metrics endpoint on every node, synced to /var/lib/crio-metrics by cert-syncer."),
			CertCreator: &librarycertrotation.ServingRotation{
				Hostnames: func() []string { return hostnames },
			},
			Informer:      secrets,
			Lister:        secrets.Lister(),
			Client:        kubeClient.CoreV1(),
			EventRecorder: recorder,
		},
	}
	return &Rotation{inner: inner}
}

func withDescription(a librarycertrotation.AdditionalAnnotations, description string) librarycertrotation.AdditionalAnnotations {
	a.Description = description
	return a
}

// Ensure creates or rotates what is due.
func (r *Rotation) Ensure(ctx context.Context) error {
	return r.inner.SyncWorker(ctx)
}
