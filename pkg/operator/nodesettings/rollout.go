package nodesettings

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Revision names one rendering of the node settings for a pool: a short
// hash of the files our MachineConfig carries. The empty revision means no
// MachineConfig of ours on that pool.
type Revision string

// PoolState is where one pool stands in a rollout.
type PoolState string

const (
	// Pending: the rollout has not reached the pool yet.
	Pending PoolState = "Pending"
	// Applying: our MachineConfig carries the target; MCO updates the pool.
	Applying PoolState = "Applying"
	// Verifying: MCO reports the pool updated; the health gate runs.
	Verifying PoolState = "Verifying"
	// Done: the gate passed; the target is the pool's last good revision.
	Done PoolState = "Done"
	// Reverting: a gate failed; our MachineConfig is back at the pool's
	// last good revision and MCO updates the pool again.
	Reverting PoolState = "Reverting"
	// Reverted: back at the last good revision, and MCO reports it.
	Reverted PoolState = "Reverted"
	// Held: the rollout stopped before it reached the pool; untouched.
	Held PoolState = "Held"
)

// Reasons of a pool's state, machine-readable.
const (
	ReasonUpToDate          = "UpToDate"
	ReasonWaitingForPools   = "WaitingForEarlierPools"
	ReasonMachineConfigSet  = "MachineConfigWritten"
	ReasonPoolUpdated       = "PoolUpdated"
	ReasonGatePassed        = "HealthGatePassed"
	ReasonPoolDegraded      = "PoolDegraded"
	ReasonUpdateTimedOut    = "PoolUpdateTimedOut"
	ReasonUnhealthy         = "NodesUnhealthy"
	ReasonRollingBack       = "RollingBack"
	ReasonRolledBack        = "RolledBack"
	ReasonStoppedBeforePool = "RolloutStopped"
)

// PoolStatus is the rollout's record of one pool, kept in the operator's
// status so that a restarted operator carries on where it stopped.
type PoolStatus struct {
	Name string
	// Target is the revision this rollout brings the pool to.
	Target Revision
	// Revision is what our MachineConfig for the pool carries now.
	Revision Revision
	// LastGood is the revision that last passed the gate on the pool.
	LastGood Revision
	// RollbackTo is LastGood when the current rollout started: what a
	// failed gate reverts the pool to.
	RollbackTo Revision
	State      PoolState
	// Since is when State was entered; it changes only with State.
	Since   time.Time
	Reason  string
	Message string
}

// PoolObservation is what one sync saw of a pool.
type PoolObservation struct {
	// Written is the revision our MachineConfig for the pool carries on the
	// API server ("" when there is none).
	Written Revision
	// Updated: MCO has rendered the pool with our MachineConfig at Written
	// and every machine of the pool runs that rendered configuration.
	Updated bool
	// Degraded: the pool, or one of its MachineConfigNodes, is degraded.
	Degraded        bool
	DegradedMessage string
	// Healthy: CRI-O and the kubelet are healthy on every node of the pool
	// (for CRI-O: its metrics scraped on whichever path serves them).
	Healthy          bool
	UnhealthyMessage string
	// LeftOut are the pool's nodes being removed (by the cluster
	// autoscaler, or their Machine's deletion) or gone: not in Healthy,
	// named in the pool's message.
	LeftOut []string
}

// Timing bounds how long a pool may take.
type Timing struct {
	// Update is how long MCO may take to update a pool after our write.
	Update time.Duration
	// Soak is how long a pool must stay healthy after MCO updated it.
	Soak time.Duration
	// Gate is how long the gate waits for an unhealthy pool to recover
	// before it fails, counted from when MCO updated it.
	Gate time.Duration
}

// Validate refuses durations that would make the gate meaningless.
func (t Timing) Validate() error {
	switch {
	case t.Update <= 0 || t.Soak <= 0 || t.Gate <= 0:
		return fmt.Errorf("node settings timing: update timeout, soak and gate must be positive (got %s, %s, %s)", t.Update, t.Soak, t.Gate)
	case t.Gate < t.Soak:
		return fmt.Errorf("node settings timing: the gate (%s) must not be shorter than the soak (%s)", t.Gate, t.Soak)
	}
	return nil
}

// Phase sums up a rollout.
type Phase string

const (
	PhaseComplete    Phase = "Complete"
	PhaseRollingOut  Phase = "RollingOut"
	PhaseRollingBack Phase = "RollingBack"
	PhaseStopped     Phase = "Stopped"
)

// Rollout is the recorded state of one rollout.
type Rollout struct {
	// Target names the rollout: the set of revisions it brings pools to.
	Target Revision
	Phase  Phase
	// Message says what happened and what to do; no times or counts.
	Message string
	Pools   []PoolStatus
}

// Write is the one MachineConfig change a step asks for: our MachineConfig
// for Pool set to Revision, or deleted when Revision is "".
type Write struct {
	Pool     string
	Revision Revision
}

