package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openshift/cluster-node-operator/pkg/testsext"
)

// The shapes origin decodes, written from openshift-tests-extension's
// pkg/extension/types.go (09eddc1e) and extensiontests/types.go (61e0e248)
// as origin's pkg/test/extensions (binary.go 0001afe0, types.go 1085df91)
// embeds them. Decoded with DisallowUnknownFields, so that a field origin
// does not know, or a value of another shape, fails here.
type (
	originInfo struct {
		APIVersion string          `json:"apiVersion"`
		Source     originSource    `json:"source"`
		Component  originComponent `json:"component"`
		Suites     []originSuite   `json:"suites"`
		Images     []originImage   `json:"images"`
		Configs    []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"configs"`
		ExtensionArtifactDir string `json:"extension_artifact_dir"`
	}
	originSource struct {
		Commit       string `json:"commit"`
		BuildDate    string `json:"build_date"`
		GitTreeState string `json:"git_tree_state"`
		SourceURL    string `json:"source_url,omitempty"`
		SourceImage  string `json:"source_image,omitempty"`
		SourceBinary string `json:"source_binary,omitempty"`
	}
	originComponent struct {
		Product string `json:"product"`
		Kind    string `json:"type"`
		Name    string `json:"name"`
	}
	originSuite struct {
		Name             string         `json:"name"`
		Description      string         `json:"description"`
		Parents          []string       `json:"parents,omitempty"`
		Qualifiers       []string       `json:"qualifiers,omitempty"`
		Count            int            `json:"count,omitempty"`
		Parallelism      int            `json:"parallelism,omitempty"`
		ClusterStability string         `json:"clusterStability,omitempty"`
		TestTimeout      *time.Duration `json:"testTimeout,omitempty"`
	}
	originImage struct {
		Index    int    `json:"index"`
		Registry string `json:"registry"`
		Name     string `json:"name"`
		Version  string `json:"version"`
	}
	originSpec struct {
		Name          string              `json:"name"`
		OriginalName  string              `json:"originalName,omitempty"`
		Labels        map[string]struct{} `json:"labels"`
		Tags          map[string]string   `json:"tags,omitempty"`
		Resources     originResources     `json:"resources"`
		Source        string              `json:"source"`
		CodeLocations []string            `json:"codeLocations,omitempty"`
		Lifecycle     string              `json:"lifecycle"`
		// EnvironmentSelector holds CEL strings.
		EnvironmentSelector struct {
			Include string `json:"include,omitempty"`
			Exclude string `json:"exclude,omitempty"`
		} `json:"environmentSelector,omitempty"`
	}
	originResources struct {
		Isolation struct {
			Mode     string   `json:"mode,omitempty"`
			Conflict []string `json:"conflict,omitempty"`
		} `json:"isolation"`
		Memory   string `json:"memory,omitempty"`
		Duration string `json:"duration,omitempty"`
		Timeout  string `json:"timeout,omitempty"`
	}
	originResult struct {
		Name      string  `json:"name"`
		Lifecycle string  `json:"lifecycle"`
		Duration  int64   `json:"duration"`
		StartTime *string `json:"startTime"` // dbtime: "2006-01-02 15:04:05.000000 UTC"
		EndTime   *string `json:"endTime"`
		Result    string  `json:"result"`
		Output    string  `json:"output"`
		Error     string  `json:"error,omitempty"`
		Details   []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		} `json:"details,omitempty"`
	}
)

func strictDecode(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("origin would not decode %s: %v", data, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %s", data)
	}
}

// execute runs the command line in-process; stdout and stderr apart.
func execute(t *testing.T, ctx context.Context, tests []testsext.Test, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCommand(ctx, tests, func() (*testsext.Cluster, error) { return &testsext.Cluster{}, nil })
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// jsonLines decodes each line that starts with "{", as origin reads list
// and run-test output.
func jsonLines[T any](t *testing.T, out string) []T {
	var all []T
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "{") {
			var v T
			strictDecode(t, []byte(line), &v)
			all = append(all, v)
		}
	}
	return all
}

func TestInfoDecodesAsOriginsExtension(t *testing.T) {
	out, errOut, err := execute(t, context.Background(), testsext.Tests(), "info")
	if err != nil || errOut != "" {
		t.Fatalf("info: %v, stderr %q", err, errOut)
	}
	// origin takes the text from the first line starting with { to the last }.
	if strings.TrimSpace(out)[0] != '{' || !strings.HasSuffix(strings.TrimSpace(out), "}") {
		t.Fatalf("info prints more than the JSON object:\n%s", out)
	}
	var info originInfo
	strictDecode(t, []byte(out), &info)
	if info.APIVersion != "v1.1" || info.Component != (originComponent{"openshift", "payload", "cluster-node-operator"}) || info.Images == nil {
		t.Errorf("apiVersion %q, component %+v, images %v", info.APIVersion, info.Component, info.Images)
	}
	origins := map[string]bool{"openshift/conformance/parallel": true, "openshift/conformance/serial": true, "openshift/disruptive": true}
	for _, s := range info.Suites {
		if origins[s.Name] || !strings.HasPrefix(s.Name, "openshift/cluster-node-operator/") {
			t.Errorf("suite %q is not of our own name", s.Name)
		}
		for _, p := range s.Parents {
			// A parent ORs our qualifiers into its own: ours must exclude what it would.
			for _, mark := range []string{"[Disruptive]", "[Slow]"} {
				if !strings.Contains(s.Qualifiers[0], `!name.contains("`+mark+`")`) {
					t.Errorf("suite %s (parent %s) does not exclude %s: %v", s.Name, p, mark, s.Qualifiers)
				}
			}
		}
		if s.ClusterStability != "Stable" && s.ClusterStability != "Disruptive" {
			t.Errorf("suite %s clusterStability %q", s.Name, s.ClusterStability)
		}
	}
}

// qualifierPattern reads the qualifiers we write: [!]name.contains("X") joined by &&.
var qualifierPattern = regexp.MustCompile(`^(!?)name\.contains\("([^"]+)"\)$`)

func TestSuiteQualifiersSelectWhatRunSuiteRuns(t *testing.T) {
	for _, s := range testsext.Suites() {
		var got, want []string
		for _, test := range testsext.Tests() {
			in := true
			for _, clause := range strings.Split(s.Qualifiers[0], " && ") {
				m := qualifierPattern.FindStringSubmatch(clause)
				if m == nil {
					t.Fatalf("suite %s: cannot read qualifier clause %q", s.Name, clause)
				}
				in = in && (m[1] == "") == strings.Contains(test.Name, m[2])
			}
			if in {
				want = append(want, test.Name)
			}
		}
		for _, test := range testsext.Select(testsext.Tests(), s) {
			got = append(got, test.Name)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) == 0 {
			t.Errorf("suite %s: run-suite selects\n%v\nits qualifier\n%v", s.Name, got, want)
		}
	}
	if n := len(testsext.Select(testsext.Tests(), testsext.Suites()[0])); n < 8 {
		t.Errorf("the parallel suite has %d tests", n)
	}
}

func TestListDecodesAsOriginsSpecs(t *testing.T) {
	out, errOut, err := execute(t, context.Background(), testsext.Tests(), "list", "-o", "jsonl")
	if err != nil || errOut != "" {
		t.Fatalf("list: %v, stderr %q", err, errOut)
	}
	specs := jsonLines[originSpec](t, out)
	if len(specs) != len(testsext.Tests()) || strings.Count(out, "\n") != len(specs) {
		t.Fatalf("%d specs in %d lines for %d tests", len(specs), strings.Count(out, "\n"), len(testsext.Tests()))
	}
	for _, s := range specs {
		if _, ok := s.Labels["[sig-node]"]; !ok || s.Source != "openshift:payload:cluster-node-operator" || (s.Lifecycle != "blocking" && s.Lifecycle != "informing") {
			t.Errorf("spec %+v", s)
		}
	}
	// origin passes what it knows of the cluster; the selectors apply.
	for _, c := range []struct {
		flags           []string
		nmstate, alerts bool
	}{
		{[]string{"--platform=aws", "--api-group=monitoring.coreos.com"}, false, true},
		{[]string{"--platform=baremetal", "--api-group=apps", "--feature-gate=X"}, true, false},
		{[]string{"--platform=none"}, true, false},
	} {
		out, _, err := execute(t, context.Background(), testsext.Tests(), append([]string{"list", "-o", "names"}, c.flags...)...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "NMState") != c.nmstate || strings.Contains(out, "alerts") != c.alerts {
			t.Errorf("list %v: NMState listed %v (want %v), alerts %v (want %v)", c.flags, !c.nmstate, c.nmstate, !c.alerts, c.alerts)
		}
	}
}

func TestRunTestResultsDecodeAsOrigins(t *testing.T) {
	fake := []testsext.Test{
		{Name: "[sig-node] passes", Run: func(t *testsext.T) error { t.Logf("fine"); return nil }},
		{Name: "[sig-node] fails", Run: func(*testsext.T) error { return errors.New("broken") }},
		{Name: "[sig-node] skips", Run: func(*testsext.T) error { return testsext.Skip("not here") }},
		{Name: "[sig-node] hangs", Run: func(t *testsext.T) error { <-make(chan struct{}); return nil }},
	}
	want := map[string]string{"[sig-node] passes": "passed", "[sig-node] fails": "failed", "[sig-node] skips": "skipped", "[sig-node] hangs": "failed"}
	args := []string{"run-test", "-o", "jsonl", "--timeout", "300ms"}
	for _, f := range fake {
		args = append(args, "-n", f.Name)
	}
	out, _, err := execute(t, context.Background(), fake, args...)
	if err == nil {
		t.Error("run-test exits zero with a failed test")
	}
	results := jsonLines[originResult](t, out)
	if len(results) != len(fake) {
		t.Fatalf("%d results for %d tests:\n%s", len(results), len(fake), out)
	}
	for _, r := range results {
		start, err1 := time.Parse("2006-01-02 15:04:05.000000 UTC", *r.StartTime)
		end, err2 := time.Parse("2006-01-02 15:04:05.000000 UTC", *r.EndTime)
		if err1 != nil || err2 != nil || r.Duration != end.Sub(start).Milliseconds() || r.Lifecycle != "blocking" {
			t.Errorf("%s: times %q %q (%v %v), duration %d ms, lifecycle %q", r.Name, *r.StartTime, *r.EndTime, err1, err2, r.Duration, r.Lifecycle)
		}
		if r.Result != want[r.Name] || (r.Result == "failed") != (r.Error != "") {
			t.Errorf("%s: result %q error %q, want %q", r.Name, r.Result, r.Error, want[r.Name])
		}
	}
	if results[0].Output == "" || results[2].Details == nil || results[3].Duration < 300 {
		t.Errorf("output %q, skip details %v, timed-out duration %d ms", results[0].Output, results[2].Details, results[3].Duration)
	}

	// SIGINT cancels the command's context: the running test still gets its line.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	out, _, _ = execute(t, ctx, fake, "run-test", "-n", "[sig-node] hangs")
	if r := jsonLines[originResult](t, out); len(r) != 1 || r[0].Result != "failed" || !strings.Contains(r[0].Error, "interrupted") {
		t.Errorf("after an interrupt: %s", out)
	}
}
