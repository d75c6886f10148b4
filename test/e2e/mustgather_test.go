//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/cluster-node-operator/pkg/criometricscerts"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// inspectNamespaceResources are what `oc adm inspect` collects in a namespace that a
// relatedObject names ("all" is the API's category: pods, services,
// deployments, daemonsets, replicasets, ...).
var inspectNamespaceResources = []string{"all", "configmaps", "events", "endpoints", "endpointslices", "persistentvolumeclaims", "poddisruptionbudgets", "secrets"}

// TestMustGather collects, with kubectl, what `oc adm inspect
// clusteroperator/node` (and so must-gather) collects: the ClusterOperator,
// every object of its relatedObjects, recursively through their own
// relatedObjects, and in every related namespace the resources above. It
// checks that every relatedObject is found, before the operator ever runs and
// once it runs with both stacks enabled, and that what the operator deploys is
// in the collection.
func TestMustGather(t *testing.T) {
	in := newInstallation(t)

	t.Run("BeforeTheOperatorRuns", func(t *testing.T) {
		// The CVO creates the ClusterOperator with the manifest's
		// relatedObjects before it applies anything else; here the operator
		// never starts.
		in.install(installOptions{NoOperator: true})
		g := inspectClusterOperator(t, in)
		g.requireRelatedPresent(t)
		if g.relatedCount() == 0 {
			t.Fatal("the precreated ClusterOperator names nothing to collect")
		}
		for _, want := range []string{"namespaces//" + operatorNamespace, "nodeoperator.openshift.io/nodeoperators//cluster"} {
			if !g.has(want) {
				t.Errorf("must-gather would not collect %s", want)
			}
		}
		t.Logf("collected %d objects before the operator runs", len(g.objects))
	})

	t.Run("WithBothStacks", func(t *testing.T) {
		in.startOperator(framework.Context(t, 2*time.Minute), "", false)
		if err := in.waitHealthy(framework.Context(t, installTimeout), in.expectedClusterOperator(), installTimeout); err != nil {
			t.Fatal(err)
		}
		co, err := in.config.ConfigV1().ClusterOperators().Get(framework.Context(t, time.Minute), nodeClusterOperator, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		in.relatedObjects = co.Status.RelatedObjects
		stacks := in.enabledStacks(t)
		if len(stacks) != 2 {
			t.Fatalf("want both stacks enabled on this cluster (BareMetal), got %v", stacks)
		}

		g := inspectClusterOperator(t, in)
		g.requireRelatedPresent(t)

		// Everything the stacks deployed is collected, directly or through
		// its namespace.
		ctx := framework.Context(t, time.Minute)
		operands := in.liveOperands(ctx)
		for _, name := range []string{criometricscerts.SignerSecretName, criometricscerts.ServingSecretName} {
			s, err := in.kube.CoreV1().Secrets(operatorNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("the CRI-O metrics stack has not created Secret %s: %v", name, err)
			}
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("v1")
			u.SetKind("Secret")
			u.SetNamespace(s.Namespace)
			u.SetName(s.Name)
			operands = append(operands, u)
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
			if !g.has(key) {
				missed = append(missed, key)
			}
		}
		sort.Strings(missed)
		for _, m := range missed {
			t.Errorf("must-gather would miss bindataOperand %s: it is neither a relatedObject nor in a related namespace", m)
		}
		t.Logf("collected %d objects; all %d operands among them", len(g.objects), len(operands))
	})
}

// enabledStacks lists the stacks the NodeOperator reports as enabled.
func (in *installation) enabledStacks(t *testing.T) []string {
	obj, err := in.dyn.Resource(schema.GroupVersionResource{Group: "nodeoperator.openshift.io", Version: "v1alpha1", Resource: "nodeoperators"}).
		Get(framework.Context(t, time.Minute), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stacks, _, _ := unstructured.NestedSlice(obj.Object, "status", "stacks")
	var out []string
	for _, s := range stacks {
		m := s.(map[string]any)
		if m["enabled"] == true {
			out = append(out, fmt.Sprint(m["name"]))
		}
	}
	return out
}

// inspection is what the inspection collected, by group/resource/namespace/name.
type inspection struct {
	in       *installation
	objects  map[string]bool
	related  []configv1.ObjectReference
	failures map[string]string
}

func (g *inspection) has(key string) bool { return g.objects[key] }

func (g *inspection) relatedCount() int { return len(g.related) }

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
		if msg, failed := g.failures[key]; failed {
			t.Errorf("relatedObject %s could not be collected: %s", key, msg)
		} else if !g.has(key) {
			t.Errorf("relatedObject %s was not collected", key)
		}
	}
}