// Step is the result of one decision.
type Step struct {
	Rollout Rollout
	// Write is nil when nothing is to be written.
	Write *Write
	// RecheckAfter is when to look again without a watch event (a deadline
	// or the end of a soak); zero when only events matter.
	RecheckAfter time.Duration
}

// Next decides one step of the rollout of each pool's target revision over
// the pools in order (pools can differ: the kubelet part is skipped where
// the kubelet reads no drop-ins).
// It is pure: the same inputs give the same step, and feeding a step's
// Rollout back with an unchanged world gives the same Rollout and no write,
// so a complete or stopped rollout writes nothing.
//
// One write per step keeps the order of writes the order of the pools; the
// controller runs again when the write's watch event arrives.
func Next(targets map[string]Revision, order []string, previous Rollout, observed map[string]PoolObservation, now time.Time, timing Timing) Step {
	r := start(targets, order, previous, now)
	if w := restore(&r, observed); w != nil {
		return step(r, w, 0)
	}
	switch r.Phase {
	case PhaseRollingBack:
		return rollBack(r, observed, now)
	case PhaseStopped:
		return step(r, nil, 0)
	}

	for i := range r.Pools {
		p := &r.Pools[i]
		obs := observed[p.Name]
		switch p.State {
		case Pending:
			set(p, Applying, now, ReasonMachineConfigSet, fmt.Sprintf("MachineConfig %s written; waiting for the machine-config operator to update the pool", MachineConfigName(p.Name)))
			p.Revision = p.Target
			return step(r, &Write{Pool: p.Name, Revision: p.Target}, 0)
		case Applying:
			p.Message = withLeftOut(p.Message, obs.LeftOut)
			if obs.Written != p.Target {
				// Lost or overwritten: write it again, state unchanged.
				return step(r, &Write{Pool: p.Name, Revision: p.Target}, 0)
			}
			switch {
			case obs.Degraded:
				return fail(r, i, now, ReasonPoolDegraded, obs.DegradedMessage, observed)
			case obs.Updated:
				set(p, Verifying, now, ReasonPoolUpdated, withLeftOut("the machine-config operator updated the pool; checking CRI-O and the kubelet on its nodes", leftOutOf(p.Message)))
				return step(r, nil, timing.Soak)
			case now.Sub(p.Since) >= timing.Update:
				return fail(r, i, now, ReasonUpdateTimedOut, fmt.Sprintf("the machine-config operator did not update the pool within %s", timing.Update), observed)
			}
			return step(r, nil, p.Since.Add(timing.Update).Sub(now))
		case Verifying:
			p.Message = withLeftOut(p.Message, obs.LeftOut)
			elapsed := now.Sub(p.Since)
			switch {
			case obs.Degraded:
				return fail(r, i, now, ReasonPoolDegraded, obs.DegradedMessage, observed)
			case obs.Healthy && elapsed >= timing.Soak:
				set(p, Done, now, ReasonGatePassed, withLeftOut("CRI-O and the kubelet stayed healthy on the pool's nodes", leftOutOf(p.Message)))
				p.LastGood = p.Target
				continue
			case !obs.Healthy && elapsed >= timing.Gate:
				return fail(r, i, now, ReasonUnhealthy, obs.UnhealthyMessage, observed)
			case obs.Healthy:
				return step(r, nil, timing.Soak-elapsed)
			}
			return step(r, nil, timing.Gate-elapsed)
		}
	}
	r.Phase, r.Message = PhaseComplete, "every pool runs the node settings asked for"
	return step(r, nil, 0)
}

// start returns the rollout to continue: previous when it is for the same
// revisions (with pools that appeared added and pools that went away
// dropped), a new one otherwise, with each pool's last good revision
// carried over.
func start(targets map[string]Revision, order []string, previous Rollout, now time.Time) Rollout {
	byName := map[string]PoolStatus{}
	for _, p := range previous.Pools {
		byName[p.Name] = p
	}
	id := identity(targets)
	same := previous.Target == id && previous.Phase != ""
	r := Rollout{Target: id, Phase: PhaseRollingOut, Message: "rolling out the node settings pool by pool"}
	if same {
		r.Phase, r.Message = previous.Phase, previous.Message
	}
	for _, name := range order {
		old, known := byName[name]
		if same && known {
			r.Pools = append(r.Pools, old)
			continue
		}
		target := targets[name]
		p := PoolStatus{Name: name, Target: target, Revision: old.Revision, LastGood: old.LastGood, RollbackTo: old.LastGood}
		switch {
		case p.LastGood == target && p.Revision == target:
			set(&p, Done, now, ReasonUpToDate, fmt.Sprintf("runs revision %s", describe(target)))
			if known && old.State == Done {
				p.Since = old.Since
			}
		case same && (r.Phase == PhaseStopped || r.Phase == PhaseRollingBack):
			set(&p, Held, now, ReasonStoppedBeforePool, "not changed: the rollout stopped")
		default:
			set(&p, Pending, now, ReasonWaitingForPools, "waits for the pools before it")
		}
		if same && r.Phase == PhaseComplete && p.State != Done {
			r.Phase = PhaseRollingOut
		}
		r.Pools = append(r.Pools, p)
	}
	return r
}

