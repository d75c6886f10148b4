package localcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// fieldManager owns what the harness applies; tests that restore CRDs
// (faults_test, disruptionpolicy_test) apply as the same manager.
const fieldManager = "local-cluster"

type clients struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	crds    apiextensionsclient.Interface
}

func (c *Config) restConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	cfg.UserAgent = "local-cluster"
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg, nil
}

func (c *Config) clients() (*clients, error) {
	cfg, err := c.restConfig()
	if err != nil {
		return nil, err
	}
	cl := &clients{}
	if cl.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if cl.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if cl.crds, err = apiextensionsclient.NewForConfig(cfg); err != nil {
		return nil, err
	}
	return cl, nil
}

// apply applies obj, one of the harness's own, as fieldManager
// local-cluster (see applyTo).
func (cl *clients) apply(ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, createOnly bool) error {
	var ri dynamic.ResourceInterface = cl.dynamic.Resource(gvr)
	if ns := obj.GetNamespace(); ns != "" {
		ri = cl.dynamic.Resource(gvr).Namespace(ns)
	}
	return applyTo(ctx, ri, obj, fieldManager, createOnly)
}

// applyTo is the harness's one way to apply: server-side apply as the CVO
// does (create or update, forcing conflicts); create-only objects are only
// created when missing.
func applyTo(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, manager string, createOnly bool) error {
	if createOnly {
		_, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: manager})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: new(true)})
	return err
}

// operatorFrameworkAPIVersion is the version of OLM's API module whose CRDs
// the cluster serves (the operator does not import it).
const operatorFrameworkAPIVersion = "v0.36.0"

// crdFiles are the CRD manifests the cluster serves: those of openshift/api
// (the Default feature set) and of prometheus-operator at the versions go.mod
// requires, and OLM's at operatorFrameworkAPIVersion, from the module cache.
func (c *Config) crdFiles() ([]string, error) {
	apiVersion := c.moduleVersion("github.com/openshift/api")
	if apiVersion == "" {
		apiVersion = c.OpenShiftAPIVersion
		fmt.Fprintf(os.Stderr, "local-cluster: warning: go.mod does not require github.com/openshift/api; using %s\n", apiVersion)
	}
	api, err := moduleDir("github.com/openshift/api", apiVersion)
	if err != nil {
		return nil, err
	}
	type crd struct{ dir, plural string }
	want := []crd{
		{"config/v1", "clusteroperators"}, {"config/v1", "clusterversions"}, {"config/v1", "featuregates"},
		{"config/v1", "infrastructures"}, {"config/v1", "apiservers"},
		{"security/v1", "securitycontextconstraints"},
		// The console's operator config and plugins, which the NMState
		// operator writes.
		{"operator/v1", "consoles"}, {"console/v1", "consoleplugins"},
	}
	if c.MachineConfigs {
		// MCO's operator config holds the node disruption policy.
		want = append(want, crd{"machineconfiguration/v1", "machineconfigs"},
			crd{"machineconfiguration/v1", "machineconfigpools"}, crd{"machineconfiguration/v1", "machineconfignodes"},
			crd{"operator/v1", "machineconfigurations"})
	}
	var files []string
	for _, w := range want {
		f, err := pickCRD(filepath.Join(api, w.dir, "zz_generated.crd-manifests"), w.plural)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	// OLM's API, where an administrator may have installed an NMState
	// operator (pkg/operator/nmstate/provider.go).
	olm, err := moduleDir("github.com/operator-framework/api", operatorFrameworkAPIVersion)
	if err != nil {
		return nil, err
	}
	for _, r := range []string{"clusterserviceversions", "subscriptions", "operatorgroups"} {
		files = append(files, filepath.Join(olm, "crds", "operators.coreos.com_"+r+".yaml"))
	}
	if c.MonitoringCRDs {
		promVersion := c.moduleVersion("github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring")
		if promVersion == "" {
			promVersion = "v0.88.0"
		}
		prom, err := moduleDir("github.com/prometheus-operator/prometheus-operator", promVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range []string{"servicemonitors", "prometheusrules"} {
			files = append(files, filepath.Join(prom, "example/prometheus-operator-crd/monitoring.coreos.com_"+r+".yaml"))
		}
	}
	return files, nil
}

// moduleVersion is the version of a module the main module requires (or
// replaces it with), "" when it does not.
func (c *Config) moduleVersion(module string) string {
	cmd := exec.Command("go", "list", "-mod=vendor", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", module)
	cmd.Dir = c.Root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// moduleDir is where the module cache holds a module, fetched when missing.
func moduleDir(module, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	// Outside any module, so that neither go.mod nor go.sum is touched.
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %s", module, version, out)
	}
	return m.Dir, nil
}

// pickCRD is the generated manifest of a resource, the Default feature set
// variant (the self-managed one where there is no other).
func pickCRD(dir, plural string) (string, error) {
	for _, suffix := range []string{".crd.yaml", "-Default.crd.yaml", "-SelfManagedHA-Default.crd.yaml", "-SelfManagedHA.crd.yaml"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "*_"+plural+suffix)); len(m) > 0 {
			return m[0], nil
		}
	}
	return "", fmt.Errorf("no CRD manifest for %s in %s", plural, dir)
}

// installCRDs applies the CRDs, records their files in $LCP_DIR/crds.txt
// (tests that delete a CRD restore it from there) and waits until every one
// is Established.
func (c *Config) installCRDs(ctx context.Context, cl *clients) error {
	files, err := c.crdFiles()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "crds.txt"), []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	gvr := apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	var names []string
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if err := cl.apply(ctx, gvr, obj, false); err != nil {
				return fmt.Errorf("applying %s: %w", f, err)
			}
			names = append(names, obj.GetName())
		}
	}
	return poll(ctx, 120*time.Second, "CRDs Established", func() (bool, error) {
		for _, name := range names {
			crd, err := cl.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil || !slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
			}) {
				return false, nil
			}
		}
		return true, nil
	})
}

