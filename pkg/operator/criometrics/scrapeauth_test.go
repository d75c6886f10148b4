package criometrics

import (
	"context"
	"errors"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n"

func TestDecideScrapeAuth(t *testing.T) {
	for _, c := range []struct {
		version, ca string
		want        ScrapeAuth
	}{
		{"4.19.0", testCA, ScrapeAuth{ClientCA: testCA, ClientCertificate: true}},
		{"4.20.0-0.nightly-2026-01-01-000000", testCA, ScrapeAuth{ClientCA: testCA, ClientCertificate: true}},
		{"4.19.0-rc.1", testCA, ScrapeAuth{ClientCA: testCA, ClientCertificate: true}},
		{"5.0.0", testCA, ScrapeAuth{ClientCA: testCA, ClientCertificate: true}},
		// CMO before the scrape class: the proxy trusts the CA, the
		// ServiceMonitor keeps the token (prometheus-operator would drop a
		// ServiceMonitor naming an undeclared class).
		{"4.18.9", testCA, ScrapeAuth{ClientCA: testCA}},
		{"", testCA, ScrapeAuth{ClientCA: testCA}},
		{"garbage", testCA, ScrapeAuth{ClientCA: testCA}},
		// No CA to trust: a certificate would be refused.
		{"4.19.0", "", ScrapeAuth{}},
		{"4.19.0", "not PEM", ScrapeAuth{}},
		{"4.19.0", "-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n", ScrapeAuth{}},
	} {
		assert.Equal(t, c.want, DecideScrapeAuth(c.version, c.ca), "version %q, CA %q", c.version, c.ca)
	}
}

func TestRenderServiceMonitor(t *testing.T) {
	endpoint := func(a ScrapeAuth) (map[string]interface{}, map[string]interface{}) {
		raw, err := RenderServiceMonitor(a)
		require.NoError(t, err)
		var sm struct {
			Spec map[string]interface{} `json:"spec"`
		}
		require.NoError(t, yaml.Unmarshal(raw, &sm))
		return sm.Spec, sm.Spec["endpoints"].([]interface{})[0].(map[string]interface{})
	}
	spec, ep := endpoint(ScrapeAuth{ClientCA: testCA})
	assert.NotContains(t, spec, "scrapeClass")
	assert.NotEmpty(t, ep["bearerTokenFile"])

	spec, ep = endpoint(ScrapeAuth{ClientCA: testCA, ClientCertificate: true})
	assert.Equal(t, ScrapeClass, spec["scrapeClass"])
	assert.NotContains(t, ep, "bearerTokenFile")
	// The class supplies only the certificate and key; the stack's own CA
	// and serverName stay, or Prometheus would not trust our proxy.
	tlsConfig := ep["tlsConfig"].(map[string]interface{})
	assert.Contains(t, tlsConfig, "ca")
	assert.Equal(t, "crio-metrics.openshift-cluster-node-operator.svc", tlsConfig["serverName"])
}

func TestScrapeAuthLookup(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakePassiveClock(time.Unix(0, 0))
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"},
		Status: configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{{Name: "operator", Version: "4.19.2"}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-monitoring", Name: "metrics-client-ca"},
		Data: map[string]string{ClientCAKey: testCA}}
	kube, cos := kubefake.NewSimpleClientset(), fakeClusterOperators{}
	l := NewScrapeAuthLookup(kube, cos, clk, time.Minute)

	assert.Equal(t, ScrapeAuth{}, l.Get(ctx), "no CMO: the token")
	_, err := kube.CoreV1().ConfigMaps("openshift-monitoring").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)
	cos[co.Name] = co
	assert.Equal(t, ScrapeAuth{}, l.Get(ctx), "reused within the TTL")
	clk.SetTime(clk.Now().Add(time.Minute))
	want := ScrapeAuth{ClientCA: testCA, ClientCertificate: true}
	assert.Equal(t, want, l.Get(ctx))

	// A failed read keeps the last answer instead of flipping the scrape.
	kube.PrependReactor("get", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	clk.SetTime(clk.Now().Add(time.Minute))
	assert.Equal(t, want, l.Get(ctx))
	assert.Equal(t, ScrapeAuth{}, (*ScrapeAuthLookup)(nil).Get(ctx), "no lookup: the token")
}

type fakeClusterOperators map[string]*configv1.ClusterOperator

func (f fakeClusterOperators) Get(_ context.Context, name string, _ metav1.GetOptions) (*configv1.ClusterOperator, error) {
	if co, ok := f[name]; ok {
		return co, nil
	}
	return nil, apierrors.NewNotFound(configv1.Resource("clusteroperators"), name)
}
