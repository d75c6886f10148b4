// Package kubeletvolume writes a directory the way the kubelet's atomic
// writer projects a Secret, ConfigMap or projected volume (k8s.io/kubernetes
// v1.36.2 pkg/volume/util/atomic_writer.go), for tests of programs that read
// one: the syncer's unit tests, the e2e framework's nodes and the bench. It
// is test code; no production package imports it.
package kubeletvolume

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Write projects files (path -> content, mode from modes, default 0644) into
// dir as one update, as the kubelet does: a new ..<timestamp> directory,
// "..data_tmp" pointed at it and renamed over "..data" (the one atomic step),
// then top-level symlinks <name> -> ..data/<name> added or removed and the
// previous directory removed. It returns when "..data" was swapped.
func Write(dir string, files map[string][]byte, modes map[string]os.FileMode) (swapped time.Time, err error) {
	dataLink := filepath.Join(dir, "..data")
	old, _ := os.Readlink(dataLink)
	ts, err := os.MkdirTemp(dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return swapped, err
	}
	if err := os.Chmod(ts, 0o755); err != nil {
		return swapped, err
	}
	top := map[string]bool{}
	for p, data := range files {
		mode, ok := modes[p]
		if !ok {
			mode = 0o644
		}
		file := filepath.Join(ts, p)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return swapped, err
		}
		// WriteFile's mode is subject to the umask; the kubelet chmods too.
		if err := os.WriteFile(file, data, mode); err != nil {
			return swapped, err
		}
		if err := os.Chmod(file, mode); err != nil {
			return swapped, err
		}
		top[strings.Split(filepath.Clean(p), string(filepath.Separator))[0]] = true
	}
	tmpLink := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmpLink)
	if err := os.Symlink(filepath.Base(ts), tmpLink); err != nil {
		return swapped, err
	}
	if err := os.Rename(tmpLink, dataLink); err != nil {
		return swapped, err
	}
	swapped = time.Now()
	for name := range top {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				return swapped, err
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return swapped, err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "..") && !top[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return swapped, err
			}
		}
	}
	if old != "" && old != filepath.Base(ts) {
		return swapped, os.RemoveAll(filepath.Join(dir, old))
	}
	return swapped, nil
}
