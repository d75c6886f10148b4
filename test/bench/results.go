//go:build e2e

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// row is one line of the results table.
type row struct {
	What, Measured, Budget, Result string
}

// results collects the rows and the details, and rewrites the results file
// after every change, so that an interrupted run still leaves what it
// measured.
type results struct {
	mu      sync.Mutex
	path    string
	started time.Time
	rows    []row
	notes   []string
}

func (r *results) set(x row) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.rows {
		if r.rows[i].What == x.What {
			r.rows[i] = x
			r.flush()
			return
		}
	}
	r.rows = append(r.rows, x)
	r.flush()
}

func (r *results) note(format string, args ...interface{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
	r.flush()
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func (r *results) table() string {
	w := [4]int{len("what"), len("measured"), len("budget"), len("result")}
	for _, x := range r.rows {
		for i, s := range []string{x.What, x.Measured, x.Budget, x.Result} {
			if len(s) > w[i] {
				w[i] = len(s)
			}
		}
	}
	var b strings.Builder
	line := func(c [4]string) {
		fmt.Fprintf(&b, "| %-*s | %-*s | %-*s | %-*s |\n", w[0], c[0], w[1], c[1], w[2], c[2], w[3], c[3])
	}
	line([4]string{"what", "measured", "budget", "result"})
	line([4]string{strings.Repeat("-", w[0]), strings.Repeat("-", w[1]), strings.Repeat("-", w[2]), strings.Repeat("-", w[3])})
	for _, x := range r.rows {
		line([4]string{x.What, x.Measured, x.Budget, x.Result})
	}
	return b.String()
}

func (r *results) flush() {
	if r.path == "" {
		return
	}
	host, _ := os.Hostname()
	var b strings.Builder
	fmt.Fprintf(&b, "# cluster-node-operator benchmark results\n\nrun started %s, machine %s (%d CPUs), local control plane (kwok nodes)\n\n",
		r.started.UTC().Format(time.RFC3339), host, numCPU())
	b.WriteString(r.table())
	if len(r.notes) > 0 {
		b.WriteString("\n## details\n\n```\n")
		for _, n := range r.notes {
			b.WriteString(strings.TrimRight(n, "\n") + "\n")
		}
		b.WriteString("```\n")
	}
	_ = os.MkdirAll(filepath.Dir(r.path), 0o755)
	_ = os.WriteFile(r.path+".tmp", []byte(b.String()), 0o644)
	_ = os.Rename(r.path+".tmp", r.path)
}
