//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// testMustGatherBeforeTheOperatorRuns: the ClusterOperator the CVO creates names what must-gather needs before the operator ever runs.
func (in *installation) testMustGatherBeforeTheOperatorRuns(t *testing.T) {
	g := inspectClusterOperator(t, in)
	g.requireRelatedPresent(t)
	if len(g.related) == 0 {
		t.Fatal("the precreated ClusterOperator names nothing to collect")
	}
	for _, want := range []string{"namespaces//" + operatorNamespace, "namespaces//" + crioMetricsNamespace, "nodeoperator.openshift.io/nodeoperators//cluster"} {
		if !g.objects[want] {
			t.Errorf("must-gather would not collect %s", want)
		}
	}
	t.Logf("collected %d objects before the operator runs", len(g.objects))
}

// testMustGatherWithBothStacks: inspect collects every relatedObject and every operand of both stacks.
func (in *installation) testMustGatherWithBothStacks(t *testing.T) {
	no, err := in.dyn.Resource(nodeOperatorsResource).Get(framework.Context(t, time.Minute), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stacks, _, _ := unstructured.NestedSlice(no.Object, "status", "stacks"); len(stacks) != 2 || slices.ContainsFunc(stacks, func(s any) bool { return s.(map[string]any)["enabled"] != true }) {
		t.Fatalf("want both stacks enabled on this cluster (BareMetal), got %v", stacks)
	}
	g := inspectClusterOperator(t, in)
	g.requireRelatedPresent(t)
	ctx := framework.Context(t, time.Minute)
	operands := in.liveOperands(ctx)
	for _, name := range []string{certrotation.SignerSecretName, certrotation.ServingSecretName} {
		if _, err := in.kube.CoreV1().Secrets(crioMetricsNamespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Fatalf("the CRI-O metrics stack has not created Secret %s: %v", name, err)
		}
		operands = append(operands, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"namespace": crioMetricsNamespace, "name": name}}})
	}
	if len(operands) < 10 {
		t.Fatalf("found only %d operands in the cluster", len(operands))
	}
	var missed []string
	for _, o := range operands {
		key, err := g.keyFor(o)
		if err != nil {
			t.Fatal(err)
		}
		if !g.objects[key] {
			missed = append(missed, key)
		}
	}
	sort.Strings(missed)
	for _, m := range missed {
		t.Errorf("must-gather would miss operand %s: it is neither a relatedObject nor in a related namespace", m)
	}
	t.Logf("collected %d objects; all %d operands among them", len(g.objects), len(operands))
}

// inspection is what the inspection collected, by group/resource/namespace/name.
type inspection struct {
	in      *installation
	objects map[string]bool
	related []configv1.ObjectReference
	// log is oc adm inspect's output, which says why it could not collect something.
	log string
	// unserved are the kinds of inspect's own files (e.g. its copy of discovery), which name no served resource.
	unserved map[schema.GroupVersionKind]bool
}

func referenceKey(ref configv1.ObjectReference) string {
	r := ref.Resource
	if ref.Group != "" {
		r = ref.Group + "/" + ref.Resource
	}
	return r + "/" + ref.Namespace + "/" + ref.Name
}

// keyFor returns an object's key, finding its resource through discovery.
func (g *inspection) keyFor(obj *unstructured.Unstructured) (string, error) {
	gvk := obj.GroupVersionKind()
	mapping, err := g.in.applier.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		g.in.applier.Mapper.Reset()
		if mapping, err = g.in.applier.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return "", err
		}
	}
	return referenceKey(configv1.ObjectReference{Group: gvk.Group, Resource: mapping.Resource.Resource, Namespace: obj.GetNamespace(), Name: obj.GetName()}), nil
}

// requireRelatedPresent: every relatedObject of the ClusterOperator was found.
func (g *inspection) requireRelatedPresent(t *testing.T) {
	t.Helper()
	for _, ref := range g.related {
		key := referenceKey(ref)
		if !g.objects[key] {
			t.Errorf("relatedObject %s is not in oc adm inspect's output (its log: %s)", key, g.log)
		}
	}
}

