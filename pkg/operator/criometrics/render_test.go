package criometrics

import (
	"context"
	"crypto/tls"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

func TestRenderMachineConfigCarriesTheDropIn(t *testing.T) {
	for _, role := range machineConfigRoles {
		mc, err := RenderMachineConfig(role)
		require.NoError(t, err)
		assert.Equal(t, "50-"+role+"-crio-metrics-tls", mc.GetName())
		assert.Equal(t, role, mc.GetLabels()["machineconfiguration.openshift.io/role"])

		// The MCO reconciles only files (and units, kernel arguments, ...)
		// on a running cluster; any other storage section degrades the pool.
		storage, _, _ := unstructured.NestedMap(mc.Object, "spec", "config", "storage")
		for section := range storage {
			assert.Equal(t, "files", section, "storage.%s cannot be applied to a running cluster", section)
		}
		files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
		require.Len(t, files, 1)
		file := files[0].(map[string]interface{})
		assert.Equal(t, DropInPath, file["path"], "the node disruption policy entry names the same file")
		source, _, _ := unstructured.NestedString(file, "contents", "source")
		data, ok := strings.CutPrefix(source, "data:,")
		require.True(t, ok, source)
		content, err := url.PathUnescape(data)
		require.NoError(t, err)
		assert.Equal(t, string(bindata.MustAsset("metrics/crio-dropin.conf")), content)
		assert.Contains(t, content, `metrics_cert = "/var/lib/crio-metrics/tls.crt"`)
		assert.Contains(t, content, `metrics_key = "/var/lib/crio-metrics/tls.key"`)
	}
}

func TestRenderDaemonSet(t *testing.T) {
	images := stack.Images{KubeRBACProxy: "example/krp:1", CertSyncer: "example/op:1"}
	tls12, err := TLSArgs(nil)
	require.NoError(t, err)

	ds, err := RenderDaemonSet(images, tls12, "bundle-1", false)
	require.NoError(t, err)
	assert.Equal(t, int32(10), ds.Spec.MinReadySeconds, "a restart that runs a second is not available")
	spec := ds.Spec.Template.Spec
	assert.Equal(t, "example/krp:1", spec.Containers[0].Image)
	assert.Equal(t, "example/op:1", spec.Containers[1].Image)
	assert.Subset(t, spec.Containers[0].Args, tls12)
	assert.Contains(t, spec.Containers[0].Args, "--upstream=https://127.0.0.1:9537/")
	assert.True(t, spec.HostNetwork)
	for _, c := range spec.Containers {
		require.NotNil(t, c.SecurityContext, c.Name)
		assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation, c.Name)
		assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem, c.Name)
		assert.Equal(t, "ALL", string(c.SecurityContext.Capabilities.Drop[0]), c.Name)
		assert.Nil(t, c.Resources.Limits, c.Name)
		assert.NotEmpty(t, c.Resources.Requests, c.Name)

		// On RHCOS the hostPath keeps var_lib_t: only a container that
		// writes it needs spc_t, and the SCC must allow that type.
		writesHostPath := false
		for _, m := range c.VolumeMounts {
			for _, v := range spec.Volumes {
				writesHostPath = writesHostPath || (v.Name == m.Name && v.HostPath != nil && !m.ReadOnly)
			}
		}
		seType := ptr.Deref(c.SecurityContext.SELinuxOptions, corev1.SELinuxOptions{}).Type
		assert.Contains(t, []string{"", "spc_t"}, seType, c.Name)
		assert.Equal(t, writesHostPath, seType == "spc_t", "%s: spc_t exactly when it writes a hostPath", c.Name)
	}
	scc := resourceread.ReadUnstructuredOrDie(bindata.MustAsset("metrics/scc.yaml"))
	seStrategy, _, _ := unstructured.NestedString(scc.Object, "seLinuxContext", "type")
	assert.Equal(t, "RunAsAny", seStrategy, "the SCC must admit cert-syncer's spc_t")

	newCA, err := RenderDaemonSet(images, tls12, "bundle-2", false)
	require.NoError(t, err)
	assert.NotEqual(t, ds.Spec.Template.Annotations[caBundleHashAnnotation], newCA.Spec.Template.Annotations[caBundleHashAnnotation],
		"a new CA bundle rolls the pods: kube-rbac-proxy reads its upstream CA only at start")

	withClientCA, err := RenderDaemonSet(images, tls12, "bundle-1", true)
	require.NoError(t, err)
	assert.NotContains(t, spec.Containers[0].Args, "--client-ca-file="+ClientCAFile, "kube-rbac-proxy exits without the file")
	assert.Equal(t, append(append([]string{}, spec.Containers[0].Args...), "--client-ca-file="+ClientCAFile),
		withClientCA.Spec.Template.Spec.Containers[0].Args, "the client CA adds only its flag")

	_, err = RenderDaemonSet(stack.Images{}, tls12, "bundle-1", false)
	assert.Error(t, err, "missing images are an error, not an empty image")
}

