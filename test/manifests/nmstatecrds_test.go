package manifests

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/openshift/cluster-node-operator/test/fixtures/nmstateoperand"
)

// TestNodeNetworkCRDsAreTheOperands: docs/test-behaviours.md. The operand
// force-applies its CRDs and the CVO reverts any difference in ours, so any
// field that differs would be written by both on every reconcile.
func TestNodeNetworkCRDsAreTheOperands(t *testing.T) {
	phases := nmstatePhases(t)
	ours := map[string]*object{}
	for _, o := range load(t).byKind("CustomResourceDefinition") {
		if o.crdGroup() == nmstateGroup {
			ours[o.GetName()] = o
		}
	}
	theirs := phases[0].Objects
	if phases[0].Name != "crds" || len(theirs) != 3 || len(ours) != len(theirs) {
		t.Fatalf("payload CRDs %d, operand's %d (%s), want the same 3", len(ours), len(theirs), phases[0].Name)
	}
	for _, want := range theirs {
		got := ours[want.GetName()]
		if got == nil {
			t.Errorf("the payload lacks %s", want.GetName())
			continue
		}
		var g, w apiextensionsv1.CustomResourceDefinition
		if err := got.Decode(&g); err != nil || (&object{Unstructured: want}).Decode(&w) != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if !equality.Semantic.DeepEqual(g.Spec, w.Spec) {
			t.Errorf("%s: spec differs from the operand's at %s", got, nmstateoperand.Commit)
		}
		for k, v := range want.GetAnnotations() {
			if got.GetAnnotations()[k] != v {
				t.Errorf("%s: annotation %s=%q, the operand's %q", got, k, got.GetAnnotations()[k], v)
			}
		}
		if len(got.GetLabels()) != len(want.GetLabels()) || len(got.Object) != len(want.Object) {
			t.Errorf("%s: labels or top-level fields differ from the operand's", got)
		}
	}
}