// gather inspects clusteroperator/node with kubectl, as oc adm inspect does.
func inspectClusterOperator(t *testing.T, in *installation) *inspection {
	t.Helper()
	g := &inspection{in: in, objects: map[string]bool{}, failures: map[string]string{}}
	out, err := framework.Kubectl(t, "get", "clusteroperator", nodeClusterOperator, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	co := &unstructured.Unstructured{}
	if err := json.Unmarshal(out, &co.Object); err != nil {
		t.Fatal(err)
	}
	g.related = relatedObjectsOf(t, co)
	g.record(t, co)
	visited := map[string]bool{}
	var follow func(refs []configv1.ObjectReference)
	follow = func(refs []configv1.ObjectReference) {
		for _, ref := range refs {
			key := referenceKey(ref)
			if visited[key] {
				continue
			}
			visited[key] = true
			if ref.Name == "" {
				g.failures[key] = "no name"
				continue
			}
			resource := ref.Resource
			if ref.Group != "" {
				resource += "." + ref.Group
			}
			args := []string{"get", resource, ref.Name, "-o", "json"}
			if ref.Namespace != "" {
				args = append(args, "-n", ref.Namespace)
			}
			out, err := framework.Kubectl(t, args...)
			if err != nil {
				g.failures[key] = err.Error()
				continue
			}
			obj := &unstructured.Unstructured{}
			if err := json.Unmarshal(out, &obj.Object); err != nil {
				t.Fatal(err)
			}
			g.record(t, obj)
			if ref.Group == "" && ref.Resource == "namespaces" {
				g.gatherNamespace(t, ref.Name)
			}
			follow(relatedObjectsOf(t, obj))
		}
	}
	follow(g.related)
	return g
}

// gatherNamespace collects what oc adm inspect collects in a namespace.
func (g *inspection) gatherNamespace(t *testing.T, ns string) {
	out, err := framework.Kubectl(t, "get", strings.Join(inspectNamespaceResources, ","), "-n", ns, "-o", "json")
	if err != nil {
		g.failures["namespaces//"+ns+"/*"] = err.Error()
		return
	}
	list := &unstructured.UnstructuredList{}
	if err := json.Unmarshal(out, &list.Object); err != nil {
		t.Fatal(err)
	}
	items, _, _ := unstructured.NestedSlice(list.Object, "items")
	for _, item := range items {
		g.record(t, &unstructured.Unstructured{Object: item.(map[string]any)})
	}
}

func (g *inspection) record(t *testing.T, obj *unstructured.Unstructured) {
	key, err := g.keyFor(obj)
	if err != nil {
		t.Fatalf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	g.objects[key] = true
}

func relatedObjectsOf(t *testing.T, obj *unstructured.Unstructured) []configv1.ObjectReference {
	raw, found, _ := unstructured.NestedSlice(obj.Object, "status", "relatedObjects")
	if !found {
		return nil
	}
	var out []configv1.ObjectReference
	for _, r := range raw {
		m, _ := r.(map[string]any)
		ref := configv1.ObjectReference{}
		ref.Group, _ = m["group"].(string)
		ref.Resource, _ = m["resource"].(string)
		ref.Namespace, _ = m["namespace"].(string)
		ref.Name, _ = m["name"].(string)
		out = append(out, ref)
	}
	return out
}
