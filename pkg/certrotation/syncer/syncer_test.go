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
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/cluster-node-operator/test/kubeletvolume"
)

// Re-syncing, a touched source or an identical re-projection writes nothing.
func TestUnchangedSecretWritesNothing(t *testing.T) {
	src, dest := t.TempDir(), t.TempDir()
	p := newPair(t, "p")
	writeVolume(t, src, p.files())
	s := newTestSyncer(t, src, dest)

	changed, err := s.SyncOnce()
	require.NoError(t, err)
	require.True(t, changed)
	// Any write, truncation, chmod or rename changes a file's inode, mode,
	// mtime or ctime; a temporary file created and removed, the directory's.
	before, dirBefore := statFiles(t, dest), dirStat(t, dest)

	// The same pair again, its projected files touched.
	future := time.Now().Add(time.Hour)
	for _, n := range []string{"tls.crt", "tls.key"} {
		require.NoError(t, os.Chtimes(filepath.Join(src, n), future, future))
	}
	changed, err = s.SyncOnce()
	require.NoError(t, err)
	assert.False(t, changed, "sync of the same pair, the source touched")

	// The kubelet re-projects the same content (new timestamped dir,
	// ..data swap), with Run watching.
	rec := startRun(t, s)
	n := len(rec.since(0))
	writeVolume(t, src, p.files())
	require.Eventually(t, func() bool { return len(rec.since(0)) > n }, waitFor, tick, "no sync after the re-projection")
	assert.False(t, slices.ContainsFunc(rec.since(0), func(r syncResult) bool { return r.err != nil || r.changed }),
		"Run failed or wrote an unchanged pair: %v", rec.since(0))

	assert.Equal(t, before, statFiles(t, dest), "destination files were touched")
	assert.Equal(t, dirBefore, dirStat(t, dest), "a file was created or removed in the destination")
}

// A symlink or a missing file becomes a regular file, no temporary file left; healthz is 503
// until the first sync, then 200. Existing files keep their inode (CRI-O's watches), get the
// modes and end with exactly the new bytes.
func TestInPlaceModesAndTruncation(t *testing.T) {
	src, dest := t.TempDir(), t.TempDir()
	certPath, keyPath := filepath.Join(dest, "tls.crt"), filepath.Join(dest, "tls.key")
	outside := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.WriteFile(outside, []byte("untouched"), 0o600))
	require.NoError(t, os.Symlink(outside, keyPath))
	// A temp file left by a killed predecessor.
	stale := filepath.Join(dest, tempPrefix("tls.crt")+"123")
	require.NoError(t, os.WriteFile(stale, []byte("junk"), 0o600))

	p := newPair(t, "p")
	writeVolume(t, src, p.files())
	s := newTestSyncer(t, src, dest)
	healthz := func() (int, string) {
		rr := httptest.NewRecorder()
		s.healthz(rr, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rr.Code, rr.Body.String()
	}
	code, _ := healthz()
	assert.Equal(t, http.StatusServiceUnavailable, code, "healthz before the first sync")
	startRun(t, s)
	code, body := healthz()
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "last successful sync")
	require.True(t, destHolds(dest, p))
	assertModes(t, dest)
	untouched, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "untouched", string(untouched), "wrote through a symlink")
	assertOnlyPair(t, dest)

	// Longer old content with the key's mode, a key with the certificate's mode.
	require.NoError(t, os.WriteFile(certPath, bytes.Repeat([]byte("#"), 4096), 0))
	require.NoError(t, os.Chmod(certPath, 0o600))
	require.NoError(t, os.Chmod(keyPath, 0o644))
	before := statFiles(t, dest)
	changed, err := s.SyncOnce()
	require.NoError(t, err)
	assert.True(t, changed)
	assert.True(t, destHolds(dest, p))
	assertModes(t, dest)
	after := statFiles(t, dest)
	for n := range before {
		assert.Equal(t, before[n].ino, after[n].ino, "%s was replaced instead of rewritten in place", n)
	}
	assertOnlyPair(t, dest)
}

