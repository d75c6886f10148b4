package framework

// Thanos Querier's web port as the node settings health gate reaches it: the
// real kube-rbac-proxy (a test CA for the service CA) in front of a real
// Prometheus, letting through a token whose user may get namespaces
// (cluster-monitoring-operator, assets/thanos-querier).

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// OperatorServiceAccount is the operator's ServiceAccount (manifests/).
const OperatorServiceAccount = "cluster-node-operator"

// QueryProxy is the stand-in for Thanos Querier's web port.
type QueryProxy struct {
	// Addr is chosen first, so that the operator can start with URL
	// (--prometheus-url) and CAFile (--prometheus-ca-file).
	Addr, URL, CAFile string

	dir, certFile, keyFile string
	caPEM                  []byte
	Process                *Process
}

// NewQueryProxy picks the proxy's address and issues its serving
// certificate from a CA of its own.
func NewQueryProxy(t testing.TB) *QueryProxy {
	t.Helper()
	dir, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-query-proxy-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	q := &QueryProxy{dir: dir, Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t))}
	q.URL = "https://" + q.Addr
	var ca *crypto.CA
	ca, q.caPEM = newTestCA(t, "e2e-service-ca")
	serving, err := ca.MakeServerCertForDuration(sets.New("thanos-querier.openshift-monitoring.svc", "127.0.0.1"), 24*time.Hour)
	require.NoError(t, err)
	certPEM, keyPEM, err := serving.GetPEMBytes()
	require.NoError(t, err)
	q.CAFile, q.certFile, q.keyFile = filepath.Join(dir, "service-ca.crt"), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for file, data := range map[string][]byte{q.CAFile: q.caPEM, q.certFile: certPEM, q.keyFile: keyPEM} {
		require.NoError(t, os.WriteFile(file, data, 0o600))
	}
	return q
}

// Start runs the real kube-rbac-proxy in front of prom, authorizing every
// request's token as "get namespaces" (the operator queries with GET).
func (q *QueryProxy) Start(t testing.TB, prom *Prometheus) {
	t.Helper()
	if err := EnsureTool(t, "kube-rbac-proxy"); err != nil {
		Unavailable(t, "kube-rbac-proxy is not available: %v", err)
	}
	config := filepath.Join(q.dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, []byte("authorization:\n  resourceAttributes:\n    apiGroup: \"\"\n    resource: namespaces\n"), 0o600))
	q.Process = StartProcess(t, "thanos-querier-web-proxy", filepath.Join(RepoRoot(t), "_output", "bin", "kube-rbac-proxy"), []string{
		"--secure-listen-address=" + q.Addr,
		"--upstream=" + prom.URL + "/",
		"--config-file=" + config,
		"--tls-cert-file=" + q.certFile,
		"--tls-private-key-file=" + q.keyFile,
		"--kubeconfig=" + KubeconfigPath(t),
	}, nil)
	WaitListening(t, q.Process, q.Addr, "the query proxy")
}

// Query runs an instant query through the proxy with token and returns
// the HTTP status and body.
func (q *QueryProxy) Query(t testing.TB, token, query string) (int, string) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(q.caPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	code, body, err := HTTPGet(client, q.URL+"/api/v1/query?query="+url.QueryEscape(query), token)
	require.NoError(t, err, "query through the proxy")
	return code, strings.TrimSpace(string(body))
}

// ServiceAccountTokenFile writes a token of namespace/name as the kubelet
// projects one, until the test ends, and returns its path.
func ServiceAccountTokenFile(t testing.TB, namespace, name string) string {
	t.Helper()
	client := KubeClient(t)
	ctx := Context(t, time.Minute)
	if _, err := client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
		if _, err := client.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("ServiceAccount %s/%s: %v", namespace, name, err)
		}
	}
	token, err := ServiceAccountToken(ctx, client, namespace, name, TokenOptions{})
	require.NoError(t, err)
	f, err := os.CreateTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-token-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	_, err = f.WriteString(token)
	require.NoError(t, errors.Join(err, f.Close()))
	return f.Name()
}
