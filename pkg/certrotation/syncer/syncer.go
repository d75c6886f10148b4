// Package syncer implements cert-syncer. It runs in the crio-metrics
// DaemonSet on every node and copies the serving certificate and key from
// the mounted Secret volume to the host directory CRI-O reads metrics_cert
// and metrics_key from, so that CRI-O reloads them after each rotation.
//
// It needs no API access. Keep it small: it runs on every node with a
// 15 MiB RSS budget.
package syncer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

const (
	// DefaultCertFileName and DefaultKeyFileName are the keys of a
	// kubernetes.io/tls Secret and the file names CRI-O is configured with.
	DefaultCertFileName = "tls.crt"
	DefaultKeyFileName  = "tls.key"
	// DefaultResyncInterval is how long after a sync the next one comes
	// without any event: a safety net for lost events.
	DefaultResyncInterval = time.Minute
	// DefaultDebounce batches the events of one kubelet update (new
	// timestamped directory, ..data swap, removal of the old one).
	DefaultDebounce = 200 * time.Millisecond

	certFileMode os.FileMode = 0o644
	keyFileMode  os.FileMode = 0o600
	// minRetry is the first delay after a failed sync; it doubles up to
	// the resync interval.
	minRetry = time.Second
)

// Config configures a Syncer.
type Config struct {
	// SourceDir is the mounted Secret volume; DestDir the host directory.
	SourceDir, DestDir string
	// CertFileName and KeyFileName name the files in both directories.
	CertFileName, KeyFileName string
	// ResyncInterval: see DefaultResyncInterval.
	ResyncInterval time.Duration
	// Debounce: see DefaultDebounce; zero means the default.
	Debounce time.Duration
}

// Syncer copies a certificate/key pair from SourceDir to DestDir.
type Syncer struct {
	cfg   Config
	clock clock.WithTicker

	mu     sync.Mutex
	status Status

	// onSync, if set, is called after every sync Run performs (tests).
	onSync func(changed bool, err error)
}

// Status is what the health endpoint reports.
type Status struct {
	// Running is true while Run is.
	Running bool
	// Watching is false when the source directory could not be watched;
	// then only the resync notices changes.
	Watching bool
	// LastSuccess is the time of the last sync that succeeded.
	LastSuccess time.Time
	// LastError is the error of the last sync, "" if it succeeded.
	LastError string
}

