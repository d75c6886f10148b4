//go:build e2e

// Package bench measures the budgets of docs/benchmarks.md on a local
// control plane with the kube-apiserver audit log on; hack/bench.sh (`make
// bench`) starts it and runs this.
package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
	"github.com/openshift/cluster-node-operator/test/kubeletvolume"
)

const (
	operatorVersion = "0.0.1-e2e"
	// client-go's default user agent starts with the binary's name and a
	// slash; the e2e clients send "cluster-node-operator-e2e...".
	operatorUserAgentPrefix = "cluster-node-operator/"
	metricsDaemonSet        = "crio-metrics"
)

// env is the variable's value parsed, def when it is unset.
func env[T any](t *testing.T, name string, def T, parse func(string) (T, error)) T {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return x
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// rss reads VmRSS, RssAnon (heap, stacks) and RssFile (the mapped binary's
// pages) from /proc/<pid>/status, in bytes.
func rss(pid int) (vm, anon, file int64) {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	out := map[string]int64{}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			out[strings.TrimSuffix(f[0], ":")] = kb * 1024
		}
	}
	return out["VmRSS"], out["RssAnon"], out["RssFile"]
}

func rssNote(pid int) string {
	vm, anon, file := rss(pid)
	return fmt.Sprintf("%s (RssAnon %s, RssFile %s)", mib(vm), mib(anon), mib(file))
}

// observer samples a process's RSS, and ClusterOperator Progressing when c
// is set, every interval until finish.
type observer struct {
	quit, done chan struct{}
	peak       int64
	polls      int
	trues      []string
}

func observe(c *framework.Cluster, pid int, interval time.Duration) *observer {
	o := &observer{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		wait.Until(func() {
			o.peak = max(o.peak, func() int64 { vm, _, _ := rss(pid); return vm }())
			if c == nil {
				return
			}
			if co, err := c.ClusterOperator(context.Background()); err == nil {
				o.polls++
				if cond := framework.COCondition(co, configv1.OperatorProgressing); cond != nil && cond.Status == configv1.ConditionTrue {
					o.trues = append(o.trues, fmt.Sprintf("%s %s: %s", time.Now().UTC().Format("15:04:05"), cond.Reason, cond.Message))
				}
			}
		}, interval, o.quit)
	}()
	return o
}

func (o *observer) finish() *observer { close(o.quit); <-o.done; return o }

// maxRSS is the largest RSS of the process over d.
func maxRSS(pid int, d time.Duration) int64 {
	o := observe(nil, pid, time.Second)
	time.Sleep(d)
	return o.finish().peak
}

func settledWithVersion(co *configv1.ClusterOperator) string {
	if why := framework.Settled(co); why != "" {
		return why
	}
	for _, v := range co.Status.Versions {
		if v.Name == "operator" && v.Version == operatorVersion {
			return ""
		}
	}
	return "version operator=" + operatorVersion + " not reported"
}

// TestBench: docs/test-behaviours.md; hack/bench.sh sets the BENCH_* variables.
func TestBench(t *testing.T) {
	root := framework.RepoRoot(t)
	parts := cmp.Or(os.Getenv("BENCH_PARTS"), "all")
	res := &results{path: cmp.Or(os.Getenv("BENCH_RESULTS"), filepath.Join(root, "_output", "bench", "results.md")), started: time.Now()}
	defer t.Logf("results written to %s", res.path)

	var args []string
	if parts == "guard" {
		args = guardArgs
	}
	c, op := framework.Setup(t, framework.OperatorOptions{Args: args})
	co := c.WaitForClusterOperator(t, 4*time.Minute, settledWithVersion)
	availableAt := time.Now()
	t.Logf("ClusterOperator settled at version %s:\n%s", operatorVersion, framework.DescribeClusterOperator(co))
	kube := kubernetes.NewForConfigOrDie(c.Config)

	// Let the rollout that made it Available finish its status writes.
	time.Sleep(env(t, "BENCH_GRACE", 30*time.Second, time.ParseDuration))
	rss10 := maxRSS(op.Pid(), 5*time.Second)
	if rss10 == 0 {
		t.Fatal("cannot read the operator's RSS")
	}
	l, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	nodes0 := len(l.Items)
	res.note("operator RSS after settling at %d nodes: %s", nodes0, rssNote(op.Pid()))

	switch parts {
	case "guard":
		guardWrites(t, c, res)
		return
	case "flips":
		specFlips(t, c, kube, res)
		return
	case "all":
		var wg sync.WaitGroup
		wg.Go(func() { certSyncer(t, root, res) }) // it makes no API requests
		steadyState(t, res, op, availableAt)
		wg.Wait()
		specFlips(t, c, kube, res)
		scrapeRotation(root, res)
	}
	scale(t, root, c, kube, res, op, nodes0, rss10)
}

