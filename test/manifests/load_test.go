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
	"sort"
	"strings"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	imagev1 "github.com/openshift/api/image/v1"
	securityv1 "github.com/openshift/api/security/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/features"
)

const (
	operatorNamespace = "openshift-cluster-node-operator"
	nmstateNamespace  = "openshift-nmstate"
	operatorName      = "cluster-node-operator"
	clusterOperator   = "node"
	// versionPlaceholder is replaced by the release tooling with the
	// release's version.
	versionPlaceholder = "0.0.1-snapshot"
	// runLevel is the CVO run level of the component; monitoringRunLevel is
	// the one for manifests of the monitoring.coreos.com API, which the
	// cluster monitoring operator installs at run level 50 alongside us.
	runLevel           = "50"
	monitoringRunLevel = "90"
	profileAnnotation  = "include.release.openshift.io/"
)

// profiles are the release profiles of the CVO; a manifest is applied on a
// cluster only when annotated include.release.openshift.io/<profile>: "true".
var profiles = []string{"self-managed-high-availability", "single-node-developer", "hypershift", "ibm-cloud-managed"}

// hostedProfiles have no control-plane nodes in the cluster.
var hostedProfiles = map[string]bool{"hypershift": true, "ibm-cloud-managed": true}

// manifestName is 0000_<run level>_<component>_<NN>_<what>.yaml.
// A CRD has one file per feature set, <what>-<FeatureSet>.crd.yaml, as
// openshift/api names them.
var manifestName = regexp.MustCompile(`^0000_(\d\d)_` + operatorName + `_(\d\d)_([a-z0-9][a-z0-9.-]*?(-[A-Z][A-Za-z]*\.crd)?)\.yaml$`)

// kindInfo says how the API serves a kind, and which Go type to decode a
// manifest of that kind into, strictly (unknown fields are errors).
type kindInfo struct {
	resource   string
	namespaced bool
	typed      func() any
}

var kinds = map[schema.GroupKind]kindInfo{
	{Kind: "Namespace"}:                                                  {"namespaces", false, func() any { return &corev1.Namespace{} }},
	{Kind: "ServiceAccount"}:                                             {"serviceaccounts", true, func() any { return &corev1.ServiceAccount{} }},
	{Kind: "Service"}:                                                    {"services", true, func() any { return &corev1.Service{} }},
	{Kind: "ConfigMap"}:                                                  {"configmaps", true, func() any { return &corev1.ConfigMap{} }},
	{Kind: "Secret"}:                                                     {"secrets", true, func() any { return &corev1.Secret{} }},
	{Group: "apps", Kind: "Deployment"}:                                  {"deployments", true, func() any { return &appsv1.Deployment{} }},
	{Group: "apps", Kind: "DaemonSet"}:                                   {"daemonsets", true, func() any { return &appsv1.DaemonSet{} }},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                       {"poddisruptionbudgets", true, func() any { return &policyv1.PodDisruptionBudget{} }},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:            {"clusterroles", false, func() any { return &rbacv1.ClusterRole{} }},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:     {"clusterrolebindings", false, func() any { return &rbacv1.ClusterRoleBinding{} }},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                   {"roles", true, func() any { return &rbacv1.Role{} }},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:            {"rolebindings", true, func() any { return &rbacv1.RoleBinding{} }},
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:    {"customresourcedefinitions", false, func() any { return &apiextensionsv1.CustomResourceDefinition{} }},
	{Group: "config.openshift.io", Kind: "ClusterOperator"}:              {"clusteroperators", false, func() any { return &configv1.ClusterOperator{} }},
	{Group: "security.openshift.io", Kind: "SecurityContextConstraints"}: {"securitycontextconstraints", false, func() any { return &securityv1.SecurityContextConstraints{} }},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}: {"validatingadmissionpolicies", false, func() any {
		return &admissionregistrationv1.ValidatingAdmissionPolicy{}
	}},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: {"validatingadmissionpolicybindings", false, func() any {
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	}},
	{Group: nodev1alpha1.GroupName, Kind: "NodeOperator"}: {"nodeoperators", false, func() any { return &nodev1alpha1.NodeOperator{} }},
	// No Go types are vendored for these; they are checked as unstructured
	// objects (and by the API server in the e2e tests).
	{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}:            {"servicemonitors", true, nil},
	{Group: "monitoring.coreos.com", Kind: "PrometheusRule"}:            {"prometheusrules", true, nil},
	{Group: "machineconfiguration.openshift.io", Kind: "MachineConfig"}: {"machineconfigs", false, nil},
	{Group: "nmstate.io", Kind: "NMState"}:                              {"nmstates", false, nil},
	{Group: "coordination.k8s.io", Kind: "Lease"}:                       {"leases", true, nil},
}

