package framework

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	imagev1 "github.com/openshift/api/image/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// VersionPlaceholder is what the release tooling replaces with the release's version in the manifests.
const VersionPlaceholder = "0.0.1-snapshot"

// ReleaseOptions describe the release a test installs from manifests/.
type ReleaseOptions struct {
	// Profile is the cluster's release profile; the CVO applies only the
	// manifests annotated include.release.openshift.io/<profile>: "true".
	// Default self-managed-high-availability.
	Profile string
	// Version replaces VersionPlaceholder. Default 4.99.0-0.e2e.
	Version string
	// FeatureSet is the cluster's; the CVO applies only the manifests
	// without a release.openshift.io/feature-set annotation or whose
	// annotation lists it. Default Default.
	FeatureSet features.FeatureSet
	// AllFeatureSets keeps the manifests of every feature set (a payload).
	AllFeatureSets bool
	// Repo is the checkout whose manifests/ are read; default this one.
	Repo string
}

// ReleaseManifest is one object of the release, placeholders substituted.
type ReleaseManifest struct {
	// File is the manifest's file name; RunLevel its 0000_<NN> run level.
	File     string
	RunLevel string
	Object   *unstructured.Unstructured
}

func (m ReleaseManifest) String() string {
	ns := m.Object.GetNamespace()
	if ns != "" {
		ns += "/"
	}
	return fmt.Sprintf("%s %s%s (%s)", m.Object.GetKind(), ns, m.Object.GetName(), m.File)
}

// Release is what the CVO would apply on a cluster of a profile.
type Release struct {
	Options   ReleaseOptions
	Manifests []ReleaseManifest
	// Images maps the image-references tags to the pull specs substituted for their placeholders.
	Images map[string]string
	// Dir holds every file of manifests/ (every profile's and feature set's) with the substitutions made, as the release tooling writes them.
	Dir string
}

var runLevelPattern = regexp.MustCompile(`^0000_(\d+)_`)

// ReleasePullSpec is a tag's digest pull spec in the release of version (each release's differ).
func ReleasePullSpec(tag, version string) string {
	sum := sha256.Sum256([]byte(tag + "@" + version))
	return "registry.e2e.invalid/openshift/release@sha256:" + hex.EncodeToString(sum[:])
}

// ReadRelease reads manifests/ as the release tooling and the CVO would (substituted, filtered, ordered).
func ReadRelease(t testing.TB, opts ReleaseOptions) *Release {
	t.Helper()
	if opts.Profile == "" {
		opts.Profile = "self-managed-high-availability"
	}
	if opts.Version == "" {
		opts.Version = "4.99.0-0.e2e"
	}
	if opts.FeatureSet == "" {
		opts.FeatureSet = "Default"
	}
	if opts.Repo == "" {
		opts.Repo = RepoRoot(t)
	}
	dir := filepath.Join(opts.Repo, "manifests")
	raw, err := os.ReadFile(filepath.Join(dir, "image-references"))
	if err != nil {
		t.Fatal(err)
	}
	refs := &imagev1.ImageStream{}
	if err := yaml.UnmarshalStrict(raw, refs); err != nil {
		t.Fatalf("image-references: %v", err)
	}
	type substitution struct {
		pattern *regexp.Regexp
		with    string
	}
	var subs []substitution
	rel := &Release{Options: opts, Images: map[string]string{}, Dir: t.TempDir()}
	for _, tag := range refs.Spec.Tags {
		if tag.From == nil {
			t.Fatalf("image-references tag %s has no from", tag.Name)
		}
		// The repository, with whatever tag or digest the manifests use.
		repo := tag.From.Name
		if i := strings.LastIndex(repo, "@"); i > 0 {
			repo = repo[:i]
		} else if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
			repo = repo[:i]
		}
		pullSpec := ReleasePullSpec(tag.Name, opts.Version)
		rel.Images[tag.Name] = pullSpec
		subs = append(subs, substitution{regexp.MustCompile(regexp.QuoteMeta(repo) + `(:[A-Za-z0-9_.-]+|@sha256:[0-9a-f]{64})`), pullSpec})
	}

	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		name := filepath.Base(f)
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".json") {
			continue
		}
		m := runLevelPattern.FindStringSubmatch(name)
		if m == nil {
			t.Fatalf("manifests/%s has no run level", name)
		}
		content, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(content)
		for _, s := range subs {
			text = s.pattern.ReplaceAllString(text, s.with)
		}
		text = strings.ReplaceAll(text, VersionPlaceholder, opts.Version)
		tmp := filepath.Join(rel.Dir, name)
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, obj := range ReadManifests(t, tmp) {
			if obj.GetAnnotations()["include.release.openshift.io/"+opts.Profile] != "true" {
				continue
			}
			if !opts.AllFeatureSets && !features.Includes(obj.GetAnnotations(), opts.FeatureSet) {
				continue
			}
			rel.Manifests = append(rel.Manifests, ReleaseManifest{File: name, RunLevel: m[1], Object: obj})
		}
	}
	// Stable: by run level, then file name, then document order.
	sort.SliceStable(rel.Manifests, func(i, j int) bool { return rel.Manifests[i].RunLevel < rel.Manifests[j].RunLevel })
	return rel
}

// Find returns the release's manifest of a kind and name.
func (r *Release) Find(kind, name string) *unstructured.Unstructured {
	for _, m := range r.Manifests {
		if m.Object.GetKind() == kind && m.Object.GetName() == name {
			return m.Object
		}
	}
	return nil
}