// steadyState observes the operator's requests through the audit log for
// BENCH_STEADY.
func steadyState(t *testing.T, res *results, op *framework.Process, availableAt time.Time) {
	auditLog := os.Getenv("BENCH_AUDIT_LOG")
	window := env(t, "BENCH_STEADY", 10*time.Minute, time.ParseDuration)
	from := time.Now()
	t.Logf("observing the operator for %s (steady state)", window)
	res.note("operator RSS peak during the steady window: %s", mib(maxRSS(op.Pid(), window)))
	to := time.Now()
	if auditLog == "" {
		t.Fatal("BENCH_AUDIT_LOG is not set (hack/bench.sh sets it)")
	}
	time.Sleep(2 * time.Second) // the audit backend writes asynchronously
	events, err := operatorRequests(auditLog, operatorUserAgentPrefix)
	if err != nil || len(events) == 0 {
		t.Fatalf("no request with user agent %q in %s: %v", operatorUserAgentPrefix, auditLog, err)
	}
	w := summarise(events, from, to)
	writes, reads, watches, span := total(w.writes), total(w.reads), total(w.watches), w.d.Round(time.Second)
	res.note("window: %s from %s, %.0f s after Settled+version", span, from.UTC().Format(time.RFC3339), from.Sub(availableAt).Seconds())
	res.note("writes (leases apart): %d%s\nreads (leases apart): %d%s\nleader election's Lease: %s\nwatch requests: %d%s",
		writes, counts(w.writes), reads, counts(w.reads), counts(w.lease), watches, counts(w.watches))
	res.set("API writes at steady state (excl. leases)", fmt.Sprintf("%d in %s (+%d lease renewals)", writes, span, w.lease["update"]),
		"0 besides lease renewals", writes == 0)
	perMin := float64(reads) / w.d.Minutes()
	res.set("API reads (GET/LIST) per minute at steady state (excl. leases)", fmt.Sprintf("%.1f/min (%d in %s)", perMin, reads, span), "<= 10", perMin <= 10)
	perHour := float64(watches) * float64(time.Hour) / float64(w.d)
	// judged on the larger of the measured rate and the long-run expectation
	res.set("watch requests per hour", fmt.Sprintf("%.0f/h measured (%d in %s); %.0f/h expected from the %d open watches' timeouts",
		perHour, watches, span, w.expectedWatchesPerHour, w.openWatches), "<= 40", math.Max(perHour, w.expectedWatchesPerHour) <= 40)
}

