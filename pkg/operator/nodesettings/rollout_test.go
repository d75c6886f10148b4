package nodesettings

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testTiming = Timing{Update: 30 * time.Minute, Soak: 2 * time.Minute, Gate: 10 * time.Minute}

// world is a test double of what the controller observes: our
// MachineConfigs as written, a pool controller that updates a pool one tick
// after a write unless it is stuck, and node health as a function of the
// revision a pool runs.
type world struct {
	written  map[string]Revision
	updated  map[string]bool
	stuck    map[string]bool
	degraded map[string]Revision // pool goes degraded when it runs this revision
	sick     map[string]Revision // pool's nodes are unhealthy on this revision
}

func newWorld() *world {
	return &world{written: map[string]Revision{}, updated: map[string]bool{}, stuck: map[string]bool{}, degraded: map[string]Revision{}, sick: map[string]Revision{}}
}

func (w *world) observe(pools []string) map[string]PoolObservation {
	out := map[string]PoolObservation{}
	for _, p := range pools {
		rev := w.written[p]
		o := PoolObservation{Written: rev, Updated: w.updated[p], Healthy: true}
		if bad, ok := w.degraded[p]; ok && bad == rev && w.updated[p] {
			o.Degraded, o.DegradedMessage = true, "node "+p+"-0 is degraded"
		}
		if bad, ok := w.sick[p]; ok && bad == rev && w.updated[p] {
			o.Healthy, o.UnhealthyMessage = false, "CRI-O on "+p+"-0 is not ready"
		}
		out[p] = o
	}
	return out
}

// run drives Next until it neither writes nor changes the rollout, and
// returns the writes in order and the final rollout.
func (w *world) run(t *testing.T, targets map[string]Revision, pools []string, r Rollout, now time.Time) ([]string, Rollout) {
	t.Helper()
	var writes []string
	for i := 0; i < 200; i++ {
		s := Next(targets, pools, r, w.observe(pools), now, testTiming)
		if s.Write != nil {
			writes = append(writes, fmt.Sprintf("%s=%s", s.Write.Pool, s.Write.Revision))
			w.written[s.Write.Pool] = s.Write.Revision
			w.updated[s.Write.Pool] = false
		}
		// Settled: no write, no change, no wait, and every pool not stuck updated.
		settled := !slices.ContainsFunc(pools, func(p string) bool { return !w.updated[p] && !w.stuck[p] })
		if s.Write == nil && reflect.DeepEqual(s.Rollout, r) && s.RecheckAfter == 0 && settled {
			return writes, r
		}
		r = s.Rollout
		// The pool controller catches up and time passes.
		for _, p := range pools {
			if !w.stuck[p] {
				w.updated[p] = true
			}
		}
		if s.RecheckAfter == 0 {
			s.RecheckAfter = 10 * time.Second
		}
		now = now.Add(s.RecheckAfter)
	}
	t.Fatalf("rollout did not settle: %+v", r)
	return nil, r
}

func states(r Rollout) string {
	var s []string
	for _, p := range r.Pools {
		s = append(s, fmt.Sprintf("%s:%s@%s", p.Name, p.State, p.Revision))
	}
	return string(r.Phase) + " " + strings.Join(s, " ")
}

var t0 = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

func TestRollout(t *testing.T) {
	pools := []string{"canary", "worker", "master"}
	for _, tc := range []struct {
		name    string
		prepare func(w *world)
		target  Revision
		targets map[string]Revision // pools whose target is not target
		// from: a completed rollout of this revision first ("" = none).
		from       Revision
		wantWrites []string
		wantStates string
		wantInMsg  string
		unchanged  bool // the rollout from before is kept as it was
	}{
		{name: "nothing asked, nothing there: no write", wantStates: "Complete canary:Done@ worker:Done@ master:Done@"},
		{name: "healthy pools are rolled in order, one after the other", target: "a",
			wantWrites: []string{"canary=a", "worker=a", "master=a"}, wantStates: "Complete canary:Done@a worker:Done@a master:Done@a"},
		{name: "turning it off goes pool by pool as well", from: "a",
			wantWrites: []string{"canary=", "worker=", "master="}, wantStates: "Complete canary:Done@ worker:Done@ master:Done@"},
		{name: "unhealthy canary: only the canary is reverted, the others are held", prepare: func(w *world) { w.sick["canary"] = "a" }, target: "a",
			wantWrites: []string{"canary=a", "canary="}, wantStates: "Stopped canary:Reverted@ worker:Held@ master:Held@",
			wantInMsg: "stopped at pool canary (NodesUnhealthy): CRI-O on canary-0 is not ready"},
		{name: "degraded worker: worker then canary go back to the last good revision, master untouched", prepare: func(w *world) { w.degraded["worker"] = "b" }, from: "a", target: "b",
			wantWrites: []string{"canary=b", "worker=b", "worker=a", "canary=a"}, wantStates: "Stopped canary:Reverted@a worker:Reverted@a master:Held@a",
			wantInMsg: "stopped at pool worker (PoolDegraded): node worker-0 is degraded"},
		{name: "a pool the machine-config operator does not update in time fails", prepare: func(w *world) { w.stuck["worker"] = true }, target: "a",
			wantWrites: []string{"canary=a", "worker=a", "worker=", "canary="}, wantStates: "RollingBack canary:Reverted@ worker:Reverting@ master:Held@",
			wantInMsg: "did not update the pool within 30m0s"},
		{name: "our MachineConfig deleted by someone is restored, the rollout unchanged", prepare: func(w *world) { delete(w.written, "master") }, from: "a", target: "a",
			wantWrites: []string{"master=a"}, wantStates: "Complete canary:Done@a worker:Done@a master:Done@a", unchanged: true},
		// The kubelet part skipped on a pool, and later not (its kubelet reads drop-ins after an upgrade).
		{name: "a pool whose target changes alone: a new rollout of that pool only", from: "a", target: "a", targets: map[string]Revision{"master": "b"},
			wantWrites: []string{"master=b"}, wantStates: "Complete canary:Done@a worker:Done@a master:Done@b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			r := Rollout{}
			now := t0
			if tc.from != "" {
				_, r = w.run(t, all(pools, tc.from), pools, r, now)
				require.Equal(t, PhaseComplete, r.Phase, "setup rollout of %q: %s", tc.from, states(r))
				now = now.Add(24 * time.Hour)
			}
			if tc.prepare != nil {
				tc.prepare(w)
			}
			before, targets := r, all(pools, tc.target)
			maps.Copy(targets, tc.targets)
			writes, r := w.run(t, targets, pools, r, now)
			if tc.unchanged && !reflect.DeepEqual(r, before) {
				t.Errorf("rollout changed:\n%+v\n%+v", before, r)
			}
			assert.Equal(t, tc.wantWrites, writes)
			assert.Equal(t, tc.wantStates, states(r))
			assert.Contains(t, r.Message, tc.wantInMsg)
			// Settled: a later look at the same world changes nothing and
			// writes nothing, however much later.
			for _, later := range []time.Duration{time.Minute, 47 * time.Hour} {
				s := Next(targets, pools, r, w.observe(pools), now.Add(later), testTiming)
				assert.Equal(t, []any{(*Write)(nil), r}, []any{s.Write, s.Rollout}, "+%s", later)
			}
		})
	}
}

