package criometrics

import (
	"context"
	"encoding/pem"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
)

// How the platform Prometheus authenticates to the stack's kube-rbac-proxy
// (docs/crio-metrics.md, "Scrape authentication"). The cluster-monitoring
// operator (CMO) has Prometheus present a client certificate of
// system:serviceaccount:openshift-monitoring:prometheus-k8s, issued by the
// kube-apiserver-client signer into Secret openshift-monitoring/
// metrics-client-certs; since 4.19 its Prometheus k8s declares the scrape
// class below, which mounts that pair, and CMO copies the signer's CA into
// ConfigMap openshift-monitoring/metrics-client-ca (key client-ca.crt).
const (
	// ScrapeClass is CMO's scrape class for client-certificate scrapes.
	ScrapeClass = "tls-client-certificate-auth"
	// ClientCAConfigMap is the operator's copy of CMO's metrics client CA
	// in its own namespace, which the DaemonSet mounts (a pod cannot mount
	// a ConfigMap of another namespace).
	ClientCAConfigMap = "crio-metrics-client-ca"
	// ClientCAKey is the key of the CA in CMO's ConfigMap and in the copy.
	ClientCAKey = "client-ca.crt"
	// ClientCAFile is where kube-rbac-proxy reads the copy.
	ClientCAFile = "/etc/crio-metrics/client-ca/" + ClientCAKey

	monitoringNamespace  = "openshift-monitoring"
	cmoClientCAConfigMap = "metrics-client-ca"
	monitoringOperator   = "monitoring"

	clientCAConfigMapFile = "metrics/clientca-configmap.yaml"

	// ScrapeAuthTTL is how long a look at CMO's objects is reused: they
	// change on an upgrade or a CA rotation (the new CA is in the bundle
	// long before it signs), so a few reads a minute at most.
	ScrapeAuthTTL = time.Minute
)

// scrapeClassSince is the first CMO release whose Prometheus k8s declares
// ScrapeClass (openshift/cluster-monitoring-operator b7563845, in
// release-4.19, not in release-4.18).
var scrapeClassSince = [2]int{4, 19}

// ScrapeAuth is how the platform Prometheus scrapes the stack.
type ScrapeAuth struct {
	// ClientCA is CMO's metrics client CA (PEM) when it holds a
	// certificate; kube-rbac-proxy then also accepts client certificates
	// it signed.
	ClientCA string
	// ClientCertificate: the ServiceMonitor names ScrapeClass instead of
	// a bearer token.
	ClientCertificate bool
}

// DecideScrapeAuth is the pure decision. prometheus-operator refuses a
// whole ServiceMonitor that names a scrape class its Prometheus does not
// declare (v0.88 validateScrapeClass), so the class is named only where
// CMO's version has it; and only where kube-rbac-proxy can trust the
// certificate, or every scrape would be refused.
func DecideScrapeAuth(monitoringVersion, clientCA string) ScrapeAuth {
	var a ScrapeAuth
	if holdsCertificate(clientCA) {
		a.ClientCA = clientCA
	}
	a.ClientCertificate = a.ClientCA != "" && versionAtLeast(monitoringVersion, scrapeClassSince)
	return a
}

func holdsCertificate(data string) bool {
	rest := []byte(data)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return false
		}
		if b.Type == "CERTIFICATE" {
			return true
		}
	}
}

// versionAtLeast compares the major and minor of an OpenShift version
// ("4.19.0", "4.20.0-0.nightly-...", "4.19.0-rc.1"); anything else is older.
func versionAtLeast(v string, min [2]int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.SplitN(parts[1], "-", 2)[0])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > min[0] || major == min[0] && minor >= min[1]
}

