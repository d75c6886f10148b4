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
	"text/template"
	"time"

	configv1 "github.com/openshift/api/config/v1"
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
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// fieldManager owns what the harness applies; tests that restore CRDs
// (faults_test, disruptionpolicy_test) apply as the same manager.
const fieldManager = "local-cluster"

type clients struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	crds    apiextensionsclient.Interface
}

func (c *Config) clients() (*clients, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent, cfg.WarningHandler = 200, 400, "local-cluster", rest.NoWarnings{}
	return &clients{kubernetes.NewForConfigOrDie(cfg), dynamic.NewForConfigOrDie(cfg), apiextensionsclient.NewForConfigOrDie(cfg)}, nil
}

// ApplyFiles applies the manifests in files as the CVO does (see apply).
// make run applies manifests/ with it.
func (c *Config) ApplyFiles(ctx context.Context, manager string, files []string) error {
	cl, err := c.upClients(ctx)
	if err != nil {
		return err
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		o, err := readManifests(f)
		if err != nil {
			return err
		}
		objs = append(objs, o...)
	}
	return cl.apply(ctx, manager, objs)
}

// apply is the harness's one way to apply, the CVO's (docs/local-control-plane.md).
func (cl *clients) apply(ctx context.Context, manager string, objs []*unstructured.Unstructured) error {
	fg, err := cl.dynamic.Resource(configv1.GroupVersion.WithResource("featuregates")).Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	set := ""
	if err == nil {
		set, _, _ = unstructured.NestedString(fg.Object, "spec", "featureSet")
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cl.kube.Discovery()))
	for _, obj := range objs {
		if !features.Includes(obj.GetAnnotations(), features.Of(configv1.FeatureSet(set))) {
			continue
		}
		gvk := obj.GroupVersionKind()
		var gvr schema.GroupVersionResource
		// A CRD applied just before may not be in discovery yet.
		err := poll(ctx, 30*time.Second, "the resource of "+gvk.String(), func() (bool, error) {
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				mapper.Reset()
				return false, nil
			}
			gvr = m.Resource
			return true, nil
		})
		if err != nil {
			return err
		}
		ri := cl.dynamic.Resource(gvr).Namespace(obj.GetNamespace())
		if obj.GetAnnotations()["release.openshift.io/create-only"] == "true" {
			if _, err = ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: manager}); apierrors.IsAlreadyExists(err) {
				err = nil
			}
		} else if data, jerr := json.Marshal(obj); jerr != nil {
			err = jerr
		} else {
			_, err = ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: new(true)})
		}
		if err != nil {
			return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// crdFiles are the CRD manifests the cluster serves, from the module cache
// (docs/local-control-plane.md).
func (c *Config) crdFiles() ([]string, error) {
	api, err := moduleDir("github.com/openshift/api", c.required("github.com/openshift/api"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, w := range []string{"config/v1 clusteroperators", "config/v1 clusterversions", "config/v1 featuregates",
		"config/v1 infrastructures", "config/v1 apiservers", "config/v1 proxies", "security/v1 securitycontextconstraints",
		// The console's operator config and plugins, which the NMState operator writes.
		"operator/v1 consoles", "console/v1 consoleplugins",
		"machineconfiguration/v1 machineconfigs", "machineconfiguration/v1 machineconfigpools",
		"machineconfiguration/v1 machineconfignodes", "operator/v1 machineconfigurations"} {
		dir, plural, _ := strings.Cut(w, " ")
		// The Default feature set's manifest, the self-managed one where there is no other.
		var m []string
		for _, suffix := range []string{".crd.yaml", "-Default.crd.yaml", "-SelfManagedHA-Default.crd.yaml", "-SelfManagedHA.crd.yaml"} {
			if m, _ = filepath.Glob(filepath.Join(api, dir, "zz_generated.crd-manifests", "*_"+plural+suffix)); len(m) > 0 {
				break
			}
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("no CRD manifest for %s in %s", plural, api)
		}
		files = append(files, m[0])
	}
	olm, err := moduleDir("github.com/operator-framework/api", "v0.36.0")
	if err != nil {
		return nil, err
	}
	prom, err := moduleDir("github.com/prometheus-operator/prometheus-operator", c.required("github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring"))
	if err != nil {
		return nil, err
	}
	for _, r := range []string{"clusterserviceversions", "subscriptions", "operatorgroups"} {
		files = append(files, filepath.Join(olm, "crds", "operators.coreos.com_"+r+".yaml"))
	}
	for _, r := range []string{"servicemonitors", "prometheusrules"} {
		files = append(files, filepath.Join(prom, "example/prometheus-operator-crd/monitoring.coreos.com_"+r+".yaml"))
	}
	return files, nil
}

// required is the version of a module the main module requires (or
// replaces it with).
func (c *Config) required(module string) string {
	cmd := exec.Command("go", "list", "-mod=vendor", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", module)
	cmd.Dir = c.Root
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// moduleDir is where the module cache holds a module, fetched when missing.
func moduleDir(module, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	// Outside any module, so that neither go.mod nor go.sum is touched.
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.Output()
	var m struct{ Dir string }
	if err == nil {
		err = json.Unmarshal(out, &m)
	}
	if err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %v %s", module, version, err, out)
	}
	return m.Dir, nil
}

// clusterConfig is what the installer and the other operators leave on an
// OpenShift cluster and the operator reads (docs/local-control-plane.md).
var clusterConfig = template.Must(template.New("config").Parse(`# YAML, not JSON: the decoder goes by the first character
{apiVersion: v1, kind: Namespace, metadata: {name: openshift-config}}
---
{apiVersion: v1, kind: Namespace, metadata: {name: openshift-config-managed}}
---
{apiVersion: v1, kind: Namespace, metadata: {name: openshift-cluster-version}}
---
{apiVersion: v1, kind: Namespace, metadata: {name: openshift-machine-config-operator}}
---
{apiVersion: v1, kind: Namespace, metadata: {name: openshift-monitoring, labels: {openshift.io/cluster-monitoring: "true"}}}
---
{apiVersion: v1, kind: ServiceAccount, metadata: {name: prometheus-k8s, namespace: openshift-monitoring}}
---
{apiVersion: config.openshift.io/v1, kind: Infrastructure, metadata: {name: cluster}, spec: {platformSpec: {type: BareMetal}}}
---
{apiVersion: config.openshift.io/v1, kind: APIServer, metadata: {name: cluster}, spec: {}}
---
{apiVersion: operator.openshift.io/v1, kind: Console, metadata: {name: cluster}, spec: {managementState: Managed}}
---
{apiVersion: operator.openshift.io/v1, kind: MachineConfiguration, metadata: {name: cluster}, spec: {managementState: Managed}}
---
{apiVersion: config.openshift.io/v1, kind: ClusterVersion, metadata: {name: version, annotations: {release.openshift.io/create-only: "true"}},
 spec: {clusterID: "{{.ClusterID}}"}}
---
{apiVersion: config.openshift.io/v1, kind: FeatureGate, metadata: {name: cluster, annotations: {release.openshift.io/create-only: "true"}},
 spec: {featureSet: "{{.FeatureSet}}"}}
`))

// setUp installs the CRDs (their files listed in $LCP_DIR/crds.txt, from
// which tests that delete one restore it), the cluster configuration and the
// nodes.
func (c *Config) setUp(ctx context.Context, cl *clients) error {
	files, err := c.crdFiles()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "crds.txt"), []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	var crds, config []*unstructured.Unstructured
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return err
		}
		crds = append(crds, objs...)
	}
	if err := cl.apply(ctx, fieldManager, crds); err != nil {
		return err
	}
	err = poll(ctx, 120*time.Second, "CRDs Established", func() (bool, error) {
		for _, obj := range crds {
			crd, err := cl.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil || !slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
			}) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := clusterConfig.Execute(&buf, map[string]string{"ClusterID": string(uuid.NewUUID()), "FeatureSet": c.FeatureSet}); err != nil {
		return err
	}
	if config, err = decode(buf.Bytes(), "cluster configuration"); err != nil {
		return err
	}
	if err := cl.apply(ctx, fieldManager, config); err != nil {
		return err
	}
	status := fmt.Sprintf(`{"status": {"infrastructureName": "local-cluster", "platform": "BareMetal", "platformStatus": {"type": "BareMetal"},
		"controlPlaneTopology": "HighlyAvailable", "infrastructureTopology": "HighlyAvailable", "cpuPartitioning": "None",
		"etcdDiscoveryDomain": "", "apiServerURL": "https://127.0.0.1:%[1]d", "apiServerInternalURI": "https://127.0.0.1:%[1]d"}}`, c.APIServerPort)
	_, err = cl.dynamic.Resource(configv1.GroupVersion.WithResource("infrastructures")).Patch(ctx, "cluster", types.MergePatchType,
		[]byte(status), metav1.PatchOptions{FieldManager: fieldManager}, "status")
	if err != nil {
		return err
	}
	return scaleNodes(ctx, cl, c.Nodes)
}

func readManifests(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(data, path)
}

func decode(data []byte, what string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// poll calls cond every interval (half a second when 0) until it is true,
// it fails, or timeout.
func poll(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error), interval ...time.Duration) error {
	every := 500 * time.Millisecond
	if len(interval) > 0 {
		every = interval[0]
	}
	if err := wait.PollUntilContextTimeout(ctx, every, timeout, true, func(context.Context) (bool, error) { return cond() }); err != nil {
		return fmt.Errorf("waiting for %s (at most %s): %w", what, timeout, err)
	}
	return nil
}
