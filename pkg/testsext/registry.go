package testsext

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Suite names; none is one of origin's own.
const (
	ParallelSuite   = "openshift/cluster-node-operator/conformance/parallel"
	SerialSuite     = "openshift/cluster-node-operator/conformance/serial"
	DisruptiveSuite = "openshift/cluster-node-operator/disruptive"
)

// Name markers origin reads (a substring match).
const (
	markSerial     = "[Serial]"
	markDisruptive = "[Disruptive]"
	markSlow       = "[Slow]"
)

// Test is one test: its name carries origin's markers; Run fails it by
// returning an error and skips it by returning Skip.
type Test struct {
	Name string
	// Platforms, when set, are the --platform values the test applies to.
	Platforms []string
	// APIGroups, when set, must all be served for the test to apply.
	APIGroups []string
	Lifecycle Lifecycle
	Run       func(t *T) error
}

// Environment is what list's environment flags said about the cluster.
type Environment struct {
	Platform, Network, NetworkStack, Topology, Architecture string
	ExternalConnectivity, Upgrade, Version                  string
	OptionalCapabilities, APIGroups, FeatureGates, Facts    []string
}

// Selector renders the test's applicability as CEL, in the forms of
// openshift-tests-extension's extensiontests/environment.go.
func (t Test) Selector() EnvironmentSelector {
	var clauses []string
	if len(t.Platforms) > 0 {
		var ors []string
		for _, p := range t.Platforms {
			ors = append(ors, fmt.Sprintf("platform==%q", p))
		}
		clauses = append(clauses, strings.Join(ors, " || "))
	}
	for _, g := range t.APIGroups {
		clauses = append(clauses, fmt.Sprintf("apiGroups.exists(api, api==%q)", g))
	}
	if len(clauses) == 1 {
		return EnvironmentSelector{Include: clauses[0]}
	}
	if len(clauses) > 1 {
		return EnvironmentSelector{Include: "(" + strings.Join(clauses, ") && (") + ")"}
	}
	return EnvironmentSelector{}
}

// AppliesTo evaluates Selector's expression for env, as CEL would: an
// unset flag is an empty string or list.
func (t Test) AppliesTo(env Environment) bool {
	if len(t.Platforms) > 0 && !slices.Contains(t.Platforms, env.Platform) {
		return false
	}
	for _, g := range t.APIGroups {
		if !slices.Contains(env.APIGroups, g) {
			return false
		}
	}
	return true
}

// Spec is the test as list prints it; labels are its bracketed markers.
func (t Test) Spec() Spec {
	labels := map[string]struct{}{}
	for _, m := range markerPattern.FindAllString(t.Name, -1) {
		labels[m] = struct{}{}
	}
	lifecycle := t.Lifecycle
	if lifecycle == "" {
		lifecycle = Blocking
	}
	return Spec{
		Name:                t.Name,
		Labels:              labels,
		Source:              "openshift:payload:" + ComponentName,
		Lifecycle:           lifecycle,
		EnvironmentSelector: t.Selector(),
	}
}

var (
	markerPattern  = regexp.MustCompile(`\[[^\[\]]+\]`)
	timeoutPattern = regexp.MustCompile(`\[Timeout:(\d+m)\]`)
)

// Timeout is the name's [Timeout:Xm], or def.
func (t Test) Timeout(def time.Duration) time.Duration {
	if m := timeoutPattern.FindStringSubmatch(t.Name); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil {
			return d
		}
	}
	return def
}

// suiteMarker is the marker a test's name carries to be in suite name.
func suiteMarker(name string) string { return "[Suite:" + name + "]" }

// Suites are the suites info advertises. Each qualifier has its meaning
// beside it, for run-suite; the unit test keeps the two in step.
func Suites() []Suite {
	timeout := 15 * time.Minute
	notSlow := func(n string) bool { return !strings.Contains(n, markSlow) }
	return []Suite{
		{
			Name:        ParallelSuite,
			Description: "The node operator's conformance tests that may run beside other tests.",
			Parents:     []string{"openshift/conformance/parallel"},
			// The parent's qualifiers are ORed with these, so the
			// exclusions must be ours.
			Qualifiers: []string{fmt.Sprintf(`name.contains(%q) && !name.contains(%q) && !name.contains(%q) && !name.contains(%q)`,
				suiteMarker(ParallelSuite), markSerial, markDisruptive, markSlow)},
			Parallelism:      4,
			ClusterStability: Stable,
			TestTimeout:      &timeout,
			selects: func(n string) bool {
				return strings.Contains(n, suiteMarker(ParallelSuite)) && !strings.Contains(n, markSerial) &&
					!strings.Contains(n, markDisruptive) && notSlow(n)
			},
		},
		{
			Name:        SerialSuite,
			Description: "The node operator's conformance tests that must run alone.",
			Parents:     []string{"openshift/conformance/serial"},
			Qualifiers: []string{fmt.Sprintf(`name.contains(%q) && !name.contains(%q) && !name.contains(%q)`,
				suiteMarker(SerialSuite), markDisruptive, markSlow)},
			Parallelism:      1,
			ClusterStability: Stable,
			TestTimeout:      &timeout,
			selects: func(n string) bool {
				return strings.Contains(n, suiteMarker(SerialSuite)) && !strings.Contains(n, markDisruptive) && notSlow(n)
			},
		},
		{
			Name:             DisruptiveSuite,
			Description:      "The node operator's tests that switch its stacks off and on: they disrupt the cluster.",
			Qualifiers:       []string{fmt.Sprintf(`name.contains(%q)`, suiteMarker(DisruptiveSuite))},
			Parallelism:      1,
			ClusterStability: Disruptive,
			TestTimeout:      &timeout,
			selects:          func(n string) bool { return strings.Contains(n, suiteMarker(DisruptiveSuite)) },
		},
	}
}

// Select returns the tests of a suite, in order.
func Select(tests []Test, suite Suite) []Test {
	var out []Test
	for _, t := range tests {
		if suite.selects(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// FindSuite returns the named suite.
func FindSuite(name string) (Suite, bool) {
	for _, s := range Suites() {
		if s.Name == name {
			return s, true
		}
	}
	return Suite{}, false
}
