// Command cluster-node-operator-tests-ext is the node operator's
// openshift-tests extension: openshift-tests extracts it from the payload
// image and runs its tests against the cluster under test; it runs them
// just as well by hand with a KUBECONFIG (README, "Testing a cluster").
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/openshift/cluster-node-operator/pkg/testsext"
	"github.com/openshift/cluster-node-operator/pkg/version"
)

func main() {
	// SIGINT (origin's timeout) and SIGTERM end the running test, whose
	// result line is still printed.
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	cmd := newRootCommand(ctx, testsext.Tests(), testsext.Connect)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// errFailed makes the exit code non-zero once the results are printed.
var errFailed = fmt.Errorf("a test failed")

func newRootCommand(ctx context.Context, tests []testsext.Test, connect func() (*testsext.Cluster, error)) *cobra.Command {
	root := &cobra.Command{
		Use:           "cluster-node-operator-tests-ext",
		Short:         "The node operator's tests for openshift-tests, against the cluster of $KUBECONFIG",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(infoCommand(), listCommand(tests), runTestCommand(ctx, tests, connect), runSuiteCommand(ctx, tests, connect), imagesCommand())
	return root
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func infoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "info",
		Short: "Print the extension's metadata and suites as JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version.Get()
			return writeJSON(cmd.OutOrStdout(), testsext.Info{
				APIVersion: testsext.APIVersion,
				Source:     testsext.Source{Commit: v.GitCommit, BuildDate: v.BuildDate, GitTreeState: v.GitTreeState, SourceURL: testsext.SourceURL},
				Component:  testsext.Component{Product: "openshift", Kind: "payload", Name: testsext.ComponentName},
				Suites:     testsext.Suites(),
				Images:     []testsext.Image{},
			})
		},
	}
}

func imagesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "images",
		Short: "Print the test images as a JSON array (none)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeJSON(cmd.OutOrStdout(), []testsext.Image{})
		},
	}
}

func listCommand(tests []testsext.Test) *cobra.Command {
	var (
		output, suite string
		env           testsext.Environment
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tests that apply to the environment the flags describe",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			selected := tests
			if suite != "" {
				s, ok := testsext.FindSuite(suite)
				if !ok {
					return fmt.Errorf("no suite %q", suite)
				}
				selected = testsext.Select(tests, s)
			}
			// Without any environment flag nothing is known, and all are listed.
			filter := cmd.Flags().NFlag() > btoi(cmd.Flags().Changed("output"))+btoi(cmd.Flags().Changed("suite"))
			var specs []testsext.Spec
			for _, t := range selected {
				if !filter || t.AppliesTo(env) {
					specs = append(specs, t.Spec())
				}
			}
			out := cmd.OutOrStdout()
			switch output {
			case "json":
				if specs == nil {
					specs = []testsext.Spec{}
				}
				return writeJSON(out, specs)
			case "jsonl":
				enc := json.NewEncoder(out)
				for _, s := range specs {
					if err := enc.Encode(s); err != nil {
						return err
					}
				}
			case "names":
				for _, s := range specs {
					fmt.Fprintln(out, s.Name)
				}
			default:
				return fmt.Errorf("-o %q: want json, jsonl or names", output)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "json", "json, jsonl or names")
	f.StringVar(&suite, "suite", "", "only the tests of this suite")
	// The environment flags of OTE v1.0 and, repeatable, of v1.1.
	for name, p := range map[string]*string{
		"platform": &env.Platform, "network": &env.Network, "network-stack": &env.NetworkStack, "topology": &env.Topology,
		"architecture": &env.Architecture, "external-connectivity": &env.ExternalConnectivity, "upgrade": &env.Upgrade, "version": &env.Version,
	} {
		f.StringVar(p, name, "", "the cluster's "+strings.ReplaceAll(name, "-", " "))
	}
	for name, p := range map[string]*[]string{
		"optional-capability": &env.OptionalCapabilities, "api-group": &env.APIGroups, "feature-gate": &env.FeatureGates, "fact": &env.Facts,
	} {
		f.StringArrayVar(p, name, nil, "repeatable: a "+strings.ReplaceAll(name, "-", " ")+" of the cluster")
	}
	return cmd
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// printer prints each result as it comes, as a JSON line or, for -o json,
// collected into one array at the end.
type printer struct {
	w       io.Writer
	output  string
	results []testsext.Result
}

func newPrinter(w io.Writer, output string) (*printer, error) {
	if output != "jsonl" && output != "json" {
		return nil, fmt.Errorf("-o %q: want jsonl or json", output)
	}
	return &printer{w: w, output: output}, nil
}

func (p *printer) add(r testsext.Result) error {
	p.results = append(p.results, r)
	if p.output == "jsonl" {
		return json.NewEncoder(p.w).Encode(r)
	}
	return nil
}

func (p *printer) done() error {
	if p.output == "json" {
		if err := writeJSON(p.w, p.results); err != nil {
			return err
		}
	}
	for _, r := range p.results {
		if r.Result == testsext.Failed {
			return errFailed
		}
	}
	return nil
}

// run runs tests one after the other; once ctx ends, each remaining test
// still gets its (failed) result line.
func run(ctx context.Context, tests []testsext.Test, connect func() (*testsext.Cluster, error), timeout time.Duration, p *printer) error {
	for _, t := range tests {
		if err := p.add(testsext.Run(ctx, t, connect, timeout)); err != nil {
			return err
		}
	}
	return p.done()
}

func runTestCommand(ctx context.Context, tests []testsext.Test, connect func() (*testsext.Cluster, error)) *cobra.Command {
	var (
		names   []string
		output  string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run-test [-n NAME]... [NAME]",
		Short: "Run tests by their exact names",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names = append(names, args...)
			if len(names) == 0 {
				return fmt.Errorf("name a test with -n")
			}
			byName := map[string]testsext.Test{}
			for _, t := range tests {
				byName[t.Name] = t
			}
			var selected []testsext.Test
			for _, n := range names {
				t, ok := byName[n]
				if !ok {
					return fmt.Errorf("no test named %q", n)
				}
				selected = append(selected, t)
			}
			p, err := newPrinter(cmd.OutOrStdout(), output)
			if err != nil {
				return err
			}
			return run(ctx, selected, connect, timeout, p)
		},
	}
	cmd.Flags().StringArrayVarP(&names, "names", "n", nil, "repeatable: the exact name of a test")
	cmd.Flags().StringVarP(&output, "output", "o", "jsonl", "jsonl or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 15*time.Minute, "per test, unless its name says [Timeout:Xm]")
	return cmd
}

func runSuiteCommand(ctx context.Context, tests []testsext.Test, connect func() (*testsext.Cluster, error)) *cobra.Command {
	var (
		junit, output string
		timeout       time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run-suite NAME",
		Short: "Run a suite's tests one after the other",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			suite, ok := testsext.FindSuite(args[0])
			if !ok {
				return fmt.Errorf("no suite %q", args[0])
			}
			p, err := newPrinter(cmd.OutOrStdout(), output)
			if err != nil {
				return err
			}
			err = run(ctx, testsext.Select(tests, suite), connect, timeout, p)
			if junit != "" {
				f, ferr := os.Create(junit)
				if ferr != nil {
					return ferr
				}
				defer f.Close()
				if ferr := testsext.WriteJUnit(f, suite.Name, p.results); ferr != nil {
					return ferr
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&junit, "junit-path", "", "write the results as JUnit XML to this file")
	cmd.Flags().StringVarP(&output, "output", "o", "jsonl", "jsonl or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 15*time.Minute, "per test, unless its name says [Timeout:Xm]")
	return cmd
}