// inspectClusterOperator runs `oc adm inspect clusteroperator/node` and reads every object in its output directory.
func inspectClusterOperator(t *testing.T, in *installation) *inspection {
	t.Helper()
	bin := framework.EnsureRealTool(t, "oc-inspect")
	dest := filepath.Join(t.TempDir(), "inspect")
	start := time.Now()
	cmd := exec.Command(bin, "clusteroperator/"+nodeClusterOperator, "--dest-dir="+dest,
		"--kubeconfig="+framework.KubeconfigPath(t),
		// A discovery cache of its own: the tests add and remove CRDs.
		"--cache-dir="+filepath.Join(t.TempDir(), "discovery"))
	out, err := cmd.CombinedOutput()
	logPath := filepath.Join(framework.RepoRoot(t), "_output", "e2e-logs", strings.ReplaceAll(t.Name(), "/", "_")+fmt.Sprintf("-oc-inspect-%d.log", time.Now().UnixNano()))
	_ = os.WriteFile(logPath, out, 0o644)
	if err != nil {
		// inspect goes on past what it cannot gather, and says so at the
		// end. The simulated nodes' kwok serves no container logs: those
		// errors are expected here, any other is not.
		if !strings.Contains(string(out), "Wrote inspect data to") {
			t.Fatalf("oc adm inspect clusteroperator/%s: %v; output in %s", nodeClusterOperator, err, logPath)
		}
		logErrors := 0
		for _, skipped := range strings.Split(string(out), "skipping gathering ")[1:] {
			what, why, _ := strings.Cut(skipped, " due to error: ")
			why, _, _ = strings.Cut(why, "\n")
			why, _, _ = strings.Cut(why, "]")
			why = strings.TrimSuffix(why, ", ")
			if strings.HasPrefix(why, "one or more errors occurred while gathering pod-specific data") {
				logErrors++
				continue
			}
			t.Errorf("oc adm inspect could not gather %s: %s (output in %s)", what, why, logPath)
		}
		t.Logf("oc adm inspect exited with %v; %d namespaces without container logs, which kwok's simulated nodes do not serve", err, logErrors)
	}
	g := &inspection{in: in, objects: map[string]bool{}, log: logPath, unserved: map[schema.GroupVersionKind]bool{}}
	files := 0
	err = filepath.WalkDir(dest, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		files++
		for _, obj := range framework.ReadManifests(t, path) {
			g.recordAll(t, obj)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	coFile := filepath.Join(dest, "cluster-scoped-resources", "config.openshift.io", "clusteroperators", nodeClusterOperator+".yaml")
	cos := framework.ReadManifests(t, coFile)
	if len(cos) != 1 {
		t.Fatalf("oc adm inspect wrote no %s", coFile)
	}
	co := &configv1.ClusterOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cos[0].Object, co); err != nil {
		t.Fatal(err)
	}
	g.related = co.Status.RelatedObjects
	t.Logf("oc adm inspect took %s: %d objects in %d files under %s (its output: %s)", time.Since(start).Round(100*time.Millisecond), len(g.objects), files, dest, logPath)
	return g
}

// recordAll records an object, or each item of a list; what is no served resource (inspect's own files, such as its copy of discovery) is skipped.
func (g *inspection) recordAll(t *testing.T, obj *unstructured.Unstructured) {
	if obj.IsList() {
		list, err := obj.ToList()
		if err != nil {
			t.Fatalf("%s: %v", obj.GetKind(), err)
		}
		for i := range list.Items {
			g.recordAll(t, &list.Items[i])
		}
		return
	}
	if obj.GetName() == "" || obj.GetKind() == "" {
		return
	}
	if g.unserved[obj.GroupVersionKind()] {
		return
	}
	if key, err := g.keyFor(obj); err == nil {
		g.objects[key] = true
	} else {
		g.unserved[obj.GroupVersionKind()] = true
	}
}