func argValue(args []string, flag string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestTLSArgs(t *testing.T) {
	custom := &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: configv1.VersionTLS12, Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}},
	}}
	// Every suite must be one Go knows by its IANA name, as kube-rbac-proxy parses them.
	known := map[string]bool{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		known[s.Name] = true
	}
	for _, tc := range []struct {
		name        string
		profile     *configv1.TLSSecurityProfile
		wantMin     string
		wantCiphers bool
	}{
		{"unset is Intermediate", nil, "VersionTLS12", true},
		{"Old", &configv1.TLSSecurityProfile{Type: configv1.TLSProfileOldType}, "VersionTLS10", true},
		{"Intermediate", &configv1.TLSSecurityProfile{Type: configv1.TLSProfileIntermediateType}, "VersionTLS12", true},
		{"Modern has no 1.2 ciphers", &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}, "VersionTLS13", false},
		{"unknown type is Intermediate", &configv1.TLSSecurityProfile{Type: "Future"}, "VersionTLS12", true},
		{"Custom", custom, "VersionTLS12", true},
	} {
		args, err := TLSArgs(tc.profile)
		require.NoError(t, err, tc.name)
		min, _ := argValue(args, "--tls-min-version")
		assert.Equal(t, tc.wantMin, min, tc.name)
		ciphers, ok := argValue(args, "--tls-cipher-suites")
		assert.Equal(t, tc.wantCiphers, ok, tc.name)
		if !ok {
			continue
		}
		for _, s := range strings.Split(ciphers, ",") {
			assert.True(t, known[s], "%s: unknown cipher suite %q", tc.name, s)
			assert.False(t, strings.HasPrefix(s, "TLS_AES_") || strings.HasPrefix(s, "TLS_CHACHA20_"), "%s: TLS 1.3 suite %q cannot be configured", tc.name, s)
		}
	}
	args, _ := TLSArgs(custom)
	ciphers, _ := argValue(args, "--tls-cipher-suites")
	assert.Equal(t, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", ciphers)
	_, err := TLSArgs(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType})
	assert.Error(t, err)
	_, err = TLSArgs(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: configv1.VersionTLS12, Ciphers: []string{"NOT-A-CIPHER"}},
	}})
	assert.Error(t, err)
}

const testCA = "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n"

func TestDecideScrapeAuth(t *testing.T) {
	for version, classDeclared := range map[string]bool{
		"4.19.0": true, "4.20.0-0.nightly-2026-01-01-000000": true, "4.19.0-rc.1": true, "5.0.0": true,
		// CMO before the scrape class: the proxy trusts the CA, the
		// ServiceMonitor keeps the token (prometheus-operator would drop a
		// ServiceMonitor naming an undeclared class).
		"4.18.9": false, "": false, "garbage": false,
	} {
		assert.Equal(t, ScrapeAuth{ClientCA: testCA, ClientCertificate: classDeclared}, DecideScrapeAuth(version, testCA), "version %q", version)
	}
	// No CA to trust: a certificate would be refused.
	for _, ca := range []string{"", "not PEM", "-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n"} {
		assert.Equal(t, ScrapeAuth{}, DecideScrapeAuth("4.19.0", ca), "CA %q", ca)
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
	// CMO's class (cluster-monitoring-operator 0147bb52, jsonnet/components/prometheus.libsonnet, scrapeClasses).
	assert.Equal(t, "tls-client-certificate-auth", spec["scrapeClass"])
	assert.NotContains(t, ep, "bearerTokenFile")
	// The class supplies only the certificate and key; the stack's own CA
	// and serverName stay, or Prometheus would not trust our proxy.
	tlsConfig := ep["tlsConfig"].(map[string]interface{})
	assert.Contains(t, tlsConfig, "ca")
	assert.Equal(t, "crio-metrics.openshift-crio-metrics.svc", tlsConfig["serverName"])
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
