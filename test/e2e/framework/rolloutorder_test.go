package framework

import (
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
)

// TestJudgeRolloutOrder runs the update-order judgement on recorded
// histories: an operand rolled out before the version is reported, the
// version reported too early, nothing rolled, Progressing=False mid-rollout.
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
	T, F := configv1.ConditionTrue, configv1.ConditionFalse
	old := []RolloutEvent{co(10, "N", F), ds(11, true, "old/proxy", "old/operator")}
	for _, tc := range []struct {
		name         string
		events       []RolloutEvent
		wantProblems []string // substrings, one per problem
		wantOperands int
	}{
		{"rolled out, then the version", append(old,
			co(100, "N", T), ds(101, false, "new/proxy", "new/operator"), co(102, "N", T), ds(103, true, "new/proxy", "new/operator"), co(104, "N+1", F)),
			nil, 1},
		{"the recorder's order is by revision, not arrival", append(old,
			co(104, "N+1", F), ds(103, true, "new/proxy", "new/operator"), co(100, "N", T), ds(101, false, "new/proxy", "new/operator")),
			nil, 1},
		{"version while rolling out", append(old,
			co(100, "N", T), ds(101, false, "new/proxy", "new/operator"), co(102, "N+1", F), ds(103, true, "new/proxy", "new/operator")),
			[]string{"while DaemonSet ns/ds was not rolled out"}, 1},
		{"version before the operand changed", append(old,
			co(100, "N+1", T), ds(101, false, "new/proxy", "new/operator"), ds(103, true, "new/proxy", "new/operator")),
			[]string{"before DaemonSet ns/ds was changed"}, 1},
		{"rolled out to other images", append(old,
			co(100, "N", T), ds(101, true, "new/proxy", "other/operator"), co(102, "N+1", F)),
			[]string{"was not rolled out to the release's images"}, 1},
		{"nothing rolled", []RolloutEvent{co(10, "N", F), ds(11, true, "new/proxy", "new/operator"), co(100, "N", T), co(102, "N+1", F)},
			[]string{"no operand rolled out"}, 0},
		{"Progressing=False written while rolling", append(old,
			co(100, "N", T), ds(101, false, "new/proxy", "new/operator"), co(102, "N", F), ds(103, true, "new/proxy", "new/operator"), co(104, "N+1", F)),
			[]string{"Progressing=False (revision 102)"}, 1},
		{"Progressing missing while rolling", append(old,
			ds(101, false, "new/proxy", "new/operator"), co(102, "N", ""), ds(103, true, "new/proxy", "new/operator"), co(104, "N+1", F)),
			[]string{"Progressing=<missing> (revision 102)"}, 1},
		{"an operand new in the release", []RolloutEvent{co(10, "N", F),
			co(100, "N", T), ds(101, false, "new/proxy"), ds(103, true, "new/proxy"), co(104, "N+1", F)},
			nil, 1},
		{"version never reported", append(old, co(100, "N", T), ds(101, true, "new/proxy", "new/operator")),
			[]string{"never read N+1"}, 0},
		{"a version read before the update does not count", append(old, co(12, "N+1", F), ds(101, true, "new/proxy", "new/operator")),
			[]string{"never read N+1"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := JudgeRolloutOrder(tc.events, from, "N+1", release)
			if assert.Len(t, got.Problems, len(tc.wantProblems), "%q", got.Problems) {
				for i, want := range tc.wantProblems {
					assert.True(t, strings.Contains(got.Problems[i], want), "problem %q does not say %q", got.Problems[i], want)
				}
			}
			assert.Len(t, got.Operands, tc.wantOperands)
		})
	}
}
