//go:build linux

package syncer

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/test/kubeletvolume"
)

// Generous timeouts: these tests must pass on a slow, loaded machine. They
// only bound how long we wait for something that must happen; nothing
// asserts that anything is fast.
const (
	waitFor = 60 * time.Second
	tick    = 10 * time.Millisecond
)

type testPair struct {
	name    string
	certPEM []byte
	keyPEM  []byte
	certDER []byte
	key     *ecdsa.PrivateKey
}

func genPair(t *testing.T, name string, notBefore, notAfter time.Time) testPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "crio-metrics " + name},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return testPair{
		name:    name,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		certDER: der,
		key:     key,
	}
}

func newPair(t *testing.T, name string) testPair {
	now := time.Now()
	return genPair(t, name, now.Add(-time.Hour), now.Add(24*time.Hour))
}

// secretVolume is a Secret volume as the kubelet projects it (..data swapped
// atomically, see test/kubeletvolume).
type secretVolume struct {
	t   *testing.T
	dir string
}

func newSecretVolume(t *testing.T) *secretVolume {
	return &secretVolume{t: t, dir: t.TempDir()}
}

func (v *secretVolume) update(files map[string][]byte) {
	v.t.Helper()
	_, err := kubeletvolume.Write(v.dir, files, nil)
	require.NoError(v.t, err)
}

func (v *secretVolume) setPair(p testPair) {
	v.update(map[string][]byte{"tls.crt": p.certPEM, "tls.key": p.keyPEM})
}

// syncRecorder collects the results of Run's syncs, in arrival order.
type syncRecorder struct {
	mu    sync.Mutex
	items []syncResult
}

func (r *syncRecorder) add(v syncResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, v)
}

func (r *syncRecorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.items)
}

// since returns what was recorded after the first n.
func (r *syncRecorder) since(n int) []syncResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]syncResult(nil), r.items[n:]...)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func destHolds(dir string, p testPair) bool {
	c, err1 := os.ReadFile(filepath.Join(dir, "tls.crt"))
	k, err2 := os.ReadFile(filepath.Join(dir, "tls.key"))
	return err1 == nil && err2 == nil && bytes.Equal(c, p.certPEM) && bytes.Equal(k, p.keyPEM)
}

func newTestSyncer(t *testing.T, src, dest string) *Syncer {
	t.Helper()
	s, err := New(Config{
		SourceDir: src,
		DestDir:   dest,
		// Long: the syncs under test must come from the directory watch,
		// not from the safety-net resync.
		ResyncInterval: time.Hour,
		Debounce:       20 * time.Millisecond,
	}, clock.RealClock{})
	require.NoError(t, err)
	return s
}

type syncResult struct {
	changed bool
	err     error
}

// startRun runs s.Run until the test ends and returns its sync recorder.
func startRun(t *testing.T, s *Syncer) *syncRecorder {
	t.Helper()
	rec := &syncRecorder{}
	s.onSync = func(changed bool, err error) { rec.add(syncResult{changed, err}) }
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			require.NoError(t, err)
		case <-time.After(waitFor):
			t.Error("Run did not return after its context was cancelled")
		}
	})
	require.Eventually(t, func() bool { return rec.len() > 0 }, waitFor, tick, "no initial sync")
	return rec
}
