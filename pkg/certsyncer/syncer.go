// Package certsyncer implements the cert-syncer subcommand. It runs in the
// crio-metrics DaemonSet on every node and copies the serving certificate and
// key from the mounted Secret volume (crio-metrics-serving-cert) to the host
// directory that CRI-O reads its metrics_cert / metrics_key from, so that
// CRI-O reloads them when the operator rotates the certificate.
//
// It needs no API access: it only watches a directory and writes two files.
// Keep it small; it runs on every node with a 15 MiB RSS budget.
package certsyncer

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"k8s.io/klog/v2"
)

const (
	// DefaultCertFileName and DefaultKeyFileName are the keys of a
	// kubernetes.io/tls Secret and the file names CRI-O is configured with.
	DefaultCertFileName = "tls.crt"
	DefaultKeyFileName  = "tls.key"
	// DefaultResyncInterval is the period of the safety-net re-check.
	DefaultResyncInterval = time.Minute
	// DefaultDebounce batches the burst of events one kubelet update causes
	// (new timestamped directory, ..data swap, removal of the old one).
	DefaultDebounce = 200 * time.Millisecond

	certFileMode os.FileMode = 0o644
	keyFileMode  os.FileMode = 0o600

	// minRetry is the first retry delay after a failed sync; it doubles up
	// to the resync interval.
	minRetry = time.Second
)

// Config configures a Syncer.
type Config struct {
	// SourceDir is the mounted Secret volume.
	SourceDir string
	// DestDir is the host directory CRI-O reads the pair from.
	DestDir string
	// CertFileName and KeyFileName name the files in both directories.
	CertFileName string
	KeyFileName  string
	// ResyncInterval is the period of the safety-net re-check.
	ResyncInterval time.Duration
	// Debounce is how long to wait after the first change event before
	// syncing. Zero means DefaultDebounce.
	Debounce time.Duration
}

// Syncer copies a certificate/key pair from SourceDir to DestDir.
type Syncer struct {
	cfg Config

	// syncMu serialises SyncOnce.
	syncMu sync.Mutex

	statusMu sync.Mutex
	status   Status

	// onSync, if set, is called after every sync Run performs (tests).
	onSync func(changed bool, err error)
}

// Status is what the health endpoint reports.
type Status struct {
	// Running is true while Run's loop is active.
	Running bool
	// Watching is false when the source directory could not be watched
	// and Run only re-checks every ResyncInterval.
	Watching bool
	// LastAttempt and LastSuccess are the times of the last sync attempt
	// and of the last one that succeeded (changed or not).
	LastAttempt time.Time
	LastSuccess time.Time
	// LastChange is the time the destination was last written.
	LastChange time.Time
	// LastError is the error of the last attempt, "" if it succeeded.
	LastError string
}