// New validates cfg (not the file system). clk drives the debounce,
// retries and resyncs, and says which certificates are valid now.
func New(cfg Config, clk clock.WithTicker) (*Syncer, error) {
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
	if cfg.SourceDir == "" || cfg.DestDir == "" {
		errs = append(errs, errors.New("source and destination directory must be set"))
	} else if filepath.Clean(cfg.SourceDir) == filepath.Clean(cfg.DestDir) {
		errs = append(errs, fmt.Errorf("source and destination directory are the same (%s)", cfg.SourceDir))
	}
	for _, n := range []string{cfg.CertFileName, cfg.KeyFileName} {
		if n == "." || strings.HasPrefix(n, "..") || strings.ContainsRune(n, '/') {
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
	return &Syncer{cfg: cfg, clock: clk}, nil
}

// Status returns a snapshot of the syncer's status.
func (s *Syncer) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// CheckDirs fails when the source or destination directory is missing or
// not a directory. No grace period: the kubelet mounts volumes before it
// starts the container, so this is a wrong flag or a missing volume, and
// exiting (CrashLoopBackOff) shows it instead of writing into the
// container's own file system. Problems with the files are retried.
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

// notYetValidError: CRI-O would refuse the pair and, reloading only on file
// events, never try again; so it is written once valid.
type notYetValidError struct{ notBefore, now time.Time }

func (e *notYetValidError) Error() string {
	return fmt.Sprintf("certificate is not valid before %s (this node's clock says %s); waiting",
		e.notBefore.UTC().Format(time.RFC3339), e.now.UTC().Format(time.RFC3339))
}

// readSource reads the pair and checks it is one that CRI-O would load now.
// The two reads may straddle a kubelet ..data swap; the pair check catches
// that, and the swap's own events cause another sync.
func (s *Syncer) readSource() (certPEM, keyPEM []byte, err error) {
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
	// A pair CRI-O refuses would also stop a restarting CRI-O from starting.
	switch now := s.clock.Now(); {
	case now.Before(pair.Leaf.NotBefore):
		return nil, nil, &notYetValidError{notBefore: pair.Leaf.NotBefore, now: now}
	case now.After(pair.Leaf.NotAfter):
		return nil, nil, fmt.Errorf("source certificate expired at %s, not writing it", pair.Leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	return certPEM, keyPEM, nil
}

// SyncOnce copies the pair unless the destination already holds the same
// bytes and modes, and reports whether it wrote anything. An invalid source
// pair is an error and leaves the destination untouched.
//
// The key goes first and the certificate last: the certificate announces the
// new identity, so reloaders that watch only it see it once its key is in
// place. In between the files do not match; CRI-O then keeps its previous
// pair and reloads on the certificate's event (docs/crio-local.md).
func (s *Syncer) SyncOnce() (changed bool, err error) {
	certPEM, keyPEM, err := s.readSource()
	if err != nil {
		return false, err
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{s.cfg.KeyFileName, keyPEM, keyFileMode}, {s.cfg.CertFileName, certPEM, certFileMode}} {
		c, err := writeFile(filepath.Join(s.cfg.DestDir, f.name), f.data, f.mode)
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	if changed {
		return true, syncDir(s.cfg.DestDir)
	}
	return false, nil
}

// Run syncs at once, then after each change of the source directory
// (debounced), after a failure (with backoff) and ResyncInterval after the
// last sync, until ctx is done. It fails only when CheckDirs does.
//
// All of that is one key in a client-go delaying queue: it holds the
// earliest of the pending times, so a stream of events cannot postpone a
// sync, and it never runs two syncs at once.
func (s *Syncer) Run(ctx context.Context) error {
	if err := s.CheckDirs(); err != nil {
		return err
	}
	s.removeStaleTemps()

	const key = "sync"
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](minRetry, s.cfg.ResyncInterval),
		workqueue.TypedRateLimitingQueueConfig[string]{Clock: s.clock})
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()

	watching := s.watchSource(func() { queue.AddAfter(key, s.cfg.Debounce) })
	s.setStatus(func(st *Status) { st.Running, st.Watching = true, watching != nil })
	defer s.setStatus(func(st *Status) { st.Running = false })
	if watching != nil {
		defer watching.Close()
	}
	klog.InfoS("Starting certificate syncer", "source", s.cfg.SourceDir, "dest", s.cfg.DestDir,
		"resyncInterval", s.cfg.ResyncInterval, "watching", watching != nil)

	queue.Add(key)
	for {
		item, shutdown := queue.Get()
		if shutdown {
			klog.InfoS("Stopping certificate syncer")
			return nil
		}
		changed, err := s.sync()
		var notYetValid *notYetValidError
		switch {
		case errors.As(err, &notYetValid):
			queue.Forget(item)
			queue.AddAfter(item, min(notYetValid.notBefore.Sub(s.clock.Now())+time.Second, s.cfg.ResyncInterval))
		case err != nil:
			queue.AddRateLimited(item)
		default:
			queue.Forget(item)
			queue.AddAfter(item, s.cfg.ResyncInterval)
		}
		queue.Done(item)
		if s.onSync != nil {
			s.onSync(changed, err)
		}
	}
}

// watchSource calls changed after every event in the source directory, and
// returns the watcher, or nil when the directory cannot be watched. The
// directory, not the files: the kubelet updates a Secret volume by swapping
// the ..data symlink, so the files behind the links are replaced.
func (s *Syncer) watchSource(changed func()) *fsnotify.Watcher {
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(s.cfg.SourceDir); err != nil {
			_ = w.Close()
		}
	}
	if err != nil {
		klog.ErrorS(err, "Cannot watch the source directory; relying on the resync", "dir", s.cfg.SourceDir)
		return nil
	}
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				klog.V(4).InfoS("Source directory event", "event", ev.String())
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				// e.g. an event queue overflow: events may be lost.
				klog.ErrorS(err, "Watching the source directory")
			}
			changed()
		}
	}()
	return w
}

func (s *Syncer) setStatus(update func(*Status)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	update(&s.status)
}

// sync runs SyncOnce, logs and records the outcome.
func (s *Syncer) sync() (bool, error) {
	changed, err := s.SyncOnce()
	now := s.clock.Now()
	s.setStatus(func(st *Status) {
		st.LastError = ""
		if err != nil {
			st.LastError = err.Error()
		} else {
			st.LastSuccess = now
		}
	})
	switch {
	case err != nil:
		klog.ErrorS(err, "Syncing certificate failed; the destination keeps its previous pair", "dest", s.cfg.DestDir)
	case changed:
		klog.InfoS("Synced certificate and key", "dest", s.cfg.DestDir)
	}
	return changed, err
}
