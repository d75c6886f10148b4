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
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	src := newSecretVolume(t)
	dest := t.TempDir()
	p := newPair(t, "p")
	src.setPair(p)
	s := newTestSyncer(t, src.dir, dest)

	changed, err := s.SyncOnce()
	require.NoError(t, err)
	require.True(t, changed)
	// Any write, truncation, chmod or rename changes a file's inode, mode,
	// mtime or ctime; a temporary file created and removed, the directory's.
	before, dirBefore := statFiles(t, dest), dirStat(t, dest)

	changed, err = s.SyncOnce()
	require.NoError(t, err)
	assert.False(t, changed, "second sync of the same pair")

	// Touch the projected files.
	future := time.Now().Add(time.Hour)
	for _, n := range []string{"tls.crt", "tls.key"} {
		require.NoError(t, os.Chtimes(filepath.Join(src.dir, n), future, future))
	}
	changed, err = s.SyncOnce()
	require.NoError(t, err)
	assert.False(t, changed, "sync after touching the source")

	// The kubelet re-projects the same content (new timestamped dir,
	// ..data swap), with Run watching.
	rec := startRun(t, s)
	n := len(rec.since(0))
	src.setPair(p)
	require.Eventually(t, func() bool { return len(rec.since(0)) > n }, waitFor, tick, "no sync after the re-projection")
	for _, r := range rec.since(0) {
		assert.NoError(t, r.err)
		assert.False(t, r.changed, "Run wrote an unchanged pair")
	}

	assert.Equal(t, before, statFiles(t, dest), "destination files were touched")
	assert.Equal(t, dirBefore, dirStat(t, dest), "a file was created or removed in the destination")
}

// Existing files keep their inode (CRI-O's watches), get the modes, end with exactly the new bytes.
func TestInPlaceModesAndTruncation(t *testing.T) {
	src := newSecretVolume(t)
	dest := t.TempDir()
	certPath, keyPath := filepath.Join(dest, "tls.crt"), filepath.Join(dest, "tls.key")
	boot := newPair(t, "boot")
	// Longer old content to exercise the truncation, wrong modes.
	require.NoError(t, os.WriteFile(certPath, append(bytes.Clone(boot.certPEM), bytes.Repeat([]byte("#"), 4096)...), 0o600))
	require.NoError(t, os.WriteFile(keyPath, boot.keyPEM, 0o600))
	require.NoError(t, os.Chmod(keyPath, 0o644))
	before := statFiles(t, dest)

	p := newPair(t, "p")
	src.setPair(p)
	s := newTestSyncer(t, src.dir, dest)
	changed, err := s.SyncOnce()
	require.NoError(t, err)
	require.True(t, changed)
	assert.Equal(t, p.certPEM, readFile(t, certPath))
	assert.Equal(t, p.keyPEM, readFile(t, keyPath))
	assertModes(t, dest)
	after := statFiles(t, dest)
	for n := range before {
		assert.Equal(t, before[n].ino, after[n].ino, "%s was replaced instead of rewritten in place", n)
	}

	// Only the mode drifted: fixed, content and inode unchanged.
	require.NoError(t, os.Chmod(keyPath, 0o640))
	changed, err = s.SyncOnce()
	require.NoError(t, err)
	assert.True(t, changed)
	assertModes(t, dest)
	assert.Equal(t, p.keyPEM, readFile(t, keyPath))
	assert.Equal(t, after["tls.key"].ino, statFiles(t, dest)["tls.key"].ino)
	assertOnlyPair(t, dest)
}

// Missing files (or symlinks in their place) become regular files, no temporary file left;
// healthz is 503 until the first sync, then 200.
func TestCreatesMissingFiles(t *testing.T) {
	src := newSecretVolume(t)
	dest := t.TempDir()
	outside := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.WriteFile(outside, []byte("untouched"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(dest, "tls.key")))
	// A temp file left by a killed predecessor.
	stale := filepath.Join(dest, tempPrefix("tls.crt")+"123")
	require.NoError(t, os.WriteFile(stale, []byte("junk"), 0o600))

	p := newPair(t, "p")
	src.setPair(p)
	s := newTestSyncer(t, src.dir, dest)
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
	assert.Equal(t, []byte("untouched"), readFile(t, outside), "wrote through a symlink")
	assertOnlyPair(t, dest)
}