// New validates cfg (not the file system) and returns a Syncer.
func New(cfg Config) (*Syncer, error) {
	if cfg.CertFileName == "" {
		cfg.CertFileName = DefaultCertFileName
	}
	if cfg.KeyFileName == "" {
		cfg.KeyFileName = DefaultKeyFileName
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	var errs []error
	if cfg.SourceDir == "" {
		errs = append(errs, errors.New("source directory must be set"))
	}
	if cfg.DestDir == "" {
		errs = append(errs, errors.New("destination directory must be set"))
	}
	if cfg.SourceDir != "" && cfg.DestDir != "" && filepath.Clean(cfg.SourceDir) == filepath.Clean(cfg.DestDir) {
		errs = append(errs, fmt.Errorf("source and destination directory are the same (%s)", cfg.SourceDir))
	}
	for _, n := range []string{cfg.CertFileName, cfg.KeyFileName} {
		if n == "." || n == ".." || strings.ContainsRune(n, '/') || strings.HasPrefix(n, "..") {
			errs = append(errs, fmt.Errorf("invalid file name %q: must be a plain file name", n))
		}
	}
	if cfg.CertFileName == cfg.KeyFileName {
		errs = append(errs, fmt.Errorf("certificate and key file name are the same (%s)", cfg.CertFileName))
	}
	if cfg.ResyncInterval <= 0 {
		errs = append(errs, fmt.Errorf("resync interval must be positive, got %v", cfg.ResyncInterval))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Syncer{cfg: cfg}, nil
}

// Status returns a snapshot of the syncer's status.
func (s *Syncer) Status() Status {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	return s.status
}

// CheckDirs reports unrecoverable misconfiguration: the source or the
// destination directory is missing or not a directory.
//
// There is deliberately no grace period: the kubelet mounts the Secret and
// hostPath volumes before it starts the container, so a missing directory
// means a wrong flag or a missing volume, which no amount of waiting fixes.
// Exiting makes it visible (CrashLoopBackOff) instead of silently writing
// into the container's own file system. Missing or invalid files inside the
// source directory, by contrast, are retried forever.
func (s *Syncer) CheckDirs() error {
	for _, d := range []struct{ what, path, hint string }{
		{"source", s.cfg.SourceDir, "is the Secret volume mounted?"},
		{"destination", s.cfg.DestDir, "is the hostPath volume mounted?"},
	} {
		fi, err := os.Stat(d.path)
		if err != nil {
			return fmt.Errorf("%s directory %s: %w (%s)", d.what, d.path, err, d.hint)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s directory %s is not a directory (%s)", d.what, d.path, d.hint)
		}
	}
	return nil
}

// notYetValidError is returned for a certificate whose NotBefore lies in the
// future by this node's clock. CRI-O would refuse to load it and, as it only
// reloads on file events, never try again, so it is written only once valid.
type notYetValidError struct{ notBefore time.Time }

func (e *notYetValidError) Error() string {
	return fmt.Sprintf("certificate is not valid before %s (this node's clock says %s); waiting",
		e.notBefore.UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339))
}

// readSource reads and validates the pair in the source directory.
func (s *Syncer) readSource() (certPEM, keyPEM []byte, err error) {
	// Reading the two files is not atomic against the kubelet swapping
	// ..data in between; the pair check below catches the resulting
	// mismatch and the swap's own events cause another sync.
	certPEM, err = os.ReadFile(filepath.Join(s.cfg.SourceDir, s.cfg.CertFileName))
	if err != nil {
		return nil, nil, fmt.Errorf("reading source certificate: %w", err)
	}
	keyPEM, err = os.ReadFile(filepath.Join(s.cfg.SourceDir, s.cfg.KeyFileName))
	if err != nil {
		return nil, nil, fmt.Errorf("reading source key: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("source %s/%s in %s is not a valid certificate/key pair, not writing it: %w",
			s.cfg.CertFileName, s.cfg.KeyFileName, s.cfg.SourceDir, err)
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, nil, fmt.Errorf("parsing source certificate: %w", err)
		}
	}
	// CRI-O refuses (and keeps its previous pair) when the leaf is not
	// valid now. Writing such a pair would also make a restarting CRI-O
	// fail to start, so it is never written.
	now := time.Now()
	if now.Before(leaf.NotBefore) {
		return nil, nil, &notYetValidError{notBefore: leaf.NotBefore}
	}
	if now.After(leaf.NotAfter) {
		return nil, nil, fmt.Errorf("source certificate expired at %s, not writing it",
			leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	return certPEM, keyPEM, nil
}

// SyncOnce copies the pair from the source to the destination directory if
// the destination does not already hold identical bytes with the right
// modes. It reports whether it wrote anything. An invalid source pair is an
// error and leaves the destination untouched.
func (s *Syncer) SyncOnce() (changed bool, err error) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()

	certPEM, keyPEM, err := s.readSource()
	if err != nil {
		return false, err
	}

	// Write order: key first, certificate last. See writeFile for why each
	// file is rewritten in place.
	//
	// Between the two writes the destination holds a mismatched pair; that
	// cannot be avoided with two separate paths that CRI-O opens one after
	// the other. A reader loading during that window gets a key mismatch
	// error and keeps its previous pair (CRI-O does), and the second write
	// produces the last event, after which both files are final, so every
	// reader reloading on events ends up with the new pair.
	//
	// The certificate goes last because it is the file that announces the
	// new identity: reloaders that only react to the certificate file, and
	// anyone polling it, see it change only once its key is already in
	// place. Both writes are prepared (source read and validated) before the
	// first one starts, so the window is two small writes long.
	files := []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{s.cfg.KeyFileName, keyPEM, keyFileMode},
		{s.cfg.CertFileName, certPEM, certFileMode},
	}
	renamed := false
	for _, f := range files {
		c, r, err := writeFile(filepath.Join(s.cfg.DestDir, f.name), f.data, f.mode)
		changed = changed || c
		renamed = renamed || r
		if err != nil {
			return changed, err
		}
	}
	if renamed {
		if err := syncDir(s.cfg.DestDir); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// writeFile makes path a regular file with exactly data and mode. It
// reports whether it changed anything and whether it renamed a new file
// into place.
//
// Why in place and not "temp file + rename": CRI-O 1.34 (internal/cert)
// watches the certificate and key *files* with fsnotify, that is inotify
// watches on their inodes, and never re-adds a watch. rename(2) over a
// watched file gives the old inode IN_ATTRIB and IN_DELETE_SELF: CRI-O
// reloads once, fsnotify drops the watch, and CRI-O never notices any later
// rotation. So an existing regular file keeps its inode:
//
//  1. compare content and mode through a read-only descriptor; if both
//     match, stop (no write, no event);
//  2. fchmod to the final mode first, so the new key never sits in a file
//     readable by others;
//  3. write the whole content at offset 0 in one call (the file is never
//     empty, unlike with O_TRUNC);
//  4. ftruncate only if the old content was longer;
//  5. fsync.
//
// Watchers of the file (CRI-O) and of the directory get IN_MODIFY, the last
// one after the complete content is in place. A reader racing these steps
// may read a torn file, or before the truncate the new content followed by
// the old tail (PEM parsing ignores a tail without a complete block, so
// that loads as the new content); torn content fails to parse or to match
// the other file and the reader keeps its previous pair. Either way it
// reloads on that last event and ends with the new pair.
//
// A destination that does not exist yet (or is not a regular file, e.g. a
// symlink, which is never written through) has no inode anyone can watch,
// so it is created atomically instead: temp file in the same directory,
// chmod, write, fsync, rename (the caller fsyncs the directory).
func writeFile(path string, data []byte, mode os.FileMode) (changed, renamed bool, err error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode().IsRegular():
		changed, err = rewriteInPlace(path, data, mode)
		if !errors.Is(err, errNotRegular) {
			return changed, false, err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, false, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if err := createByRename(path, data, mode); err != nil {
		return false, false, err
	}
	klog.V(2).InfoS("Created file", "path", path, "mode", mode)
	return true, true, nil
}

var errNotRegular = errors.New("not a regular file")

const modeBits = os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky

func rewriteInPlace(path string, data []byte, mode os.FileMode) (changed bool, err error) {
	// Compare through a read-only descriptor: when nothing changed, the
	// file is not even opened for writing (no IN_CLOSE_WRITE either).
	// O_NOFOLLOW: never touch a symlink swapped in after Lstat.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return false, errNotRegular
		}
		return false, fmt.Errorf("opening %s: %w", path, err)
	}
	defer r.Close()
	fi, err := r.Stat()
	if err != nil {
		return false, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return false, errNotRegular
	}
	same := false
	if fi.Size() == int64(len(data)) {
		cur := make([]byte, len(data)+1)
		n, rerr := r.ReadAt(cur, 0)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return false, fmt.Errorf("reading %s: %w", path, rerr)
		}
		same = bytes.Equal(cur[:n], data)
	}
	// fchmod before any new content: the new key never sits in a file
	// others can read. It needs no write access to the descriptor.
	if fi.Mode()&modeBits != mode {
		if err := r.Chmod(mode); err != nil {
			return false, fmt.Errorf("setting mode of %s: %w", path, err)
		}
		changed = true
	}
	if same {
		return changed, nil
	}

	w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return changed, fmt.Errorf("opening %s for writing: %w", path, err)
	}
	defer func() {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing %s: %w", path, cerr)
		}
	}()
	if wfi, err := w.Stat(); err != nil || !os.SameFile(fi, wfi) {
		// Replaced between the two opens; the next sync looks again.
		return changed, fmt.Errorf("%s changed while being updated", path)
	}
	if _, err := w.WriteAt(data, 0); err != nil {
		return true, fmt.Errorf("writing %s: %w", path, err)
	}
	if fi.Size() > int64(len(data)) {
		if err := w.Truncate(int64(len(data))); err != nil {
			return true, fmt.Errorf("truncating %s: %w", path, err)
		}
	}
	if err := w.Sync(); err != nil {
		return true, fmt.Errorf("syncing %s: %w", path, err)
	}
	return true, nil
}