// An invalid pair is never written; the previous good pair stays.
func TestInvalidSourceNotWritten(t *testing.T) {
	src, dest := t.TempDir(), t.TempDir()
	good := newPair(t, "good")
	writeVolume(t, src, good.files())
	s := newTestSyncer(t, src, dest)
	rec := startRun(t, s)
	require.True(t, destHolds(dest, good))
	before := statFiles(t, dest)

	// No two files of different cases make a valid pair (the kubelet's
	// update is atomic, but a sync may read one file before it and one after).
	b, c := newPair(t, "b"), newPair(t, "c")
	now := time.Now()
	future := genPair(t, "future", now.Add(time.Hour), now.Add(2*time.Hour))
	expired := genPair(t, "expired", now.Add(-2*time.Hour), now.Add(-time.Hour))
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"mismatched", map[string][]byte{"tls.crt": b.certPEM, "tls.key": c.keyPEM}, "not a valid certificate/key pair"},
		{"key missing", map[string][]byte{"tls.crt": b.certPEM}, "reading source key"},
		{"garbage", map[string][]byte{"tls.crt": []byte("garbage"), "tls.key": c.keyPEM}, "not a valid certificate/key pair"},
		{"not yet valid", future.files(), "not valid before"},
		{"expired", expired.files(), "expired"},
	} {
		n := len(rec.since(0))
		writeVolume(t, src, tc.files)
		require.Eventually(t, func() bool {
			return slices.ContainsFunc(rec.since(n), func(r syncResult) bool { return r.err != nil && strings.Contains(r.err.Error(), tc.want) })
		}, waitFor, tick, "Run never refused the %s pair", tc.name)
		assert.Contains(t, s.Status().LastError, tc.want)
	}
	assert.False(t, slices.ContainsFunc(rec.since(1), func(r syncResult) bool { return r.changed }), "an invalid pair was written")
	assert.True(t, destHolds(dest, good), "previous good pair must stay")
	assert.Equal(t, before, statFiles(t, dest), "inode, mode, mtime or ctime changed: written")

	// A good pair afterwards is synced.
	d := newPair(t, "d")
	writeVolume(t, src, d.files())
	require.Eventually(t, func() bool { return destHolds(dest, d) }, waitFor, tick)
	require.Eventually(t, func() bool { return s.Status().LastError == "" }, waitFor, tick)
}

func TestCommand(t *testing.T) {
	run := func(ctx context.Context, args ...string) error {
		cmd := NewCommand()
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return cmd.ExecuteContext(ctx)
	}
	dest := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--source-dir", filepath.Join(t.TempDir(), "missing"), "--dest-dir", dest}, "is the Secret volume mounted?"},
		{[]string{"--source-dir", t.TempDir(), "--dest-dir", filepath.Join(t.TempDir(), "missing")}, "is the hostPath volume mounted?"},
		{[]string{"--source-dir", t.TempDir(), "--dest-dir", dest, "--key-file-name", "../x"}, `invalid file name "../x": must be a plain file name`},
		{[]string{"--dest-dir", dest}, `required flag(s) "source-dir" not set`},
	} {
		assert.ErrorContains(t, run(context.Background(), tc.args...), tc.want, tc.args)
	}

	// Runs until SIGTERM, then returns without error.
	src := t.TempDir()
	p := newPair(t, "p")
	writeVolume(t, src, p.files())
	errc := make(chan error, 1)
	go func() {
		errc <- run(context.Background(), "--source-dir", src, "--dest-dir", dest,
			"--health-listen-address", "127.0.0.1:0")
	}()
	// The destination is written by Run, which starts after the signal
	// handler is installed.
	require.Eventually(t, func() bool { return destHolds(dest, p) }, waitFor, tick)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case err := <-errc:
		require.NoError(t, err)
	case <-time.After(waitFor):
		t.Fatal("cert-syncer did not stop on SIGTERM")
	}
}

type fileStat struct {
	ino   uint64
	mode  os.FileMode
	mtime time.Time
	ctime syscall.Timespec
}

func statFiles(t *testing.T, dir string) map[string]fileStat {
	t.Helper()
	out := map[string]fileStat{}
	for _, n := range []string{"tls.crt", "tls.key"} {
		fi, err := os.Lstat(filepath.Join(dir, n))
		require.NoError(t, err)
		st := fi.Sys().(*syscall.Stat_t)
		out[n] = fileStat{ino: st.Ino, mode: fi.Mode(), mtime: fi.ModTime(), ctime: st.Ctim}
	}
	return out
}

func dirStat(t *testing.T, dir string) syscall.Timespec {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(dir, &st))
	return st.Ctim
}

func assertModes(t *testing.T, dir string) {
	t.Helper()
	st := statFiles(t, dir)
	assert.Equal(t, os.FileMode(0o644), st["tls.crt"].mode, "certificate mode")
	assert.Equal(t, os.FileMode(0o600), st["tls.key"].mode, "key mode")
}

