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

	"github.com/fsnotify/fsnotify"
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

// record collects what other goroutines report, in arrival order: the
// events of an fsnotify watcher (eventLog) or the results of Run's syncs
// (syncRecorder).
type record[T any] struct {
	mu    sync.Mutex
	items []T
}

type (
	eventLog     = record[fsnotify.Event]
	syncRecorder = record[syncResult]
)

func (r *record[T]) add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, v)
}

func (r *record[T]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.items)
}

// since returns what was recorded after the first n.
func (r *record[T]) since(n int) []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.items[n:]...)
}

// watch starts an fsnotify watcher on paths, recording into log and calling
// onEvent (if not nil) for each event on the watcher's goroutine.
func watch(t *testing.T, log *eventLog, onEvent func(fsnotify.Event), paths ...string) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	for _, p := range paths {
		require.NoError(t, w.Add(p))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				log.add(ev)
				if onEvent != nil {
					onEvent(ev)
				}
			case _, ok := <-w.Errors:
				// An overflow loses events: the barrier's wait for the
				// sentinel's event then fails the test.
				if !ok {
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = w.Close()
		<-done
	})
}

// barrier proves that a watcher has delivered every event generated before
// it: it writes to a sentinel file the watcher also watches and waits for
// that event. inotify delivers one instance's events in order, so anything
// not logged before the sentinel's event never happened. No sleeping.
func barrier(t *testing.T, log *eventLog, sentinel string) int {
	t.Helper()
	start := log.len()
	f, err := os.OpenFile(sentinel, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var idx int
	require.Eventually(t, func() bool {
		for i, ev := range log.since(start) {
			if filepath.Clean(ev.Name) == filepath.Clean(sentinel) {
				idx = start + i
				return true
			}
		}
		return false
	}, waitFor, tick, "watcher never delivered the sentinel event")
	return idx
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
