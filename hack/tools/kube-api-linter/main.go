// Command kube-api-linter runs kube-api-linter's (KAL) analyzers over Go
// packages with the kubeapilinter settings and exclusion rules of a
// golangci-lint v2 configuration file (.golangci-kal.yaml).
//
// KAL ships as a golangci-lint module plugin; golangci-lint compiles about a
// hundred other linters that this repository never enables, the largest part
// of a cold verify. This command runs the same analyzers, built by KAL's own
// plugin code from the same settings, through x/tools' analysis checker, and
// reports findings as golangci-lint words them ("<analyzer>: <message>"), so
// that the file's exclusion rules match as they do there (docs/api.md).
package main

import (
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	pluginbase "sigs.k8s.io/kube-api-linter/pkg/plugin/base"
	_ "sigs.k8s.io/kube-api-linter/pkg/registration" // KAL's default linters
	"sigs.k8s.io/yaml"
)

// config is the part of a golangci-lint v2 configuration this command reads.
type config struct {
	Linters struct {
		Settings struct {
			Custom map[string]struct {
				Settings any `json:"settings"`
			} `json:"custom"`
		} `json:"settings"`
		Exclusions struct {
			Generated  string `json:"generated"`
			WarnUnused bool   `json:"warn-unused"`
			Rules      []struct {
				Path    string   `json:"path"`
				Linters []string `json:"linters"`
				Text    string   `json:"text"`
			} `json:"rules"`
		} `json:"exclusions"`
	} `json:"linters"`
}

const linterName = "kubeapilinter"

type finding struct {
	path      string
	line, col int
	text      string
}

type exclusion struct {
	path, text *regexp.Regexp
	used       bool
	source     string
}

func main() {
	configPath := flag.String("config", ".golangci-kal.yaml", "golangci-lint v2 configuration with the kubeapilinter settings")
	flag.Parse()
	n, err := run(*configPath, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-api-linter:", err)
		os.Exit(2)
	}
	fmt.Printf("%d issues.\n", n)
	if n > 0 {
		os.Exit(1)
	}
}

func run(configPath string, patterns []string) (int, error) {
	raw, err := os.ReadFile(configPath)
	if err != nil {
		return 0, err
	}
	var cfg config
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return 0, fmt.Errorf("%s: %w", configPath, err)
	}
	plugin, err := pluginbase.New(cfg.Linters.Settings.Custom[linterName].Settings)
	if err != nil {
		return 0, err
	}
	analyzers, err := plugin.BuildAnalyzers()
	if err != nil {
		return 0, err
	}
	var exclusions []*exclusion
	for _, r := range cfg.Linters.Exclusions.Rules {
		if len(r.Linters) > 0 && !slices.Contains(r.Linters, linterName) {
			continue
		}
		e := &exclusion{source: fmt.Sprintf("path %q, text %q", r.Path, r.Text)}
		if e.path, err = regexp.Compile(r.Path); err != nil {
			return 0, fmt.Errorf("exclusion %s: %w", e.source, err)
		}
		if e.text, err = regexp.Compile(r.Text); err != nil {
			return 0, fmt.Errorf("exclusion %s: %w", e.source, err)
		}
		exclusions = append(exclusions, e)
	}

	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, patterns...)
	if err != nil {
		return 0, err
	}
	if packages.PrintErrors(pkgs) > 0 {
		return 0, fmt.Errorf("the packages do not load")
	}
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		return 0, err
	}
	wd, _ := os.Getwd()
	var findings []finding
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			return 0, fmt.Errorf("%s: %w", act, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			if cfg.Linters.Exclusions.Generated != "" && generated(act.Package, pos.Filename) {
				continue
			}
			path := pos.Filename
			if rel, err := filepath.Rel(wd, path); err == nil {
				path = rel
			}
			text := act.Analyzer.Name + ": " + d.Message
			if excluded(exclusions, path, text) {
				continue
			}
			findings = append(findings, finding{path, pos.Line, pos.Column, text})
		}
	}
	slices.SortFunc(findings, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col), cmp.Compare(a.text, b.text))
	})
	findings = slices.Compact(findings)
	for _, f := range findings {
		fmt.Printf("%s:%d:%d: %s (%s)\n", f.path, f.line, f.col, f.text, linterName)
	}
	if cfg.Linters.Exclusions.WarnUnused {
		for _, e := range exclusions {
			if !e.used {
				fmt.Fprintf(os.Stderr, "WARN: the exclusion rule %s matches no finding\n", e.source)
			}
		}
	}
	return len(findings), nil
}

func excluded(exclusions []*exclusion, path, text string) bool {
	for _, e := range exclusions {
		if e.path.MatchString(path) && e.text.MatchString(text) {
			e.used = true
			return true
		}
	}
	return false
}

// generated reports whether the file carries Go's "Code generated ... DO NOT
// EDIT." comment (golangci-lint's strict mode).
func generated(pkg *packages.Package, filename string) bool {
	for _, f := range pkg.Syntax {
		if pkg.Fset.File(f.Pos()).Name() == filename {
			return ast.IsGenerated(f)
		}
	}
	return false
}