// assertOnlyPair checks no temporary file is left next to the pair.
func assertOnlyPair(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"tls.crt", "tls.key"}, names)
}

// Run on a fake clock, no source event: NotBefore+1s, each resync, expired retried after 1, 2, 4 s.
func TestRunSchedulesOnTheClock(t *testing.T) {
	start := time.Now().Truncate(time.Second)
	clk := clocktesting.NewFakeClock(start)
	p := genPair(t, "later", start.Add(30*time.Second), start.Add(90*time.Minute))
	src, dest := t.TempDir(), t.TempDir()
	writeVolume(t, src, p.files())
	s, err := New(Config{SourceDir: src, DestDir: dest, ResyncInterval: time.Hour}, withoutTickers{clk})
	require.NoError(t, err)
	rec := startRun(t, s) // its first sync is the first step's

	// Each step moves the clock; a sync is due after it unless wantErr is
	// "none due" (then the next step's sync time proves it did not run).
	const noneDue = "none due"
	steps := []struct {
		step    time.Duration
		wantErr string
	}{
		{0, "not valid before"},
		{30 * time.Second, noneDue}, // NotBefore, but written at NotBefore+1s
		{time.Second, ""},
		{time.Hour, ""},        // the resync
		{time.Hour, "expired"}, // the next resync finds it expired
		{time.Second, "expired"},
		{2 * time.Second, "expired"},
		{4*time.Second - 1, noneDue},
		{1, "expired"},
	}
	elapsed, synced := time.Duration(0), 0
	for i, st := range steps {
		if i > 0 {
			// The queue's timer for the next sync is set: the step cannot
			// race with setting it.
			require.Eventually(t, func() bool { return clk.Waiters() == 1 }, waitFor, tick)
		}
		clk.Step(st.step)
		elapsed += st.step
		if st.wantErr == noneDue {
			continue
		}
		require.Eventually(t, func() bool { return len(rec.since(synced)) > 0 }, waitFor, tick, "no sync after step %d", i)
		got := rec.since(synced)[0]
		synced++
		assert.Equal(t, start.Add(elapsed), got.at, "step %d: when the sync ran", i)
		if st.wantErr == "" {
			assert.NoError(t, got.err, "step %d", i)
		} else {
			assert.ErrorContains(t, got.err, st.wantErr, "step %d", i)
		}
	}
	assert.Len(t, rec.since(0), synced, "no other sync")
	assert.True(t, destHolds(dest, p), "an expired pair does not replace the destination")
}

// withoutTickers is a fake clock whose tickers never tick. The work queue's
// heartbeat ticker, fired by a step, makes the queue stop and re-create its
// timer; a step landing in between would leave no timer due.
type withoutTickers struct{ *clocktesting.FakeClock }

func (withoutTickers) NewTicker(time.Duration) clock.Ticker { return silentTicker{} }

type silentTicker struct{}

func (silentTicker) C() <-chan time.Time { return nil }
func (silentTicker) Stop()               {}

// Generous bounds for a slow, loaded machine: nothing asserts that anything is fast.
const (
	waitFor = 60 * time.Second
	tick    = 10 * time.Millisecond
)

type testPair struct{ certPEM, keyPEM []byte }

func (p testPair) files() map[string][]byte {
	return map[string][]byte{"tls.crt": p.certPEM, "tls.key": p.keyPEM}
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
	return testPair{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}
}

func newPair(t *testing.T, name string) testPair {
	now := time.Now()
	return genPair(t, name, now.Add(-time.Hour), now.Add(24*time.Hour))
}

// writeVolume writes dir as the kubelet projects a Secret volume (test/kubeletvolume).
func writeVolume(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	_, err := kubeletvolume.Write(dir, files, nil)
	require.NoError(t, err)
}

// syncRecorder collects the results of Run's syncs, in arrival order.
type syncRecorder struct {
	mu    sync.Mutex
	items []syncResult
}

func (r *syncRecorder) since(n int) []syncResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]syncResult(nil), r.items[n:]...)
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
	at      time.Time // on the syncer's clock
}

// startRun runs s.Run until the test ends and returns its sync recorder.
func startRun(t *testing.T, s *Syncer) *syncRecorder {
	t.Helper()
	rec := &syncRecorder{}
	s.onSync = func(changed bool, err error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.items = append(rec.items, syncResult{changed, err, s.clock.Now()})
	}
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
	require.Eventually(t, func() bool { return len(rec.since(0)) > 0 }, waitFor, tick, "no initial sync")
	return rec
}