// identity names a rollout by the revisions it rolls out, not by the pools,
// so that a pool added later joins the rollout (or is held by a stopped
// one) instead of starting a new one.
func identity(targets map[string]Revision) Revision {
	seen := map[Revision]bool{}
	var revs []string
	for _, t := range targets {
		if !seen[t] {
			seen[t] = true
			revs = append(revs, string(t))
		}
	}
	sort.Strings(revs)
	return Revision("[" + strings.Join(revs, ",") + "]")
}

// restore puts back our MachineConfig of a pool that is not being changed
// (done, reverted or held) when someone deleted or edited it.
func restore(r *Rollout, observed map[string]PoolObservation) *Write {
	for _, p := range r.Pools {
		switch p.State {
		case Done, Reverted, Held:
			if obs, ok := observed[p.Name]; ok && obs.Written != p.Revision {
				return &Write{Pool: p.Name, Revision: p.Revision}
			}
		}
	}
	return nil
}

// fail stops the rollout at pool i: that pool and every pool this rollout
// changed go back to the revision they had before it, last first, and the
// pools after it are held.
func fail(r Rollout, i int, now time.Time, reason, message string, observed map[string]PoolObservation) Step {
	failed := &r.Pools[i]
	set(failed, Reverting, now, reason, message)
	for j := range r.Pools {
		p := &r.Pools[j]
		switch {
		case j > i:
			set(p, Held, now, ReasonStoppedBeforePool, fmt.Sprintf("not changed: the rollout stopped at pool %s", failed.Name))
		case j < i && p.Revision != p.RollbackTo:
			set(p, Reverting, now, ReasonRollingBack, fmt.Sprintf("rolled back because pool %s failed its health gate", failed.Name))
		}
		if j <= i {
			p.LastGood = p.RollbackTo
		}
	}
	r.Phase = PhaseRollingBack
	r.Message = fmt.Sprintf("stopped at pool %s (%s): %s. The pools it changed go back to their last good revision. Correct the node settings; a changed spec starts a new rollout", failed.Name, reason, message)
	return rollBack(r, observed, now)
}

// rollBack writes the reverting pools back, the failed pool (the last one
// changed) first, without waiting for one pool before the next: the pools
// are independent, and a pool the machine-config operator cannot update
// must not keep the others on a bad revision. The rollout is stopped when
// every reverting pool runs its last good revision again.
func rollBack(r Rollout, observed map[string]PoolObservation, now time.Time) Step {
	for i := len(r.Pools) - 1; i >= 0; i-- {
		p := &r.Pools[i]
		if p.State == Reverting && observed[p.Name].Written != p.RollbackTo {
			p.Revision = p.RollbackTo
			return step(r, &Write{Pool: p.Name, Revision: p.RollbackTo}, 0)
		}
	}
	back := true
	for i := range r.Pools {
		p := &r.Pools[i]
		if p.State != Reverting {
			continue
		}
		p.Revision = p.RollbackTo
		if !observed[p.Name].Updated {
			back = false
			continue
		}
		set(p, Reverted, now, ReasonRolledBack, fmt.Sprintf("back at revision %s; %s", describe(p.RollbackTo), p.Message))
	}
	if back {
		r.Phase = PhaseStopped
	}
	return step(r, nil, 0)
}

func set(p *PoolStatus, state PoolState, now time.Time, reason, message string) {
	if p.State != state {
		p.Since = now
	}
	p.State, p.Reason, p.Message = state, reason, message
}

func step(r Rollout, w *Write, recheck time.Duration) Step {
	if recheck < 0 {
		recheck = 0
	}
	return Step{Rollout: r, Write: w, RecheckAfter: recheck}
}

func describe(r Revision) string {
	if r == "" {
		return "none (no node settings)"
	}
	return string(r)
}

// MachineConfigName is the name of our MachineConfig for a pool. A custom
// pool usually selects the worker role as well, so the worker pool's
// MachineConfig reaches it too; MCO merges the worker-role MachineConfigs
// first and the pool's own after them (MergeMachineConfigs), so where both
// write the same file the custom pool's wins, whatever the names.
func MachineConfigName(pool string) string {
	return "60-" + pool + "-node-settings"
}

func isBasePool(pool string) bool {
	return pool == "master" || pool == "worker" || pool == "arbiter"
}

// Order is the order pools are rolled in: the canary pool first when it
// exists, then the other custom pools by name, then worker, arbiter and
// master last, since the control plane is the costliest to lose.
func Order(pools []string, canary string) []string {
	rank := func(p string) int {
		switch {
		case p == canary:
			return 0
		case !isBasePool(p):
			return 1
		case p == "worker":
			return 2
		case p == "arbiter":
			return 3
		default:
			return 4
		}
	}
	out := append([]string(nil), pools...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return strings.Compare(out[i], out[j]) < 0
	})
	return out
}