// A pool passes once healthy through the soak, and may recover within the
// gate; the next pool waits until then.
func TestRolloutWaitsForTheGate(t *testing.T) {
	w, pools, r := newWorld(), []string{"worker", "master"}, Rollout{}
	next := func(at time.Duration) Step {
		s := Next(all(pools, "a"), pools, r, w.observe(pools), t0.Add(at), testTiming)
		r = s.Rollout
		return s
	}
	require.Equal(t, &Write{Pool: "worker", Revision: "a"}, next(0).Write, "the first pool first")
	w.written["worker"], w.updated["worker"] = "a", true
	for _, c := range []struct {
		at, recheck time.Duration
		sick        bool
	}{
		{time.Minute, testTiming.Soak, false},    // updated: the soak begins
		{2 * time.Minute, time.Minute, false},    // healthy within the soak
		{4 * time.Minute, 7 * time.Minute, true}, // unhealthy past the soak, within the gate
	} {
		if c.sick {
			w.sick["worker"] = "a"
		}
		s := next(c.at)
		require.Equal(t, []any{(*Write)(nil), Verifying, Pending, c.recheck}, []any{s.Write, r.Pools[0].State, r.Pools[1].State, s.RecheckAfter}, "+%s", c.at)
	}
	delete(w.sick, "worker")
	s := next(5 * time.Minute)
	assert.Equal(t, []any{&Write{Pool: "master", Revision: "a"}, Done, Revision("a")}, []any{s.Write, r.Pools[0].State, r.Pools[0].LastGood}, "recovered")
}

// A pool that appears while stopped is held; a corrected spec starts again.
func TestRolloutAfterAStop(t *testing.T) {
	w, pools := newWorld(), []string{"canary", "worker"}
	w.sick["canary"] = "bad"
	_, r := w.run(t, all(pools, "bad"), pools, Rollout{}, t0)
	grown := []string{"canary", "infra", "worker"}
	s := Next(all(grown, "bad"), grown, r, w.observe(grown), t0.Add(time.Hour), testTiming)
	require.Equal(t, []any{PhaseStopped, (*Write)(nil), PhaseStopped, Held}, []any{r.Phase, s.Write, s.Rollout.Phase, s.Rollout.Pools[1].State}, "a pool added while stopped")
	writes, r := w.run(t, all(pools, "good"), pools, r, t0.Add(2*time.Hour))
	assert.Equal(t, []any{[]string{"canary=good", "worker=good"}, PhaseComplete}, []any{writes, r.Phase}, "a corrected spec")
}

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		pools  []string
		canary string
		want   []string
	}{
		{[]string{"master", "worker"}, "", []string{"worker", "master"}},
		{[]string{"master", "worker", "arbiter"}, "", []string{"worker", "arbiter", "master"}},
		{[]string{"master", "worker", "infra", "gpu"}, "", []string{"gpu", "infra", "worker", "master"}},
		{[]string{"master", "worker", "infra", "gpu"}, "infra", []string{"infra", "gpu", "worker", "master"}},
		{[]string{"master", "worker"}, "absent", []string{"worker", "master"}},
	} {
		assert.Equal(t, tc.want, Order(tc.pools, tc.canary), "%v, canary %q", tc.pools, tc.canary)
	}
}

func all(pools []string, rev Revision) map[string]Revision {
	m := map[string]Revision{}
	for _, p := range pools {
		m[p] = rev
	}
	return m
}
