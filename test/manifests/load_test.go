package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	imagev1 "github.com/openshift/api/image/v1"
	securityv1 "github.com/openshift/api/security/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	operatorNamespace = "openshift-cluster-node-operator"
	crioNamespace     = "openshift-crio-metrics"
	nmstateNamespace  = "openshift-nmstate"
	operatorName      = "cluster-node-operator"
	profileAnnotation = "include.release.openshift.io/"
)

// profiles are the CVO's release profiles; hostedProfiles have no
// control-plane nodes.
var (
	profiles       = []string{"self-managed-high-availability", "single-node-developer", "hypershift", "ibm-cloud-managed"}
	hostedProfiles = map[string]bool{"hypershift": true, "ibm-cloud-managed": true}
)

// scheme decodes manifests strictly into their Go types; untyped kinds (no
// Go types vendored) are checked as unstructured objects.
var (
	scheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, configv1.Install, securityv1.Install, nodev1alpha1.AddToScheme} {
			if err := add(s); err != nil {
				panic(err)
			}
		}
		return s
	}()
	untyped       = sets.New("ServiceMonitor", "PrometheusRule", "MachineConfig", "NMState")
	clusterScoped = sets.New("Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "ClusterOperator",
		"SecurityContextConstraints", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "NodeOperator", "MachineConfig", "NMState")
)

// known: the lint knows how the API serves the object's kind.
func (o *object) known() bool {
	return scheme.Recognizes(o.GroupVersionKind()) || untyped.Has(o.GetKind())
}

// namespaced and resource say how the API serves the object's kind.
func (o *object) namespaced() bool { return !clusterScoped.Has(o.GetKind()) }
func (o *object) resource() string {
	if k := strings.ToLower(o.GetKind()); strings.HasSuffix(k, "s") {
		return k // SecurityContextConstraints
	}
	plural, _ := meta.UnsafeGuessKindToResource(o.GroupVersionKind())
	return plural.Resource
}

// crdGroup is the API group a CRD defines; "" for other kinds.
func (o *object) crdGroup() string {
	g, _, _ := unstructured.NestedString(o.Object, "spec", "group")
	return map[bool]string{true: g}[o.GetKind() == "CustomResourceDefinition"]
}

// object is one YAML document of a manifest file (File relative to the
// repository).
type object struct {
	*unstructured.Unstructured
	File string
}

func (o *object) String() string {
	return fmt.Sprintf("%s %s (%s)", o.GetKind(), strings.TrimPrefix(o.GetNamespace()+"/"+o.GetName(), "/"), o.File)
}

// Decode decodes the object strictly (an unknown field is an error) into out.
func (o *object) Decode(out any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, out, true)
}

// tree is what the lint reads: manifests/ in the CVO's order (its file
// names, its objects, image-references) and the operands in bindata/, whose
// names may hold ${VARIABLES}.
type tree struct {
	root            string
	manifestFiles   []string
	manifests       []*object
	imageReferences *imagev1.ImageStream
	operands        []*object
}

// load reads the repository.
func load(t *testing.T) *tree {
	t.Helper()
	tr := &tree{root: "../.."}
	for dir, into := range map[string]*[]*object{"manifests": &tr.manifests, "bindata": &tr.operands} {
		err := filepath.WalkDir(filepath.Join(tr.root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if dir == "manifests" {
				tr.manifestFiles = append(tr.manifestFiles, d.Name())
			}
			switch {
			case d.Name() == "image-references":
				raw, err := os.ReadFile(path)
				tr.imageReferences = &imagev1.ImageStream{}
				return errors.Join(err, yaml.UnmarshalStrict(raw, tr.imageReferences))
			case strings.HasSuffix(path, ".yaml"):
				for _, u := range framework.ReadManifests(t, path) {
					*into = append(*into, &object{u, strings.TrimPrefix(path, tr.root+"/")})
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// byKind returns the manifests of a kind (kinds are unique across groups here).
func (tr *tree) byKind(kind string) []*object {
	return slices.DeleteFunc(slices.Clone(tr.manifests), func(o *object) bool { return o.GetKind() != kind })
}

// variablePattern turns a name with ${VARIABLES} into a regular expression.
func variablePattern(name string) *regexp.Regexp {
	parts := regexp.MustCompile(`\$\{[A-Z0-9_]+\}`).Split(name, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, "[a-z0-9.-]+") + "$")
}