func readManifests(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

func object(apiVersion, kind, name, namespace string, fields map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	for k, v := range fields {
		obj.Object[k] = v
	}
	obj.SetName(name)
	obj.SetNamespace(namespace)
	return obj
}

// clusterConfig creates what the installer and the other operators leave on
// an OpenShift cluster and the operator reads: namespaces, Infrastructure,
// APIServer, Console, ClusterVersion, FeatureGate and MCO's MachineConfiguration.
func (c *Config) clusterConfig(ctx context.Context, cl *clients) error {
	ns := corev1.SchemeGroupVersion.WithResource("namespaces")
	config := func(r string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: r}
	}
	type item struct {
		gvr        schema.GroupVersionResource
		obj        *unstructured.Unstructured
		createOnly bool
	}
	items := []item{
		{ns, object("v1", "Namespace", "openshift-config", "", nil), false},
		{ns, object("v1", "Namespace", "openshift-config-managed", "", nil), false},
		{ns, object("v1", "Namespace", "openshift-machine-config-operator", "", nil), false},
		{ns, object("v1", "Namespace", "openshift-monitoring", "", map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"openshift.io/cluster-monitoring": "true"}}}), false},
		{corev1.SchemeGroupVersion.WithResource("serviceaccounts"), object("v1", "ServiceAccount", "prometheus-k8s", "openshift-monitoring", nil), false},
		{config("infrastructures"), object("config.openshift.io/v1", "Infrastructure", "cluster", "", map[string]any{
			"spec": map[string]any{"platformSpec": map[string]any{"type": c.Platform}}}), false},
		{config("apiservers"), object("config.openshift.io/v1", "APIServer", "cluster", "", map[string]any{"spec": map[string]any{}}), false},
		{schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "consoles"},
			object("operator.openshift.io/v1", "Console", "cluster", "", map[string]any{"spec": map[string]any{"managementState": "Managed"}}), false},
		// The clusterID is set once.
		{config("clusterversions"), object("config.openshift.io/v1", "ClusterVersion", "version", "", map[string]any{
			"spec": map[string]any{"clusterID": string(uuid.NewUUID())}}), true},
		// The installer's FeatureGate, with the feature set chosen once
		// (LCP_FEATURE_SET); its status is the cluster-config operator's
		// (framework.WriteFeatureGateStatus, for the operator's version).
		{config("featuregates"), object("config.openshift.io/v1", "FeatureGate", "cluster", "", map[string]any{
			"spec": map[string]any{"featureSet": c.FeatureSet}}), true},
	}
	if c.MachineConfigs {
		// MCO creates it on a real cluster.
		items = append(items, item{schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"},
			object("operator.openshift.io/v1", "MachineConfiguration", "cluster", "", map[string]any{
				"spec": map[string]any{"managementState": "Managed"}}), false})
	}
	for _, it := range items {
		if err := cl.apply(ctx, it.gvr, it.obj, it.createOnly); err != nil {
			return fmt.Errorf("applying %s %s: %w", it.obj.GetKind(), it.obj.GetName(), err)
		}
	}
	status, err := json.Marshal(map[string]any{"status": map[string]any{
		"infrastructureName":     "local-cluster",
		"platform":               c.Platform,
		"platformStatus":         map[string]any{"type": c.Platform},
		"controlPlaneTopology":   c.Topology,
		"infrastructureTopology": c.InfraTopology,
		"cpuPartitioning":        "None",
		"etcdDiscoveryDomain":    "",
		"apiServerURL":           fmt.Sprintf("https://127.0.0.1:%d", c.APIServerPort),
		"apiServerInternalURI":   fmt.Sprintf("https://127.0.0.1:%d", c.APIServerPort),
	}})
	if err != nil {
		return err
	}
	_, err = cl.dynamic.Resource(config("infrastructures")).Patch(ctx, "cluster", types.MergePatchType, status, metav1.PatchOptions{FieldManager: fieldManager}, "status")
	return err
}

// poll calls cond every half second until it is true, it fails, or timeout.
func poll(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	return pollEvery(ctx, 500*time.Millisecond, timeout, what, cond)
}

func pollEvery(ctx context.Context, interval, timeout time.Duration, what string, cond func() (bool, error)) error {
	if err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(context.Context) (bool, error) { return cond() }); err != nil {
		return fmt.Errorf("waiting for %s (at most %s): %w", what, timeout, err)
	}
	return nil
}
