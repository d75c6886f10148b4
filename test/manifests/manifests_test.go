package manifests

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// TestFileNames: every file in manifests/ is a manifest the CVO applies, named
// 0000_<run level>_cluster-node-operator_<NN>_<what>.yaml, or image-references.
// One run level (50) for everything, except manifests of the
// monitoring.coreos.com API at 90: that API is installed by the cluster
// monitoring operator in the same run level as ours, so applying them at 50
// could race its CRDs.
func TestFileNames(t *testing.T) {
	tr := load(t)
	if tr.imageReferences == nil {
		t.Error("manifests/image-references is missing")
	}
	for _, name := range tr.manifestFiles {
		if name == "image-references" {
			continue
		}
		m := manifestName.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("manifests/%s: not named 0000_<run level>_%s_<NN>_<what>.yaml; the CVO would apply it out of order, or not at all", name, operatorName)
			continue
		}
		for _, o := range objectsOf(tr, name) {
			want := runLevel
			if o.GroupKind().Group == "monitoring.coreos.com" {
				want = monitoringRunLevel
			}
			if m[1] != want {
				t.Errorf("%s: run level %s, want %s", o, m[1], want)
			}
		}
		if len(objectsOf(tr, name)) == 0 {
			t.Errorf("manifests/%s holds no object", name)
		}
	}
}

func objectsOf(tr *tree, file string) []*object {
	var out []*object
	for _, o := range tr.manifests {
		if filepath.Base(o.File) == file {
			out = append(out, o)
		}
	}
	return out
}

// TestManifestsParse: every document is a complete object of a known kind that
// decodes strictly (a misspelt field is an error here, not a silently ignored
// field in the cluster), with a namespace exactly when its kind is namespaced.
func TestManifestsParse(t *testing.T) {
	tr := load(t)
	if len(tr.manifests) == 0 {
		t.Fatal("no manifests")
	}
	for _, o := range tr.manifests {
		if o.GetAPIVersion() == "" || o.GetKind() == "" || o.GetName() == "" {
			t.Errorf("%s: apiVersion, kind and metadata.name are required", o)
			continue
		}
		info, ok := kinds[o.GroupKind()]
		if !ok {
			t.Errorf("%s: kind %s is not known to this lint; add it to kinds", o, o.GroupKind())
			continue
		}
		if info.namespaced != (o.GetNamespace() != "") {
			t.Errorf("%s: namespaced=%v but metadata.namespace=%q", o, info.namespaced, o.GetNamespace())
		}
		if info.typed != nil {
			if err := o.Decode(info.typed()); err != nil {
				t.Errorf("%s: %v", o, err)
			}
		}
	}
}

// TestReleaseProfiles: every manifest is annotated for the release profiles
// it belongs to (the CVO applies nothing else), and each profile gets a
// complete, correctly ordered install: namespace first, the CRD before its
// CR, the ServiceAccount and RBAC before the Deployment, exactly one
// Deployment and one ClusterOperator, and the ClusterOperator after the
// Deployment (the CVO blocks on the ClusterOperator until the operator reports
// its version, so a Deployment sorted after it would never be applied).
// notHosted are namespaces of components that hosted clusters do not run
// (the machine-config operator's).
var notHosted = map[string]bool{"openshift-machine-config-operator": true}

func TestReleaseProfiles(t *testing.T) {
	tr := load(t)
	known := map[string]bool{}
	for _, p := range profiles {
		known[p] = true
	}
	for _, o := range tr.manifests {
		ps := o.Profiles()
		if len(ps) == 0 {
			t.Errorf("%s: no include.release.openshift.io/<profile>: \"true\" annotation; the CVO would never apply it", o)
		}
		for k, v := range o.GetAnnotations() {
			p, ok := strings.CutPrefix(k, profileAnnotation)
			if !ok {
				continue
			}
			if !known[p] {
				t.Errorf("%s: unknown release profile %q", o, p)
			}
			if v != "true" {
				t.Errorf("%s: %s is %q; only \"true\" includes a manifest", o, k, v)
			}
		}
		// Only the operator's placement, and its roles in namespaces of
		// components that hosted clusters do not run, differ between profiles.
		if o.GroupKind() != deploymentKind && !notHosted[o.GetNamespace()] && len(ps) != len(profiles) {
			t.Errorf("%s: in profiles %v, want all of %v", o, slices.Sorted(maps.Keys(ps)), profiles)
		}
	}

	for _, profile := range profiles {
		for _, set := range features.FeatureSets {
			t.Run(profile+"/"+string(set), func(t *testing.T) { checkInstall(t, tr, profile, set) })
		}
	}
}

