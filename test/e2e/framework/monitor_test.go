package framework

import (
	"fmt"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
)

// TestUncovered: docs/test-behaviours.md.
func TestUncovered(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	const open = -1
	end := func(to int) time.Time {
		if to == open {
			return time.Time{}
		}
		return at(to)
	}
	iv := func(typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, from, to int) ConditionInterval {
		return ConditionInterval{Type: typ, Status: status, Reason: "R", From: at(from), To: end(to)}
	}
	window := func(typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, from, to int, explicit bool) allowance {
		return allowance{typ: typ, status: status, from: at(from), to: end(to), explicit: explicit}
	}
	avail, degraded, progressing := configv1.OperatorAvailable, configv1.OperatorDegraded, configv1.OperatorProgressing
	T, F := configv1.ConditionTrue, configv1.ConditionFalse
	now := at(1000)
	for _, tc := range []struct {
		name      string
		timeline  []ConditionInterval
		windows   []allowance
		wantFroms []int // From of each uncovered interval
	}{
		{"all well", []ConditionInterval{iv(avail, T, 0, open), iv(degraded, F, 0, open), iv(progressing, T, 0, 10), iv(progressing, F, 10, open)}, nil, nil},
		{"missing conditions are not bad", []ConditionInterval{iv(avail, "", 0, 5), iv(avail, T, 5, open)}, nil, nil},
		{"Available=False, no window", []ConditionInterval{iv(avail, T, 0, 10), iv(avail, F, 10, 20), iv(avail, T, 20, open)}, nil, []int{10}},
		{"Degraded=True still open, no window", []ConditionInterval{iv(degraded, F, 0, 10), iv(degraded, T, 10, open)}, nil, []int{10}},
		{"inside an ended window", []ConditionInterval{iv(avail, F, 10, 20)}, []allowance{window(avail, F, 5, 25, true)}, nil},
		{"outlasts an ended window", []ConditionInterval{iv(avail, F, 10, 30)}, []allowance{window(avail, F, 5, 25, true)}, []int{10}},
		{"begins before the window", []ConditionInterval{iv(degraded, T, 3, 20)}, []allowance{window(degraded, T, 5, 25, true)}, []int{3}},
		{"begins after the window", []ConditionInterval{iv(degraded, T, 30, 40)}, []allowance{window(degraded, T, 5, 25, true)}, []int{30}},
		{"a window of the other condition", []ConditionInterval{iv(degraded, T, 10, 20)}, []allowance{window(avail, F, 5, 25, true)}, []int{10}},
		{"a window of the other status", []ConditionInterval{iv(avail, F, 10, 20)}, []allowance{window(avail, T, 5, 25, true)}, []int{10}},
		{"open window, open interval", []ConditionInterval{iv(avail, F, 10, open)}, []allowance{window(avail, F, 5, open, true)}, nil},
		{"window closed by the test's end: the interval began in it and outlasts it", []ConditionInterval{iv(degraded, T, 10, 60)}, []allowance{window(degraded, T, 5, 25, false)}, nil},
		{"window closed by the test's end: a later interval", []ConditionInterval{iv(degraded, T, 30, 60)}, []allowance{window(degraded, T, 5, 25, false)}, []int{30}},
		{"two intervals, one covered", []ConditionInterval{iv(avail, F, 10, 20), iv(avail, T, 20, 30), iv(avail, F, 30, 40)}, []allowance{window(avail, F, 5, 25, true)}, []int{30}},
		{"two windows", []ConditionInterval{iv(avail, F, 10, 20), iv(avail, F, 30, 40)}, []allowance{window(avail, F, 5, 25, true), window(avail, F, 29, 41, true)}, nil},
	} {
		var froms []int
		for _, got := range uncovered(tc.timeline, tc.windows, now) {
			froms = append(froms, int(got.From.Sub(t0).Seconds()))
		}
		assert.Equal(t, tc.wantFroms, froms, tc.name)
	}
}

// TestObserveBuildsIntervals: docs/test-behaviours.md.
func TestObserveBuildsIntervals(t *testing.T) {
	m := &ClusterOperatorMonitor{Name: "node", Start: time.Now(), open: map[configv1.ClusterStatusConditionType]int{}, stopCh: make(chan struct{})}
	co := func(available configv1.ConditionStatus, reason, message string) *configv1.ClusterOperator {
		return &configv1.ClusterOperator{Status: configv1.ClusterOperatorStatus{
			Conditions: []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: available, Reason: reason, Message: message}},
			Versions:   []configv1.OperandVersion{{Name: "operator", Version: "4.22.0"}},
		}}
	}
	m.observe(co(configv1.ConditionTrue, "AsExpected", "a"))
	m.observe(co(configv1.ConditionTrue, "AsExpected", "b")) // a new message only: the same interval
	m.observe(co(configv1.ConditionFalse, "Broken", "c"))
	m.observe(nil) // deleted
	// Available's intervals: status, last message, ended.
	var available []string
	for _, iv := range m.Intervals() {
		if iv.Type == configv1.OperatorAvailable {
			available = append(available, fmt.Sprintf("%q %q %v", iv.Status, iv.Message, !iv.To.IsZero()))
		}
	}
	assert.Equal(t, []string{`"True" "b" true`, `"False" "c" true`, `"" "" false`}, available)
	// The suite monitor fails a test once per interval, naming it.
	s := &suiteState{mon: m, reportedBy: map[string]bool{}}
	bad := s.unreported(time.Now())
	if assert.Len(t, bad, 1) {
		assert.Contains(t, undeclared(m, bad[0]), "was Available=False from +")
		assert.Contains(t, undeclared(m, bad[0]), "reason Broken: c")
	}
	assert.Empty(t, s.unreported(time.Now()), "reported twice")
}

func TestVersionProblem(t *testing.T) {
	for _, tc := range []struct {
		name, reported, want string
		problem              bool
	}{
		{"not reported yet", "", "4.22.0", false},
		{"the running version", "4.22.0", "4.22.0", false},
		{"another version", "4.21.0", "4.22.0", true},
		{"no operator started", "4.21.0", "", false},
	} {
		co := &configv1.ClusterOperator{}
		co.Name = "node"
		if tc.reported != "" {
			co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: tc.reported}}
		}
		assert.Equal(t, tc.problem, versionProblem(co, tc.want) != "", tc.name)
	}
}
