package syncer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"k8s.io/klog/v2"
)

// writeFile makes path a regular file with exactly data and mode, and says
// whether it changed anything.
//
// An existing file is rewritten in place, keeping its inode: CRI-O watches
// the files' inodes and never re-adds a watch, so a rename over them makes it
// miss every later rotation (the e2e rotations with real CRI-O). The mode is
// set before new content, so a key is never readable by others; the content
// is written at offset 0 in one call and truncated after, so the file is
// never empty. A missing file (or a symlink, never written through) has no
// watched inode and is created atomically by rename.
func writeFile(path string, data []byte, mode os.FileMode) (bool, error) {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode().IsRegular():
		changed, err := rewriteInPlace(path, data, mode)
		if !errors.Is(err, errNotRegular) {
			return changed, err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if err := createByRename(path, data, mode); err != nil {
		return false, err
	}
	klog.V(2).InfoS("Created file", "path", path, "mode", mode)
	return true, nil
}

var errNotRegular = errors.New("not a regular file")

const modeBits = os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky

func rewriteInPlace(path string, data []byte, mode os.FileMode) (changed bool, err error) {
	// Compare through a read-only descriptor: an unchanged file is not even
	// opened for writing (no IN_CLOSE_WRITE). O_NOFOLLOW: a symlink swapped
	// in after Lstat is replaced, not written through.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		return false, errNotRegular
	} else if err != nil {
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
		n, err := r.ReadAt(cur, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return false, fmt.Errorf("reading %s: %w", path, err)
		}
		same = bytes.Equal(cur[:n], data)
	}
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

// syncDir makes a created file's directory entry durable.
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
			if os.Remove(m) == nil {
				klog.InfoS("Removed stale temporary file", "path", m)
			}
		}
	}
}