// checkInstall checks the install of one profile and feature set.
func checkInstall(t *testing.T, tr *tree, profile string, set features.FeatureSet) {
	objs := tr.inProfile(profile, set)
	index := map[schema.GroupKind][]int{}
	seen := map[string]*object{}
	for i, o := range objs {
		index[o.GroupKind()] = append(index[o.GroupKind()], i)
		id := fmt.Sprintf("%s/%s/%s", o.GroupKind(), o.GetNamespace(), o.GetName())
		if prev := seen[id]; prev != nil {
			t.Errorf("%s and %s are the same object in this profile", prev, o)
		}
		seen[id] = o
	}
	one := func(gk schema.GroupKind) int {
		if n := len(index[gk]); n != 1 {
			t.Fatalf("%d manifests of kind %s in this profile, want 1", n, gk)
		}
		return index[gk][0]
	}
	deployment, co := one(deploymentKind), one(clusterOperatorKind)
	if co < deployment {
		t.Errorf("%s sorts before %s: the CVO would wait for the ClusterOperator forever", objs[co], objs[deployment])
	}
	ns := -1
	for i, o := range objs {
		if o.GroupKind() == namespaceKind && o.GetName() == operatorNamespace {
			ns = i
		}
	}
	if ns != 0 {
		t.Errorf("the operator's namespace must be the first manifest, found at %d", ns)
	}
	for _, gk := range []schema.GroupKind{serviceAccountKind, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
		{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}, {Group: "rbac.authorization.k8s.io", Kind: "Role"},
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}, serviceKind, crdKind} {
		for _, i := range index[gk] {
			if i > deployment {
				t.Errorf("%s sorts after the Deployment; the operator would start without it", objs[i])
			}
		}
	}
	crd := one(crdKind)
	for _, i := range index[schema.GroupKind{Group: "nodeoperator.openshift.io", Kind: "NodeOperator"}] {
		if i < crd {
			t.Errorf("%s sorts before its CRD", objs[i])
		}
	}
	// Placement: control-plane nodes where the cluster has them.
	d := objs[deployment]
	sel, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec", "nodeSelector")
	_, onMasters := sel["node-role.kubernetes.io/master"]
	if hostedProfiles[profile] && onMasters {
		t.Errorf("%s: %s clusters have no control-plane nodes, but the Deployment selects them", d, profile)
	}
	if !hostedProfiles[profile] && !onMasters {
		t.Errorf("%s: the Deployment must run on control-plane nodes", d)
	}
}

// TestCRDAndCR: the NodeOperator CRD is the generated file, and the CR is
// created once and then left to the administrator.
func TestCRDAndCR(t *testing.T) {
	tr := load(t)
	script, err := os.ReadFile(filepath.Join(tr.root, "hack", "update-codegen.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-out (manifests/\S+)`).FindSubmatch(script)
	if m == nil {
		t.Fatal("hack/update-codegen.sh does not name the CRD manifests it writes (-out manifests/...)")
	}
	// One generated file per feature set, annotated for it, serving a
	// gated field exactly where the feature set serves its gate.
	crds := tr.byKind(crdKind)
	if len(crds) != len(features.FeatureSets) {
		t.Errorf("the CRD manifests are %v, want one per feature set %v", crds, features.FeatureSets)
	}
	byFile := map[string]*object{}
	for _, o := range crds {
		byFile[o.File] = o
	}
	for _, set := range features.FeatureSets {
		file := fmt.Sprintf("%s-%s.crd.yaml", m[1], set)
		o := byFile[file]
		if o == nil {
			t.Errorf("no CRD manifest %s", file)
			continue
		}
		if got := o.GetAnnotations()[features.FeatureSetAnnotation]; got != string(set) {
			t.Errorf("%s: annotated for feature sets %q, want %s", o, got, set)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := o.Decode(crd); err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			for _, part := range []string{"spec", "status"} {
				_, served := v.Schema.OpenAPIV3Schema.Properties[part].Properties["nodeSettings"]
				if want := features.Served(features.NodeOperatorNodeSettings, set); served != want {
					t.Errorf("%s: %s.nodeSettings served %v, want %v (gate %s)", o, part, served, want, features.NodeOperatorNodeSettings)
				}
			}
		}
	}
	crs := tr.byKind(schema.GroupKind{Group: "nodeoperator.openshift.io", Kind: "NodeOperator"})
	if len(crs) != 1 || crs[0].GetName() != "cluster" {
		t.Fatalf("want exactly one NodeOperator named cluster, got %v", crs)
	}
	if crs[0].GetAnnotations()["release.openshift.io/create-only"] != "true" {
		t.Errorf("%s: must be release.openshift.io/create-only, or the CVO would revert the administrator's configuration", crs[0])
	}
}

// TestClusterOperator: the ClusterOperator the CVO waits for reports the
// operator's version (a placeholder the release tooling replaces) and names,
// before the operator ever runs, what must-gather needs. That each
// relatedObject resolves, by the resource name `oc adm inspect` looks it up
// by, is proven on a live cluster: TestInstallAsCVO's RelatedObjectsResolve
// (the manifest's list is kept and every entry is read back) and
// MustGatherBeforeTheOperatorRuns.
func TestClusterOperator(t *testing.T) {
	tr := load(t)
	cos := tr.byKind(clusterOperatorKind)
	if len(cos) != 1 {
		t.Fatalf("want one ClusterOperator manifest, got %v", cos)
	}
	co := &configv1.ClusterOperator{}
	if err := cos[0].Decode(co); err != nil {
		t.Fatal(err)
	}
	if co.Name != clusterOperator {
		t.Errorf("ClusterOperator is %q, want %q", co.Name, clusterOperator)
	}
	if len(co.Status.Versions) != 1 || co.Status.Versions[0].Name != "operator" || co.Status.Versions[0].Version != versionPlaceholder {
		t.Errorf("status.versions is %+v, want exactly operator=%s (the CVO fails a ClusterOperator without versions)", co.Status.Versions, versionPlaceholder)
	}
	if len(co.Status.RelatedObjects) == 0 {
		t.Fatal("status.relatedObjects is empty: must-gather would collect nothing before the operator runs")
	}
	var names []string
	for _, ref := range co.Status.RelatedObjects {
		names = append(names, ref.Resource+"/"+ref.Name)
	}
	for _, want := range []string{"namespaces/" + operatorNamespace, "nodeoperators/cluster"} {
		if !slices.Contains(names, want) {
			t.Errorf("relatedObjects %v lack %s", names, want)
		}
	}
}
