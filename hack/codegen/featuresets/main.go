// Command featuresets writes one CRD manifest per feature set from the CRD
// that controller-gen generates, as openshift/api's generator does: a field
// marked `+openshift:enable:FeatureGate=<gate>` in the Go types is left out
// of the schema of every feature set that does not serve the gate
// (pkg/features), and each file carries the
// release.openshift.io/feature-set annotation by which the CVO applies only
// the one for the cluster's FeatureGate spec.featureSet.
//
//	featuresets -types <package dir> -kind <root type> -crd <generated CRD> -out <path prefix> -header <first line>
//
// writes <path prefix>-<FeatureSet>.crd.yaml.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

var gateMarker = regexp.MustCompile(`^\+openshift:enable:FeatureGate=(\S+)$`)

func main() {
	types := flag.String("types", "", "directory of the API package")
	kind := flag.String("kind", "", "the root type")
	crdFile := flag.String("crd", "", "the CRD controller-gen generated")
	out := flag.String("out", "", "path prefix of the files to write")
	header := flag.String("header", "", "comment line at the top of each file")
	flag.Parse()
	if err := run(*types, *kind, *crdFile, *out, *header); err != nil {
		fmt.Fprintln(os.Stderr, "featuresets:", err)
		os.Exit(1)
	}
}

func run(typesDir, kind, crdFile, out, header string) error {
	gated, err := gatedFields(typesDir, kind)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(crdFile)
	if err != nil {
		return err
	}
	for _, set := range features.FeatureSets {
		crd := map[string]any{}
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return err
		}
		for _, g := range gated {
			if features.Served(g.gate, set) {
				continue
			}
			if err := prune(crd, g.path); err != nil {
				return err
			}
		}
		annotations, _ := lookup(crd, "metadata", "annotations").(map[string]any)
		if annotations == nil {
			return fmt.Errorf("%s: no metadata.annotations", crdFile)
		}
		annotations["api.openshift.io/merged-by-featuregates"] = "true"
		annotations["release.openshift.io/feature-set"] = string(set)
		b, err := yaml.Marshal(crd)
		if err != nil {
			return err
		}
		text := append([]byte("# "+header+"\n"), b...)
		if err := os.WriteFile(fmt.Sprintf("%s-%s.crd.yaml", out, set), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gatedField is a field of the schema (its path of JSON names from the
// root) behind a feature gate.
type gatedField struct {
	path []string
	gate configv1.FeatureGateName
}

type field struct {
	json, typeName, gate string
	inline               bool
}

// gatedFields parses the package's structs and walks them from the root
// type, collecting the JSON path of every field with a gate marker.
func gatedFields(dir, root string) ([]gatedField, error) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go") && !strings.HasPrefix(fi.Name(), "zz_generated")
	}, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	structs := map[string][]field{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, spec := range gd.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					structs[ts.Name.Name] = fieldsOf(st)
				}
			}
		}
	}
	if _, ok := structs[root]; !ok {
		return nil, fmt.Errorf("%s: no struct %s", dir, root)
	}
	known := map[string]bool{}
	for _, g := range features.Gates {
		known[string(g)] = true
	}
	var out []gatedField
	var walk func(typeName string, path []string, seen map[string]bool) error
	walk = func(typeName string, path []string, seen map[string]bool) error {
		if seen[typeName] {
			return nil
		}
		seen[typeName] = true
		defer delete(seen, typeName)
		for _, f := range structs[typeName] {
			p := path
			if !f.inline {
				p = append(append([]string{}, path...), f.json)
			}
			if f.gate != "" {
				if !known[f.gate] {
					return fmt.Errorf("%s: gate %q is not in pkg/features", strings.Join(p, "."), f.gate)
				}
				out = append(out, gatedField{path: p, gate: configv1.FeatureGateName(f.gate)})
				continue // everything under it goes with it
			}
			if _, local := structs[f.typeName]; local {
				if err := walk(f.typeName, p, seen); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, nil, map[string]bool{}); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i].path, ".") < strings.Join(out[j].path, ".") })
	return out, nil
}

func fieldsOf(st *ast.StructType) []field {
	var out []field
	for _, f := range st.Fields.List {
		var fd field
		if f.Tag != nil {
			tag, _ := strconv.Unquote(f.Tag.Value)
			name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			fd.json, fd.inline = name, name == "" && strings.Contains(opts, "inline")
		}
		if fd.json == "" && !fd.inline || fd.json == "-" {
			continue
		}
		fd.typeName = localTypeName(f.Type)
		if f.Doc != nil {
			for _, c := range f.Doc.List {
				if m := gateMarker.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))); m != nil {
					fd.gate = m[1]
				}
			}
		}
		out = append(out, fd)
	}
	return out
}

// localTypeName is the name of a type of this package under pointers,
// slices and maps; "" for other packages' and built-in types.
func localTypeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return localTypeName(t.X)
	case *ast.ArrayType:
		return localTypeName(t.Elt)
	case *ast.MapType:
		return localTypeName(t.Value)
	}
	return ""
}

// prune removes the field at path from every version's schema, and from
// its parent's required list.
func prune(crd map[string]any, path []string) error {
	versions, _ := lookup(crd, "spec", "versions").([]any)
	if len(versions) == 0 {
		return fmt.Errorf("the CRD has no versions")
	}
	for _, v := range versions {
		schema, _ := lookup(v, "schema", "openAPIV3Schema").(map[string]any)
		parent := schema
		for _, name := range path[:len(path)-1] {
			next, _ := lookup(parent, "properties", name).(map[string]any)
			if next == nil {
				return fmt.Errorf("%s: no such field in the schema", strings.Join(path, "."))
			}
			if items, ok := next["items"].(map[string]any); ok && next["type"] == "array" {
				next = items
			}
			parent = next
		}
		last := path[len(path)-1]
		props, _ := parent["properties"].(map[string]any)
		if _, ok := props[last]; !ok {
			return fmt.Errorf("%s: no such field in the schema", strings.Join(path, "."))
		}
		delete(props, last)
		// A rule of the parent that reads the field would not compile
		// without it; openshift/api gates such rules with their own marker.
		rules, _ := parent["x-kubernetes-validations"].([]any)
		for _, r := range rules {
			if rule, _ := lookup(r, "rule").(string); strings.Contains(rule, "self."+last) {
				return fmt.Errorf("%s: the rule %q of its parent reads it", strings.Join(path, "."), rule)
			}
		}
		if req, ok := parent["required"].([]any); ok {
			var keep []any
			for _, r := range req {
				if r != last {
					keep = append(keep, r)
				}
			}
			parent["required"] = keep
			if len(keep) == 0 {
				delete(parent, "required")
			}
		}
	}
	return nil
}

func lookup(obj any, keys ...string) any {
	for _, k := range keys {
		m, ok := obj.(map[string]any)
		if !ok {
			return nil
		}
		obj = m[k]
	}
	return obj
}
