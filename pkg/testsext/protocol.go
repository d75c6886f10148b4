// Package testsext holds the tests that openshift-tests runs against a real
// cluster through the extension binary cluster-node-operator-tests-ext, and
// the binary's side of the openshift-tests extension protocol (OTE) v1.1.
//
// The protocol was read in openshift-eng/openshift-tests-extension
// (pkg/extension/types.go at 09eddc1e, pkg/extension/extensiontests/types.go
// at 61e0e248, environment.go) and in openshift/origin pkg/test/extensions
// (binary.go at 0001afe0, types.go at 1085df91): origin runs `info`,
// `list -o jsonl` with environment flags, `run-test -n NAME -o jsonl` one
// test per process, and `images`, and decodes their stdout and stderr
// together (README, "Testing a cluster").
package testsext

import (
	"encoding/json"
	"time"
)

const (
	// APIVersion is the protocol version; from v1.1 origin passes
	// --api-group and --feature-gate to list.
	APIVersion = "v1.1"
	// ComponentName is the component's name in info and in each test's source.
	ComponentName = "cluster-node-operator"
	// SourceURL is the repository the binary is built from.
	SourceURL = "https://github.com/openshift/cluster-node-operator"
	// TimeLayout is the layout of a result's startTime and endTime
	// (openshift-tests-extension's dbtime), not RFC 3339.
	TimeLayout = "2006-01-02 15:04:05.000000 UTC"
)

// Info is the output of `info`.
type Info struct {
	APIVersion string    `json:"apiVersion"`
	Source     Source    `json:"source"`
	Component  Component `json:"component"`
	Suites     []Suite   `json:"suites"`
	Images     []Image   `json:"images"`
}

// Source says what the binary was built from.
type Source struct {
	Commit       string `json:"commit"`
	BuildDate    string `json:"build_date"`
	GitTreeState string `json:"git_tree_state"`
	SourceURL    string `json:"source_url,omitempty"`
}

// Component names the payload component whose tests these are.
type Component struct {
	Product string `json:"product"`
	Kind    string `json:"type"`
	Name    string `json:"name"`
}

// ClusterStability says whether a suite disrupts the cluster.
type ClusterStability string

const (
	Stable     ClusterStability = "Stable"
	Disruptive ClusterStability = "Disruptive"
)

// Suite is a suite as info advertises it. Qualifiers are CEL expressions
// over a test's name, ORed; a suite with parents adds its tests to them.
type Suite struct {
	Name             string           `json:"name"`
	Description      string           `json:"description"`
	Parents          []string         `json:"parents,omitempty"`
	Qualifiers       []string         `json:"qualifiers,omitempty"`
	Parallelism      int              `json:"parallelism,omitempty"`
	ClusterStability ClusterStability `json:"clusterStability,omitempty"`
	// TestTimeout is a Go time.Duration, in nanoseconds on the wire.
	TestTimeout *time.Duration `json:"testTimeout,omitempty"`

	// selects is the qualifiers' meaning, for run-suite and list --suite.
	selects func(name string) bool
}

// Image is a test image (`images`); these tests use none.
type Image struct {
	Index    int    `json:"index"`
	Registry string `json:"registry"`
	Name     string `json:"name"`
	Version  string `json:"version"`
}

// Lifecycle: a failing informing test does not fail the job.
type Lifecycle string

const (
	Blocking  Lifecycle = "blocking"
	Informing Lifecycle = "informing"
)

// Spec is one test as `list` prints it.
type Spec struct {
	Name string `json:"name"`
	// Labels is a set: a JSON object whose values are empty objects.
	Labels              map[string]struct{} `json:"labels"`
	Resources           Resources           `json:"resources"`
	Source              string              `json:"source"`
	CodeLocations       []string            `json:"codeLocations,omitempty"`
	Lifecycle           Lifecycle           `json:"lifecycle"`
	EnvironmentSelector EnvironmentSelector `json:"environmentSelector"`
}

// Resources and Isolation are empty: no test needs more than the defaults.
type Resources struct {
	Isolation Isolation `json:"isolation"`
}

type Isolation struct{}

// EnvironmentSelector holds CEL expressions over the environment flags.
type EnvironmentSelector struct {
	Include string `json:"include,omitempty"`
	Exclude string `json:"exclude,omitempty"`
}

// Outcome is a result's verdict.
type Outcome string

const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped"
)

// Result is one test's result line of run-test and run-suite.
type Result struct {
	Name      string    `json:"name"`
	Lifecycle Lifecycle `json:"lifecycle"`
	// Duration is in milliseconds.
	Duration  int64     `json:"duration"`
	StartTime Timestamp `json:"startTime"`
	EndTime   Timestamp `json:"endTime"`
	Result    Outcome   `json:"result"`
	Output    string    `json:"output"`
	Error     string    `json:"error,omitempty"`
	Details   []Detail  `json:"details,omitempty"`
}

// Detail is a named, human-readable note on a result (why it was skipped).
type Detail struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Timestamp encodes as TimeLayout, in UTC.
type Timestamp time.Time

func (t Timestamp) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Time(t).UTC().Format(TimeLayout))
}
