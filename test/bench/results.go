//go:build e2e

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// results is the table of docs/benchmarks.md and the details behind it,
// rewritten after every change so that an interrupted run keeps what it
// measured.
type results struct {
	mu      sync.Mutex
	path    string
	started time.Time
	rows    [][4]string // what, measured, budget, result
	notes   []string
}

// set adds or replaces the row of what; result is pass or FAIL by ok.
func (r *results) set(what, measured, budget string, ok bool) {
	r.setRow([4]string{what, measured, budget, map[bool]string{true: "pass", false: "FAIL"}[ok]})
}

func (r *results) setRow(x [4]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := 0
	for i < len(r.rows) && r.rows[i][0] != x[0] {
		i++
	}
	r.rows = append(r.rows[:i], append([][4]string{x}, r.rows[min(i+1, len(r.rows)):]...)...)
	r.flush()
}

func (r *results) note(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
	r.flush()
}

func (r *results) String() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	for _, x := range append([][4]string{{"what", "measured", "budget", "result"}, {"---", "---", "---", "---"}}, r.rows...) {
		fmt.Fprintf(tw, "| %s\t| %s\t| %s\t| %s\t|\n", x[0], x[1], x[2], x[3])
	}
	_ = tw.Flush()
	return b.String() + "\n## details\n\n```\n" + strings.Join(r.notes, "\n") + "\n```\n"
}

func (r *results) flush() {
	host, _ := os.Hostname()
	out := fmt.Sprintf("# cluster-node-operator benchmark results\n\nrun started %s, machine %s (%d CPUs), local control plane (kwok nodes)\n\n%s",
		r.started.UTC().Format(time.RFC3339), host, runtime.NumCPU(), r)
	_ = os.MkdirAll(filepath.Dir(r.path), 0o755)
	_ = os.WriteFile(r.path+".tmp", []byte(out), 0o644)
	_ = os.Rename(r.path+".tmp", r.path)
}