// RenderServiceMonitor returns the stack's ServiceMonitor for a. With a
// client certificate it names CMO's scrape class, which supplies the
// certificate and key files; the endpoint's own CA (the stack's bundle)
// and serverName stay, as prometheus-operator merges a class's TLS files
// only into fields the endpoint leaves empty.
func RenderServiceMonitor(a ScrapeAuth) ([]byte, error) {
	raw, err := bindata.Asset(serviceMonitorFile)
	if err != nil {
		return nil, err
	}
	if !a.ClientCertificate {
		return raw, nil
	}
	obj := map[string]interface{}{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", serviceMonitorFile, err)
	}
	spec, _ := obj["spec"].(map[string]interface{})
	endpoints, _ := spec["endpoints"].([]interface{})
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("%s has no spec.endpoints", serviceMonitorFile)
	}
	for _, e := range endpoints {
		if m, ok := e.(map[string]interface{}); ok {
			delete(m, "bearerTokenFile")
		}
	}
	spec["scrapeClass"] = ScrapeClass
	return yaml.Marshal(obj)
}

// RenderClientCAConfigMap returns the copy of CMO's metrics client CA.
func RenderClientCAConfigMap(a ScrapeAuth) ([]byte, error) {
	raw, err := bindata.Asset(clientCAConfigMapFile)
	if err != nil {
		return nil, err
	}
	obj := map[string]interface{}{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", clientCAConfigMapFile, err)
	}
	obj["data"] = map[string]interface{}{ClientCAKey: a.ClientCA}
	return yaml.Marshal(obj)
}

// scrapeAuthAsset renders the ServiceMonitor and the client CA copy for a.
func scrapeAuthAsset(a ScrapeAuth) resourceapply.AssetFunc {
	return func(name string) ([]byte, error) {
		switch name {
		case serviceMonitorFile:
			return RenderServiceMonitor(a)
		case clientCAConfigMapFile:
			return RenderClientCAConfigMap(a)
		}
		return bindata.Asset(name)
	}
}

// ScrapeAuthLookup reads what DecideScrapeAuth needs by name, without a
// watch: ClusterOperator monitoring's operator version and CMO's
// metrics-client-ca ConfigMap, reused for ttl.
type ScrapeAuthLookup struct {
	kube             kubernetes.Interface
	clusterOperators ClusterOperatorGetter
	clock            clock.PassiveClock
	ttl              time.Duration

	mu   sync.Mutex
	at   time.Time
	last ScrapeAuth
}

// ClusterOperatorGetter is what the lookup uses of the config client's
// ClusterOperators.
type ClusterOperatorGetter interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*configv1.ClusterOperator, error)
}

// NewScrapeAuthLookup returns a lookup; nil clients make it answer the
// bearer-token fallback.
func NewScrapeAuthLookup(kube kubernetes.Interface, clusterOperators ClusterOperatorGetter, clk clock.PassiveClock, ttl time.Duration) *ScrapeAuthLookup {
	return &ScrapeAuthLookup{kube: kube, clusterOperators: clusterOperators, clock: clk, ttl: ttl}
}

// Get returns the decision. A failed read keeps the previous answer, so
// that an API hiccup never flips the ServiceMonitor and the DaemonSet.
func (l *ScrapeAuthLookup) Get(ctx context.Context) ScrapeAuth {
	if l == nil || l.kube == nil || l.clusterOperators == nil {
		return ScrapeAuth{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if !l.at.IsZero() && now.Sub(l.at) < l.ttl {
		return l.last
	}
	var version, ca string
	co, err := l.clusterOperators.Get(ctx, monitoringOperator, metav1.GetOptions{})
	switch {
	case err == nil:
		for _, v := range co.Status.Versions {
			if v.Name == "operator" {
				version = v.Version
			}
		}
	case !apierrors.IsNotFound(err):
		return l.last
	}
	cm, err := l.kube.CoreV1().ConfigMaps(monitoringNamespace).Get(ctx, cmoClientCAConfigMap, metav1.GetOptions{})
	switch {
	case err == nil:
		ca = cm.Data[ClientCAKey]
	case !apierrors.IsNotFound(err):
		return l.last
	}
	l.at, l.last = now, DecideScrapeAuth(version, ca)
	return l.last
}
