package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	imagev1 "github.com/openshift/api/image/v1"
	securityv1 "github.com/openshift/api/security/v1"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/features"
)

const (
	operatorNamespace = "openshift-cluster-node-operator"
	nmstateNamespace  = "openshift-nmstate"
	operatorName      = "cluster-node-operator"
	// versionPlaceholder is replaced by the release tooling.
	versionPlaceholder = "0.0.1-snapshot"
	profileAnnotation  = "include.release.openshift.io/"
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
	switch k := strings.ToLower(o.GetKind()); {
	case strings.HasSuffix(k, "s"):
		return k
	case strings.HasSuffix(k, "y"):
		return strings.TrimSuffix(k, "y") + "ies"
	default:
		return k + "s"
	}
}

// object is one YAML document of a manifest file (File relative to the
// repository, Doc its index there).
type object struct {
	*unstructured.Unstructured
	File string
	Doc  int
	YAML []byte
}

func (o *object) String() string {
	return fmt.Sprintf("%s %s (%s#%d)", o.GetKind(), strings.TrimPrefix(o.GetNamespace()+"/"+o.GetName(), "/"), o.File, o.Doc)
}

// Profiles lists the release profiles the object is annotated for.
func (o *object) Profiles() map[string]bool {
	out := map[string]bool{}
	for k, v := range o.GetAnnotations() {
		if p, ok := strings.CutPrefix(k, profileAnnotation); ok && v == "true" {
			out[p] = true
		}
	}
	return out
}

// Decode decodes the document strictly into out.
func (o *object) Decode(out any) error { return yaml.UnmarshalStrict(o.YAML, out) }

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

var loaded = sync.OnceValues(readTree)

// load reads the repository once for all tests.
func load(t *testing.T) *tree {
	t.Helper()
	tr, err := loaded()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func readTree() (*tree, error) {
	tr := &tree{root: "../.."}
	for dir, into := range map[string]*[]*object{"manifests": &tr.manifests, "bindata": &tr.operands} {
		err := filepath.WalkDir(filepath.Join(tr.root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if dir == "manifests" {
				tr.manifestFiles = append(tr.manifestFiles, d.Name())
			}
			raw, err := os.ReadFile(path)
			switch {
			case err != nil:
			case d.Name() == "image-references":
				tr.imageReferences = &imagev1.ImageStream{}
				err = yaml.UnmarshalStrict(raw, tr.imageReferences)
			case strings.HasSuffix(path, ".yaml"):
				var objs []*object
				objs, err = readObjects(strings.TrimPrefix(path, tr.root+"/"), raw)
				*into = append(*into, objs...)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// readObjects parses every non-empty YAML document of a file.
func readObjects(rel string, raw []byte) ([]*object, error) {
	var out []*object
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		m := map[string]any{}
		if err == nil {
			err = yaml.Unmarshal(doc, &m)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", rel, i, err)
		}
		if len(m) > 0 {
			out = append(out, &object{Unstructured: &unstructured.Unstructured{Object: runtime.DeepCopyJSON(m)}, File: rel, Doc: i, YAML: doc})
		}
	}
}

// byKind returns the manifests of a kind (kinds are unique across groups here).
func (tr *tree) byKind(kind string) []*object {
	var out []*object
	for _, o := range tr.manifests {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// inProfile returns the manifests applied on clusters of a profile and
// feature set, in order.
func (tr *tree) inProfile(profile string, set features.FeatureSet) []*object {
	var out []*object
	for _, o := range tr.manifests {
		if o.Profiles()[profile] && features.Includes(o.GetAnnotations(), set) {
			out = append(out, o)
		}
	}
	return out
}

// deployments returns the operator's Deployment manifests, decoded.
func (tr *tree) deployments(t *testing.T) map[*object]*appsv1.Deployment {
	t.Helper()
	out := map[*object]*appsv1.Deployment{}
	for _, o := range tr.byKind("Deployment") {
		out[o] = &appsv1.Deployment{}
		if err := o.Decode(out[o]); err != nil {
			t.Fatalf("%s: %v", o, err)
		}
	}
	if len(out) == 0 {
		t.Fatal("manifests/ has no Deployment")
	}
	return out
}

// variablePattern turns a name with ${VARIABLES} into a regular expression.
func variablePattern(name string) *regexp.Regexp {
	parts := regexp.MustCompile(`\$\{[A-Z0-9_]+\}`).Split(name, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, "[a-z0-9.-]+") + "$")
}
