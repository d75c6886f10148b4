package manifests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/cluster-node-operator/pkg/features"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// manifestName is 0000_<run level>_<component>_<NN>_<what>.yaml; a CRD has
// one file per feature set, <what>-<FeatureSet>.crd.yaml, as openshift/api
// names them.
var manifestName = regexp.MustCompile(`^0000_(\d\d)_` + operatorName + `_(\d\d)_([a-z0-9][a-z0-9.-]*?(-[A-Z][A-Za-z]*\.crd)?)\.yaml$`)

// notHosted are namespaces of components that hosted clusters do not run.
var notHosted = map[string]bool{"openshift-machine-config-operator": true}

// nmstateGroup is the NMState API: its node CRDs are in the payload of
// self-managed clusters only, as hosted ones never run NMState.
const nmstateGroup = "nmstate.io"

// manifestChecks are what every manifest must be; each returns what is wrong.
var manifestChecks = []struct {
	name  string
	check func(o *object) string
}{
	// One run level (50), but 90 for the monitoring.coreos.com API, whose
	// CRDs the cluster monitoring operator installs at 50 alongside us.
	{"named 0000_<run level>_cluster-node-operator_<NN>_<what>.yaml", func(o *object) string {
		m, want := manifestName.FindStringSubmatch(strings.TrimPrefix(o.File, "manifests/")), "50"
		if o.GroupVersionKind().Group == "monitoring.coreos.com" {
			want = "90"
		}
		if m == nil || m[1] != want {
			return "the CVO would apply it out of order, or not at all; run level " + want
		}
		return ""
	}},
	// A misspelt field is an error here, not a silently ignored field.
	{"a complete object of a known kind, decoded strictly, namespaced as its kind", func(o *object) string {
		if o.GetAPIVersion() == "" || o.GetKind() == "" || o.GetName() == "" || !o.known() {
			return "no apiVersion, kind or name, or a kind this lint does not know (add it to scheme or untyped)"
		}
		if o.namespaced() != (o.GetNamespace() != "") {
			return fmt.Sprintf("metadata.namespace %q", o.GetNamespace())
		}
		if typed, err := scheme.New(o.GroupVersionKind()); err == nil {
			if err := o.Decode(typed); err != nil {
				return err.Error()
			}
		}
		return ""
	}},
	// Only the operator's placement, roles in namespaces of components
	// hosted clusters do not run, and NetworkPolicies (self-managed only,
	// 09_networkpolicies.yaml) differ between profiles.
	{`annotated include.release.openshift.io/<known profile>: "true" for every profile, and for nothing else`, func(o *object) string {
		var in []string
		for k, v := range o.GetAnnotations() {
			if p, ok := strings.CutPrefix(k, profileAnnotation); ok {
				if !slices.Contains(profiles, p) || v != "true" {
					return k + ": " + v
				}
				in = append(in, p)
			}
		}
		selfManaged := o.GetKind() == "NetworkPolicy" && slices.Equal(slices.Sorted(slices.Values(in)), []string{"self-managed-high-availability", "single-node-developer"})
		if len(in) == 0 || (len(in) != len(profiles) && o.GetKind() != "Deployment" && !notHosted[o.GetNamespace()] && !selfManaged && o.crdGroup() != nmstateGroup) {
			return fmt.Sprintf("only in %v", in)
		}
		return ""
	}},
}

// TestManifests: docs/test-behaviours.md.
func TestManifests(t *testing.T) {
	tr := load(t)
	for _, name := range tr.manifestFiles {
		if name != "image-references" && !slices.ContainsFunc(tr.manifests, func(o *object) bool { return o.File == "manifests/"+name }) {
			t.Errorf("manifests/%s holds no object", name)
		}
	}
	for _, o := range tr.manifests {
		for _, c := range manifestChecks {
			if why := c.check(o); why != "" {
				t.Errorf("%s: not %s: %s", o, c.name, why)
			}
		}
	}
	for _, profile := range profiles {
		for _, set := range features.FeatureSets {
			t.Run(profile+"/"+string(set), func(t *testing.T) { checkInstall(t, profile, set) })
		}
	}
}

