package framework

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
)

// TestJudgeRolloutOrder: docs/test-behaviours.md.
func TestJudgeRolloutOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	from := t0.Add(10 * time.Second)
	release := map[string]bool{"new/proxy": true, "new/operator": true}
	// Revisions below 100 were written before the update started.
	at := func(rev uint64) time.Time {
		if rev < 100 {
			return t0.Add(time.Duration(rev) * time.Millisecond)
		}
		return from.Add(time.Duration(rev) * time.Millisecond)
	}
	co := func(rev uint64, version string, progressing configv1.ConditionStatus) RolloutEvent {
		return RolloutEvent{Revision: rev, At: at(rev), Object: "ClusterOperator node", Operator: true, Version: version, Progressing: progressing}
	}
	ds := func(rev uint64, rolled bool, imgs ...string) RolloutEvent {
		return RolloutEvent{Revision: rev, At: at(rev), Object: "DaemonSet ns/ds", Images: imgs, RolledOut: rolled, Rollout: "r"}
	}
	newDS := func(rev uint64, rolled bool) RolloutEvent { return ds(rev, rolled, "new/proxy", "new/operator") }
	T, F := configv1.ConditionTrue, configv1.ConditionFalse
	old := []RolloutEvent{co(10, "N", F), ds(11, true, "old/proxy", "old/operator")}
	for _, tc := range []struct {
		name         string
		events       []RolloutEvent
		wantProblem  string // a substring of the one problem; "" for none
		wantOperands int
	}{
		{"rolled out, then the version", append(old, co(100, "N", T), newDS(101, false), co(102, "N", T), newDS(103, true), co(104, "N+1", F)), "", 1},
		{"the recorder's order is by revision, not arrival", append(old, co(104, "N+1", F), newDS(103, true), co(100, "N", T), newDS(101, false)), "", 1},
		{"version while rolling out", append(old, co(100, "N", T), newDS(101, false), co(102, "N+1", F), newDS(103, true)), "while DaemonSet ns/ds was not rolled out", 1},
		{"version before the operand changed", append(old, co(100, "N+1", T), newDS(101, false), newDS(103, true)), "before DaemonSet ns/ds was changed", 1},
		{"rolled out to other images", append(old, co(100, "N", T), ds(101, true, "new/proxy", "other/operator"), co(102, "N+1", F)), "was not rolled out to the release's images", 1},
		{"nothing rolled", []RolloutEvent{co(10, "N", F), newDS(11, true), co(100, "N", T), co(102, "N+1", F)}, "no operand rolled out", 0},
		{"Progressing=False written while rolling", append(old, co(100, "N", T), newDS(101, false), co(102, "N", F), newDS(103, true), co(104, "N+1", F)), "Progressing=False (revision 102)", 1},
		{"Progressing missing while rolling", append(old, newDS(101, false), co(102, "N", ""), newDS(103, true), co(104, "N+1", F)), "Progressing=<missing> (revision 102)", 1},
		{"an operand new in the release", []RolloutEvent{co(10, "N", F), co(100, "N", T), ds(101, false, "new/proxy"), ds(103, true, "new/proxy"), co(104, "N+1", F)}, "", 1},
		{"version never reported", append(old, co(100, "N", T), newDS(101, true)), "never read N+1", 0},
		{"a version read before the update does not count", append(old, co(12, "N+1", F), newDS(101, true)), "never read N+1", 0},
	} {
		got := JudgeRolloutOrder(tc.events, from, "N+1", release)
		if tc.wantProblem == "" {
			assert.Empty(t, got.Problems, tc.name)
		} else if assert.Len(t, got.Problems, 1, "%s: %q", tc.name, got.Problems) {
			assert.Contains(t, got.Problems[0], tc.wantProblem, tc.name)
		}
		assert.Len(t, got.Operands, tc.wantOperands, tc.name)
	}
}