// object is one YAML document of a manifest file.
type object struct {
	*unstructured.Unstructured
	// File is the file's path relative to the repository root; Doc is the
	// document's index in it.
	File string
	Doc  int
	// YAML is the document's text.
	YAML []byte
}

func (o *object) String() string {
	ns := o.GetNamespace()
	if ns != "" {
		ns += "/"
	}
	return fmt.Sprintf("%s %s%s (%s#%d)", o.GetKind(), ns, o.GetName(), o.File, o.Doc)
}

// GroupKind is the object's API group and kind.
func (o *object) GroupKind() schema.GroupKind { return o.GroupVersionKind().GroupKind() }

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
func (o *object) Decode(out any) error {
	return yaml.UnmarshalStrict(o.YAML, out)
}

// tree is what the lint reads.
type tree struct {
	root string
	// manifestFiles are the file names in manifests/, sorted as the CVO
	// applies them.
	manifestFiles []string
	// manifests are the objects of manifests/*.yaml in the CVO's order.
	manifests []*object
	// imageReferences is manifests/image-references.
	imageReferences *imagev1.ImageStream
	// operands are the objects the operator applies, from bindata/. Their
	// names may hold ${VARIABLES} the operator fills in.
	operands []*object
}

var (
	loadOnce   sync.Once
	loadedTree *tree
	loadErr    error
)

// load reads the repository once for all tests.
func load(t *testing.T) *tree {
	t.Helper()
	loadOnce.Do(func() { loadedTree, loadErr = readTree() })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loadedTree
}

func readTree() (*tree, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	tr := &tree{root: root}

	entries, err := os.ReadDir(filepath.Join(root, "manifests"))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			tr.manifestFiles = append(tr.manifestFiles, e.Name())
		}
	}
	sort.Strings(tr.manifestFiles)
	for _, name := range tr.manifestFiles {
		rel := filepath.Join("manifests", name)
		switch {
		case name == "image-references":
			raw, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				return nil, err
			}
			is := &imagev1.ImageStream{}
			if err := yaml.UnmarshalStrict(raw, is); err != nil {
				return nil, fmt.Errorf("%s: %w", rel, err)
			}
			tr.imageReferences = is
		case strings.HasSuffix(name, ".yaml"), strings.HasSuffix(name, ".yml"), strings.HasSuffix(name, ".json"):
			objs, err := readObjects(root, rel)
			if err != nil {
				return nil, err
			}
			tr.manifests = append(tr.manifests, objs...)
		}
	}

	err = filepath.WalkDir(filepath.Join(root, "bindata"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		objs, err := readObjects(root, rel)
		if err != nil {
			return err
		}
		tr.operands = append(tr.operands, objs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// readObjects parses every non-empty YAML document of a file.
func readObjects(root, rel string) ([]*object, error) {
	raw, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	var out []*object
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", rel, i, err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", rel, i, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(m)}
		out = append(out, &object{Unstructured: u, File: rel, Doc: i, YAML: doc})
	}
	return out, nil
}

// repoRoot is the repository: go test runs in the package's directory.
func repoRoot() (string, error) { return filepath.Abs("../..") }

// byKind returns the manifests of a kind.
func (tr *tree) byKind(gk schema.GroupKind) []*object {
	var out []*object
	for _, o := range tr.manifests {
		if o.GroupKind() == gk {
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

var (
	deploymentKind      = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	clusterOperatorKind = schema.GroupKind{Group: "config.openshift.io", Kind: "ClusterOperator"}
	serviceKind         = schema.GroupKind{Kind: "Service"}
	serviceAccountKind  = schema.GroupKind{Kind: "ServiceAccount"}
	namespaceKind       = schema.GroupKind{Kind: "Namespace"}
	crdKind             = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	serviceMonitorKind  = schema.GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}
)

// deployments returns the operator's Deployment manifests, decoded.
func (tr *tree) deployments(t *testing.T) map[*object]*appsv1.Deployment {
	t.Helper()
	out := map[*object]*appsv1.Deployment{}
	for _, o := range tr.byKind(deploymentKind) {
		d := &appsv1.Deployment{}
		if err := o.Decode(d); err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		out[o] = d
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