// checkInstall: docs/test-behaviours.md (TestReleaseProfiles), on the
// release as the e2e tests' CVO gets it (framework.ReadRelease).
func checkInstall(t *testing.T, profile string, set features.FeatureSet) {
	objs := framework.ReadRelease(t, framework.ReleaseOptions{Profile: profile, FeatureSet: set}).Manifests
	index := map[string][]int{}
	seen := map[string]framework.ReleaseManifest{}
	for i, m := range objs {
		o := m.Object
		index[o.GetKind()] = append(index[o.GetKind()], i)
		id := fmt.Sprintf("%s/%s/%s", o.GroupVersionKind().GroupKind(), o.GetNamespace(), o.GetName())
		if prev, ok := seen[id]; ok {
			t.Errorf("%s and %s are the same object in this profile", prev, m)
		}
		seen[id] = m
	}
	one := func(kind string) int {
		if n := len(index[kind]); n != 1 {
			t.Fatalf("%d manifests of kind %s in this profile, want 1", n, kind)
		}
		return index[kind][0]
	}
	deployment, co := one("Deployment"), one("ClusterOperator")
	crd := slices.IndexFunc(objs, func(m framework.ReleaseManifest) bool {
		return m.Object.GetName() == "nodeoperators.nodeoperator.openshift.io"
	})
	if co < deployment {
		t.Errorf("%s sorts before %s: the CVO would wait for the ClusterOperator forever", objs[co], objs[deployment])
	}
	if o := objs[0].Object; o.GetKind() != "Namespace" || o.GetName() != operatorNamespace {
		t.Errorf("the first manifest is %s, want the operator's namespace", objs[0])
	}
	for _, kind := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service", "CustomResourceDefinition"} {
		for _, i := range index[kind] {
			if i > deployment {
				t.Errorf("%s sorts after the Deployment; the operator would start without it", objs[i])
			}
		}
	}
	for _, i := range index["NodeOperator"] {
		if i < crd {
			t.Errorf("%s sorts before its CRD", objs[i])
		}
	}
	sel, _, _ := unstructured.NestedMap(objs[deployment].Object.Object, "spec", "template", "spec", "nodeSelector")
	if _, onMasters := sel["node-role.kubernetes.io/master"]; onMasters == hostedProfiles[profile] {
		t.Errorf("%s: selects control-plane nodes: %v; %s clusters have them: %v", objs[deployment], onMasters, profile, !hostedProfiles[profile])
	}
}

// TestCRDAndCR: docs/test-behaviours.md.
func TestCRDAndCR(t *testing.T) {
	tr := load(t)
	var sets []features.FeatureSet
	for _, o := range tr.byKind("CustomResourceDefinition") {
		if o.crdGroup() == nmstateGroup {
			continue
		}
		set := features.FeatureSet(o.GetAnnotations()[features.FeatureSetAnnotation])
		sets = append(sets, set)
		if !strings.HasSuffix(o.File, "-"+string(set)+".crd.yaml") {
			t.Errorf("%s: annotated for feature set %q, which its file name does not name", o, set)
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
	if slices.Sort(sets); !slices.Equal(sets, slices.Sorted(slices.Values(features.FeatureSets))) {
		t.Errorf("the CRD manifests are for feature sets %v, want one per feature set %v", sets, features.FeatureSets)
	}
	crs := tr.byKind("NodeOperator")
	if len(crs) != 1 || crs[0].GetName() != "cluster" || crs[0].GetAnnotations()["release.openshift.io/create-only"] != "true" {
		t.Errorf("want exactly one NodeOperator cluster, release.openshift.io/create-only (or the CVO would revert the administrator's configuration), got %v", crs)
	}
}