// An invalid pair is never written; the previous good pair stays.
func TestInvalidSourceNotWritten(t *testing.T) {
	src := newSecretVolume(t)
	dest := t.TempDir()
	good := newPair(t, "good")
	src.setPair(good)
	s := newTestSyncer(t, src.dir, dest)
	rec := startRun(t, s)
	require.True(t, destHolds(dest, good))
	before := statFiles(t, dest)

	b, c := newPair(t, "b"), newPair(t, "c")
	now := time.Now()
	future := genPair(t, "future", now.Add(time.Hour), now.Add(2*time.Hour))
	expired := genPair(t, "expired", now.Add(-2*time.Hour), now.Add(-time.Hour))
	cases := []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"mismatched", map[string][]byte{"tls.crt": b.certPEM, "tls.key": c.keyPEM}, "not a valid certificate/key pair"},
		{"key missing", map[string][]byte{"tls.crt": b.certPEM}, "reading source key"},
		{"garbage", map[string][]byte{"tls.crt": []byte("garbage"), "tls.key": b.keyPEM}, "not a valid certificate/key pair"},
		{"not yet valid", map[string][]byte{"tls.crt": future.certPEM, "tls.key": future.keyPEM}, "not valid before"},
		{"expired", map[string][]byte{"tls.crt": expired.certPEM, "tls.key": expired.keyPEM}, "expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A fresh volume per case: only that case's files.
			vol := newSecretVolume(t)
			vol.update(tc.files)
			s2 := newTestSyncer(t, vol.dir, dest)
			changed, err := s2.SyncOnce()
			require.ErrorContains(t, err, tc.want)
			assert.False(t, changed)
			assert.True(t, destHolds(dest, good), "previous good pair must stay")
			var nyv *notYetValidError
			assert.Equal(t, tc.name == "not yet valid", errors.As(err, &nyv), "so that Run waits for NotBefore")
		})
	}

	// The running syncer sees a mismatched pair arrive and refuses it.
	n := len(rec.since(0))
	src.update(map[string][]byte{"tls.crt": b.certPEM, "tls.key": c.keyPEM})
	require.Eventually(t, func() bool {
		for _, r := range rec.since(n) {
			if r.err != nil {
				return true
			}
		}
		return false
	}, waitFor, tick, "Run never attempted the mismatched pair")
	for _, r := range rec.since(n) {
		assert.False(t, r.changed)
	}
	assert.True(t, destHolds(dest, good), "previous good pair must stay")
	assert.Equal(t, before, statFiles(t, dest), "inode, mode, mtime or ctime changed: written")
	assert.Contains(t, s.Status().LastError, "not a valid certificate/key pair")

	// A good pair afterwards is synced.
	d := newPair(t, "d")
	src.setPair(d)
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
		{[]string{"--source-dir", t.TempDir(), "--dest-dir", dest, "--key-file-name", "../x"}, ""},
		{[]string{"--dest-dir", dest}, ""}, // --source-dir is required
	} {
		assert.ErrorContains(t, run(context.Background(), tc.args...), tc.want, tc.args)
	}

	// Runs until SIGTERM, then returns without error.
	src := newSecretVolume(t)
	p := newPair(t, "p")
	src.setPair(p)
	errc := make(chan error, 1)
	go func() {
		errc <- run(context.Background(), "--source-dir", src.dir, "--dest-dir", dest,
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
	src := newSecretVolume(t)
	src.setPair(p)
	dest := t.TempDir()
	s, err := New(Config{SourceDir: src.dir, DestDir: dest, ResyncInterval: time.Hour}, clk)
	require.NoError(t, err)

	type result struct {
		at  time.Duration
		err error
	}
	syncs := make(chan result, 32)
	s.onSync = func(_ bool, err error) { syncs <- result{clk.Since(start), err} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})

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
	elapsed := time.Duration(0)
	for i, st := range steps {
		if i > 0 {
			// The queue's timer for the next sync is set (besides its
			// heartbeat ticker): the step cannot race with setting it.
			require.Eventually(t, func() bool { return clk.Waiters() == 2 }, waitFor, tick)
		}
		clk.Step(st.step)
		elapsed += st.step
		if st.wantErr == noneDue {
			continue
		}
		var got result
		select {
		case got = <-syncs:
		case <-time.After(waitFor):
			t.Fatalf("no sync after step %d", i)
		}
		assert.Equal(t, elapsed, got.at, "step %d: when the sync ran", i)
		if st.wantErr == "" {
			assert.NoError(t, got.err, "step %d", i)
		} else {
			assert.ErrorContains(t, got.err, st.wantErr, "step %d", i)
		}
	}
	assert.Empty(t, syncs, "no other sync")
	assert.True(t, destHolds(dest, p), "an expired pair does not replace the destination")
}

// Generous bounds for a slow, loaded machine: nothing asserts that anything is fast.
const (
	waitFor = 60 * time.Second
	tick    = 10 * time.Millisecond
)

type testPair struct{ certPEM, keyPEM []byte }

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

// secretVolume is a Secret volume as the kubelet projects it (test/kubeletvolume).
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
	s.onSync = func(changed bool, err error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.items = append(rec.items, syncResult{changed, err})
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
