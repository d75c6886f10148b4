//go:build linux

package syncer

import (
	"bytes"
	"context"
	"errors"
	"io"
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
	clocktesting "k8s.io/utils/clock/testing"
)

// TestUnchangedSecretWritesNothing: re-syncing, touching the source and
// the kubelet re-projecting identical content must not write at all.
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
	n := rec.len()
	src.setPair(p)
	require.Eventually(t, func() bool { return rec.len() > n }, waitFor, tick, "no sync after the re-projection")
	for _, r := range rec.since(0) {
		assert.NoError(t, r.err)
		assert.False(t, r.changed, "Run wrote an unchanged pair")
	}

	assert.Equal(t, before, statFiles(t, dest), "destination files were touched")
	assert.Equal(t, dirBefore, dirStat(t, dest), "a file was created or removed in the destination")
}

// TestInPlaceModesAndTruncation: existing files keep their inode (so CRI-O's
// inode watches survive), get the right modes, and end with exactly the new
// bytes even when the old content was longer.
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

// TestCreatesMissingFiles: a destination without the files (or with a
// symlink in their place) gets regular files, atomically, with the right
// modes and no temporary files left.
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
	startRun(t, s)

	require.True(t, destHolds(dest, p))
	assertModes(t, dest)
	assert.Equal(t, []byte("untouched"), readFile(t, outside), "wrote through a symlink")
	assertOnlyPair(t, dest)
}

// TestInvalidSourceNotWritten: a mismatched pair (certificate of one pair,
// key of another), a missing key, garbage, an expired or not-yet-valid
// certificate are never written; the previous good pair stays.
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
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.False(t, changed)
			assert.True(t, destHolds(dest, good), "previous good pair must stay")
		})
	}
	var nyv *notYetValidError
	vol := newSecretVolume(t)
	vol.setPair(future)
	_, err := newTestSyncer(t, vol.dir, dest).SyncOnce()
	require.True(t, errors.As(err, &nyv), "not-yet-valid must be reported as such so Run waits for NotBefore")

	// The running syncer sees a mismatched pair arrive and refuses it.
	n := rec.len()
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
	err := run(context.Background(), "--source-dir", filepath.Join(t.TempDir(), "missing"), "--dest-dir", dest)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is the Secret volume mounted?")
	err = run(context.Background(), "--source-dir", t.TempDir(), "--dest-dir", filepath.Join(t.TempDir(), "missing"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is the hostPath volume mounted?")
	err = run(context.Background(), "--source-dir", t.TempDir(), "--dest-dir", dest, "--key-file-name", "../x")
	require.Error(t, err)
	err = run(context.Background(), "--dest-dir", dest)
	require.Error(t, err, "--source-dir is required")

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

func TestHealthz(t *testing.T) {
	src := newSecretVolume(t)
	src.setPair(newPair(t, "p"))
	s := newTestSyncer(t, src.dir, t.TempDir())
	get := func() (int, string) {
		rr := httptest.NewRecorder()
		s.healthz(rr, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rr.Code, rr.Body.String()
	}
	code, _ := get()
	assert.Equal(t, http.StatusServiceUnavailable, code)
	startRun(t, s)
	code, body := get()
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "ok")
	assert.Contains(t, body, "last successful sync")
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

// TestRunSchedulesOnTheClock drives Run with a fake clock, with no event in
// the source: a not-yet-valid pair is written one second after NotBefore,
// an unchanged pair is re-checked every resync interval, and an expired one
// is retried after 1, 2, 4 s and never replaces the good pair. Each sync's time is the fake clock's, which
// moves only when the test steps it.
func TestRunSchedulesOnTheClock(t *testing.T) {
	start := time.Now().Truncate(time.Second)
	clk := clocktesting.NewFakeClock(start)
	p := genPair(t, "later", start.Add(30*time.Second), start.Add(90*time.Minute))
	src := newSecretVolume(t)
	src.setPair(p)
	dest := t.TempDir()
	s, err := New(Config{SourceDir: src.dir, DestDir: dest, ResyncInterval: time.Hour}, clk)
	require.NoError(t, err)

	var mu sync.Mutex
	var at []time.Duration
	var errs []error
	s.onSync = func(_ bool, err error) {
		mu.Lock()
		defer mu.Unlock()
		at = append(at, clk.Since(start))
		errs = append(errs, err)
	}
	syncs := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(at)
	}
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
	var want []time.Duration
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
		want = append(want, elapsed)
		require.Eventually(t, func() bool { return syncs() == len(want) }, waitFor, tick, "sync %d after step %d", len(want), i)
		mu.Lock()
		if err := errs[len(errs)-1]; st.wantErr == "" {
			assert.NoError(t, err, "step %d", i)
		} else if assert.Error(t, err, "step %d", i) {
			assert.Contains(t, err.Error(), st.wantErr, "step %d", i)
		}
		mu.Unlock()
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, want, at, "when each sync ran")
	assert.True(t, destHolds(dest, p), "an expired pair does not replace the destination")
}