func createByRename(path string, data []byte, mode os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return fmt.Errorf("creating temporary file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	// CreateTemp creates 0600; set the final mode before any content.
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("setting mode of %s: %w", tmp.Name(), err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp.Name(), path, err)
	}
	return nil
}

func tempPrefix(base string) string { return "." + base + ".tmp-" }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// removeStaleTemps removes temporary files a killed predecessor left behind.
func (s *Syncer) removeStaleTemps() {
	for _, name := range []string{s.cfg.CertFileName, s.cfg.KeyFileName} {
		matches, _ := filepath.Glob(filepath.Join(s.cfg.DestDir, tempPrefix(name)+"*"))
		for _, m := range matches {
			if err := os.Remove(m); err == nil {
				klog.InfoS("Removed stale temporary file", "path", m)
			}
		}
	}
}

// Run syncs once, then again whenever the source directory changes (events
// debounced), after a failure (with backoff) and every ResyncInterval,
// until ctx is done. It returns an error only for unrecoverable
// misconfiguration (see CheckDirs); sync failures are logged and retried.
func (s *Syncer) Run(ctx context.Context) error {
	if err := s.CheckDirs(); err != nil {
		return err
	}
	s.removeStaleTemps()

	// Watch the directory, not the files: the kubelet updates a Secret
	// volume by swapping the ..data symlink, so the files' inodes behind
	// the top-level symlinks are replaced, never modified.
	var events <-chan fsnotify.Event
	var watchErrs <-chan error
	watching := false
	if w, err := fsnotify.NewWatcher(); err != nil {
		klog.ErrorS(err, "Cannot watch the source directory; falling back to re-checking every resync interval",
			"dir", s.cfg.SourceDir, "resyncInterval", s.cfg.ResyncInterval)
	} else {
		defer w.Close()
		if err := w.Add(s.cfg.SourceDir); err != nil {
			klog.ErrorS(err, "Cannot watch the source directory; falling back to re-checking every resync interval",
				"dir", s.cfg.SourceDir, "resyncInterval", s.cfg.ResyncInterval)
		} else {
			events, watchErrs, watching = w.Events, w.Errors, true
		}
	}

	s.statusMu.Lock()
	s.status.Running, s.status.Watching = true, watching
	s.statusMu.Unlock()
	defer func() {
		s.statusMu.Lock()
		s.status.Running = false
		s.statusMu.Unlock()
	}()
	klog.InfoS("Starting certificate syncer", "source", s.cfg.SourceDir, "dest", s.cfg.DestDir,
		"cert", s.cfg.CertFileName, "key", s.cfg.KeyFileName, "resyncInterval", s.cfg.ResyncInterval,
		"watching", watching)

	resync := time.NewTicker(s.cfg.ResyncInterval)
	defer resync.Stop()

	// One timer for the next sync; schedule only ever moves it earlier, so
	// a stream of events cannot postpone a sync indefinitely.
	timer := time.NewTimer(0) // initial sync right away
	defer timer.Stop()
	deadline := time.Now()
	schedule := func(d time.Duration) {
		at := time.Now().Add(d)
		if deadline.IsZero() || at.Before(deadline) {
			deadline = at
			timer.Reset(d)
		}
	}
	backoff := time.Duration(0)

	for {
		select {
		case <-ctx.Done():
			klog.InfoS("Stopping certificate syncer")
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				s.setWatching(false)
				continue
			}
			klog.V(4).InfoS("Source directory event", "event", ev.String())
			schedule(s.cfg.Debounce)
		case err, ok := <-watchErrs:
			if !ok {
				watchErrs = nil
				continue
			}
			// e.g. event queue overflow: events may be lost, so re-check.
			klog.ErrorS(err, "Watching the source directory")
			schedule(s.cfg.Debounce)
		case <-resync.C:
			schedule(0)
		case <-timer.C:
			deadline = time.Time{}
			changed, err := s.syncAndRecord()
			if err != nil {
				var nyv *notYetValidError
				if errors.As(err, &nyv) {
					backoff = 0
					schedule(min(time.Until(nyv.notBefore)+time.Second, s.cfg.ResyncInterval))
				} else {
					backoff = min(max(2*backoff, minRetry), s.cfg.ResyncInterval)
					schedule(backoff)
				}
			} else {
				backoff = 0
			}
			if s.onSync != nil {
				s.onSync(changed, err)
			}
		}
	}
}

func (s *Syncer) setWatching(w bool) {
	s.statusMu.Lock()
	s.status.Watching = w
	s.statusMu.Unlock()
}

func (s *Syncer) syncAndRecord() (bool, error) {
	now := time.Now()
	changed, err := s.SyncOnce()
	s.statusMu.Lock()
	s.status.LastAttempt = now
	if err != nil {
		s.status.LastError = err.Error()
	} else {
		s.status.LastError = ""
		s.status.LastSuccess = now
	}
	if changed {
		s.status.LastChange = now
	}
	s.statusMu.Unlock()
	switch {
	case err != nil:
		klog.ErrorS(err, "Syncing certificate failed; the destination keeps its previous pair", "dest", s.cfg.DestDir)
	case changed:
		klog.InfoS("Synced certificate and key", "dest", s.cfg.DestDir)
	default:
		klog.V(4).InfoS("Certificate and key up to date", "dest", s.cfg.DestDir)
	}
	return changed, err
}