// specFlips flips spec.metrics.state between Disabled and the platform
// default (BareMetal: on) and times each change from the PATCH's return to
// the DaemonSet's DELETED or ADDED watch event.
func specFlips(t *testing.T, c *framework.Cluster, kube kubernetes.Interface, res *results) {
	flips := env(t, "BENCH_FLIPS", 50, strconv.Atoi)
	w, err := kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Watch(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", metricsDaemonSet).String(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var lat []time.Duration
	var latencies [2][]string // removals, additions
	for i := 0; i < flips; i++ {
		want, state := watch.Deleted, nodev1alpha1.StackDisabled
		if i%2 == 1 {
			want, state = watch.Added, nodev1alpha1.StackState("")
		}
		c.SetStackState(t, nodev1alpha1.MetricsStack, state)
		t0, timeout := time.Now(), time.After(60*time.Second)
	wait:
		for {
			select {
			case e := <-w.ResultChan():
				if e.Type == want {
					lat = append(lat, time.Since(t0))
					latencies[i%2] = append(latencies[i%2], fmt.Sprintf("%dms", time.Since(t0).Milliseconds()))
					break wait
				}
			case <-timeout:
				t.Logf("flip %d (%s): no %s event within 60 s", i, state, want)
				break wait
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackState(""))
	res.note("spec flips: %d, observed %d\n  removals: %s\n  additions: %s", flips, len(lat), strings.Join(latencies[0], " "), strings.Join(latencies[1], " "))
	what, budget := "spec change -> applied/removed (median, p99)", "< 1 s median"
	if len(lat) == 0 {
		res.set(what, "no flip observed", budget, false)
		return
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[int(math.Ceil(p*float64(len(lat))))-1] }
	res.set(what, fmt.Sprintf("median %dms, p99 %dms, max %dms (%d flips)", q(0.5).Milliseconds(), q(0.99).Milliseconds(), lat[len(lat)-1].Milliseconds(), len(lat)),
		budget, q(0.5) < time.Second && len(lat) == flips)
	// the metrics stack back, so that the scale part measures it
	c.WaitForClusterOperator(t, 4*time.Minute, settledWithVersion)
}

// certSyncer runs the real binary on a Secret volume as the kubelet projects
// it (test/kubeletvolume) and rotates the pair five times.
func certSyncer(t *testing.T, root string, res *results) {
	bin := cmp.Or(os.Getenv("CERT_SYNCER_BINARY"), filepath.Join(root, "_output", "bin", "cert-syncer"))
	src, dst := filepath.Join(t.TempDir(), "secret"), filepath.Join(t.TempDir(), "host")
	logPath := filepath.Join(root, "_output", "bench", "cert-syncer.log")
	_ = os.MkdirAll(filepath.Dir(logPath), 0o755)
	// t.Error, not t.Fatal: this runs beside the steady-state window.
	write := func(gen int) error {
		ca, err := crypto.MakeSelfSignedCAConfigForDuration(fmt.Sprintf("bench-%d", gen), time.Hour)
		if err != nil {
			return err
		}
		crt, key, err := ca.GetPEMBytes()
		if err != nil {
			return err
		}
		_, err = kubeletvolume.Write(src, map[string][]byte{"tls.crt": crt, "tls.key": key}, map[string]os.FileMode{"tls.key": 0o600})
		return err
	}
	logf, _ := os.Create(logPath)
	cmd := exec.Command(bin, "--source-dir", src, "--dest-dir", dst, "-v=4")
	cmd.Stdout, cmd.Stderr = logf, logf
	for _, err := range []error{os.MkdirAll(src, 0o755), os.MkdirAll(dst, 0o755), write(0), cmd.Start()} {
		if err != nil {
			t.Error(err)
			return
		}
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	o := observe(nil, cmd.Process.Pid, 100*time.Millisecond)
	const rotations = 5
	copied := 0
	for gen := 0; gen <= rotations; gen++ {
		if gen > 0 {
			if err := write(gen); err != nil {
				t.Error(err)
				break
			}
		}
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			want, _ := os.ReadFile(filepath.Join(src, "tls.crt"))
			got, _ := os.ReadFile(filepath.Join(dst, "tls.crt"))
			return len(want) > 0 && bytes.Equal(want, got), nil
		})
		if err == nil {
			copied++
		}
		time.Sleep(2 * time.Second)
	}
	peak := o.finish().peak
	// the budget is memory; a pair not copied in time is reported, and
	// judged by the cert-syncer's own tests
	res.set("cert-syncer RSS per node", fmt.Sprintf("%s max (%d Secret updates, %d of %d pairs copied within 30 s; log %s)", mib(peak), rotations, copied, rotations+1, logPath),
		"<= 15 MiB", peak > 0 && peak <= 15<<20)
}

// scrapeRotation reports the real-scrape e2e test's result when it left one.
func scrapeRotation(root string, res *results) {
	what := "failed scrapes while the certificate rotates"
	path := cmp.Or(os.Getenv("BENCH_SCRAPE_FILE"), filepath.Join(root, "_output", "bench", "scrape-rotation.json"))
	var r struct{ Scrapes, Failed, Rotations int }
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	if err != nil {
		res.setRow([4]string{what, "not measured: " + err.Error(), "0", "n/a"})
		return
	}
	res.set(what, fmt.Sprintf("%d failed of %d scrapes, %d rotations (%s)", r.Failed, r.Scrapes, r.Rotations, path), "0", r.Failed == 0 && r.Scrapes > 0)
}

// waitDaemonSet scales the cluster to nodes and waits until the DaemonSet
// schedules a pod on each and has rolled out on at least 99% of them.
func waitDaemonSet(t *testing.T, root string, kube kubernetes.Interface, nodes int, timeout time.Duration) (string, bool) {
	cmd := exec.Command(filepath.Join(root, "hack", "local-cluster.sh"), "nodes", strconv.Itoa(nodes))
	out, err := cmd.CombinedOutput()
	t.Logf("local-cluster.sh nodes %d:\n%s", nodes, out)
	if err != nil {
		t.Errorf("scaling to %d nodes: %v", nodes, err)
	}
	t0 := time.Now()
	var st appsv1.DaemonSetStatus
	err = wait.PollUntilContextTimeout(context.Background(), 5*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		ds, err := kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Get(ctx, metricsDaemonSet, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		st = ds.Status
		return int(st.DesiredNumberScheduled) == nodes && st.ObservedGeneration == ds.Generation &&
			float64(st.NumberAvailable) >= 0.99*float64(nodes) && float64(st.UpdatedNumberScheduled) >= 0.99*float64(nodes), nil
	})
	return fmt.Sprintf("%d nodes: DaemonSet desired=%d ready=%d available=%d updated=%d %s after the nodes were Ready (settled: %t)",
		nodes, st.DesiredNumberScheduled, st.NumberReady, st.NumberAvailable, st.UpdatedNumberScheduled, time.Since(t0).Round(time.Second), err == nil), err == nil
}

// scale grows the cluster to BENCH_NODES (through the steps of
// BENCH_NODE_STEPS, so that a machine too slow for the last one still gives
// the largest count that settled), then joins and removes BENCH_CHURN_NODES
// more, watching the operator's RSS and ClusterOperator Progressing.
func scale(t *testing.T, root string, c *framework.Cluster, kube kubernetes.Interface, res *results, op *framework.Process, nodes0 int, rss0 int64) {
	n := env(t, "BENCH_NODES", 5000, strconv.Atoi)
	extra := env(t, "BENCH_CHURN_NODES", 500, strconv.Atoi)
	timeout := env(t, "BENCH_SCALE_TIMEOUT", 15*time.Minute, time.ParseDuration)
	var steps []int
	for _, f := range strings.Split(os.Getenv("BENCH_NODE_STEPS"), ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && v > nodes0 && v < n {
			steps = append(steps, v)
		}
	}
	t0 := time.Now()
	for _, step := range append(steps, n) {
		o := observe(c, op.Pid(), time.Second)
		how, ok := waitDaemonSet(t, root, kube, step, timeout)
		rssN := maxRSS(op.Pid(), 10*time.Second)
		o.finish()
		res.note("scale to %s; operator RSS %s; Progressing True in %d of %d polls%s\n%s after the start",
			how, rssNote(op.Pid()), len(o.trues), o.polls, strings.Join(append([]string{""}, o.trues...), "\n  "), time.Since(t0).Round(time.Second))
		growth := float64(rssN-rss0) / float64(rss0) * 100
		label := fmt.Sprintf("%s at %d nodes (peak %s while scaling) vs %s at %d (%+.0f%%)", mib(rssN), step, mib(max(o.peak, rssN)), mib(rss0), nodes0, growth)
		if !ok {
			label += fmt.Sprintf("; NOT SETTLED within %s", timeout)
		}
		// flat: within 20% of the figure at 10 nodes
		res.set(fmt.Sprintf("operator RSS, %d -> %d nodes", nodes0, step), label, "<= 60 MiB, flat (<= +20%)", ok && max(o.peak, rssN) <= 60<<20 && growth <= 20)
		res.set(fmt.Sprintf("growing %d -> %d nodes: not Progressing", nodes0, step),
			fmt.Sprintf("Progressing=True in %d of %d 1-s polls", len(o.trues), o.polls), "never Progressing", len(o.trues) == 0 && o.polls > 0)
		if !ok {
			res.setRow([4]string{fmt.Sprintf("join/remove %d nodes: not Progressing", extra), fmt.Sprintf("not run (%d nodes did not settle)", step), "never Progressing", "n/a"})
			return
		}
	}
	o := observe(c, op.Pid(), time.Second)
	join, ok1 := waitDaemonSet(t, root, kube, n+extra, timeout)
	leave, ok2 := waitDaemonSet(t, root, kube, n, timeout)
	time.Sleep(10 * time.Second)
	o.finish()
	res.note("churn: %s; then %s; Progressing True in %d of %d polls%s", join, leave, len(o.trues), o.polls, strings.Join(append([]string{""}, o.trues...), "\n  "))
	res.set(fmt.Sprintf("join/remove %d nodes at %d: not Progressing", extra, n), fmt.Sprintf("Progressing=True in %d of %d 1-s polls", len(o.trues), o.polls),
		"never Progressing", !t.Failed() && ok1 && ok2 && len(o.trues) == 0 && o.polls > 0)
	res.set(fmt.Sprintf("operator RSS peak during the churn at %d", n), mib(o.peak), "<= 60 MiB", o.peak <= 60<<20)
	res.note("whole scale part (test-scale) took %s", time.Since(t0).Round(time.Second))
}
