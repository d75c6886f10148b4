package manifests

import (
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/openshift/cluster-node-operator/pkg/operator"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
)

const (
	proxyName       = "kube-rbac-proxy"
	metricsService  = "metrics"
	serviceCAVolume = "service-ca"
)

// TestDeploymentConventions: docs/test-behaviours.md (what TestInstallAsCVO
// proves live is not checked here); its variants (hosted, self-managed)
// differ only in placement and profiles, so the first stands for all.
func TestDeploymentConventions(t *testing.T) {
	tr := load(t)
	var variants []*appsv1.Deployment // without placement and profiles
	for _, o := range tr.byKind("Deployment") {
		d := &appsv1.Deployment{}
		if err := o.Decode(d); err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		tolerations := d.Spec.Template.Spec.Tolerations
		assert.Truef(t, !slices.ContainsFunc(tolerations, func(tol corev1.Toleration) bool { return tol.Key == "" }), "%s: a toleration tolerates every taint", o)
		d.Annotations, d.Spec.Template.Spec.NodeSelector = nil, nil
		d.Spec.Template.Spec.Tolerations = slices.DeleteFunc(tolerations, func(tol corev1.Toleration) bool { return tol.Key == "node-role.kubernetes.io/master" })
		variants = append(variants, d)
		assert.Truef(t, equality.Semantic.DeepEqual(variants[0], d), "%s differs from another variant in more than placement and profiles", o)
	}
	if len(variants) == 0 {
		t.Fatal("manifests/ has no Deployment")
	}
	d := variants[0]
	spec, ann := d.Spec.Template.Spec, d.Spec.Template.Annotations
	assert.Truef(t, d.Spec.Replicas != nil && *d.Spec.Replicas == 1, "replicas must be 1 (the operator is a leader-elected singleton)")
	for k, want := range map[string]string{
		"openshift.io/required-scc":               "restricted-v2",
		"target.workload.openshift.io/management": `{"effect": "PreferredDuringScheduling"}`,
		"kubectl.kubernetes.io/default-container": operatorName, // oc logs and oc exec reach the operator
	} {
		assert.Truef(t, ann[k] == want, "pod template annotation %s is %q, want %q", k, ann[k], want)
	}
	// Move off a failed node, but not at once.
	for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
		assert.Truef(t, slices.ContainsFunc(spec.Tolerations, func(tol corev1.Toleration) bool {
			return tol.Key == key && tol.Effect == corev1.TaintEffectNoExecute && tol.TolerationSeconds != nil && *tol.TolerationSeconds <= 300
		}), "want a NoExecute toleration of %s with tolerationSeconds <= 300", key)
	}
	if len(spec.Containers) != 2 || spec.Containers[0].Name != operatorName || spec.Containers[1].Name != proxyName {
		t.Fatalf("want exactly the containers [%s %s]", operatorName, proxyName)
	}
	for _, c := range spec.Containers {
		// Beyond restricted Pod Security; restricted-v2 assigns the user.
		sc := c.SecurityContext
		assert.Truef(t, !c.Resources.Requests.Cpu().IsZero() && !c.Resources.Requests.Memory().IsZero() && len(c.Resources.Limits) == 0,
			"container %s: want cpu and memory requests and no limits", c.Name)
		assert.Truef(t, c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError && c.ImagePullPolicy == corev1.PullIfNotPresent,
			"container %s: want terminationMessagePolicy FallbackToLogsOnError and imagePullPolicy IfNotPresent", c.Name)
		assert.Truef(t, sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem && sc.RunAsUser == nil &&
			(spec.SecurityContext == nil || spec.SecurityContext.RunAsUser == nil), "container %s: want readOnlyRootFilesystem and no fixed runAsUser", c.Name)
	}
	checkOperatorContainer(t, tr, spec, spec.Containers[0])
	checkImages(t, tr, spec)
	checkProxyContainer(t, tr, spec, spec.Containers[1])
}

// checkOperatorContainer: docs/test-behaviours.md (TestDeploymentConventions).
func checkOperatorContainer(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	assert.Truef(t, len(c.Ports) == 0, "container %s: ports %+v; only kube-rbac-proxy serves the pod's network", c.Name, c.Ports)
	caFile := operator.NewOptions().Prometheus.CAFile
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != serviceCAVolume || !c.VolumeMounts[0].ReadOnly || c.VolumeMounts[0].MountPath != path.Dir(caFile) {
		t.Errorf("container %s: mounts %+v, want only %s, read-only, where --prometheus-ca-file (%s) looks", c.Name, c.VolumeMounts, serviceCAVolume, caFile)
	}
	i := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == serviceCAVolume })
	if i < 0 || spec.Volumes[i].ConfigMap == nil || spec.Volumes[i].ConfigMap.Optional == nil || !*spec.Volumes[i].ConfigMap.Optional {
		t.Fatalf("volume %s: want an optional configMap volume", serviceCAVolume)
	}
	assert.Truef(t, slices.ContainsFunc(tr.byKind("ConfigMap"), func(o *object) bool {
		data, _ := o.Object["data"].(map[string]any)
		return o.GetName() == spec.Volumes[i].ConfigMap.Name && o.GetNamespace() == operatorNamespace &&
			o.GetAnnotations()["service.beta.openshift.io/inject-cabundle"] == "true" && len(data) == 0
	}), "no manifest creates ConfigMap %s empty with service.beta.openshift.io/inject-cabundle: \"true\"", spec.Volumes[i].ConfigMap.Name)

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		assert.Truef(t, env[e.Name].Name == "", "container %s: %s is set twice", c.Name, e.Name)
		env[e.Name] = e
	}
	assert.Truef(t, env["OPERATOR_IMAGE"].Value == c.Image, "OPERATOR_IMAGE %q is not the operator's own image (it ships cert-syncer)", env["OPERATOR_IMAGE"].Value)
	read := environmentReadByOperator(t, tr.root)
	for name, file := range read {
		assert.Truef(t, env[name].Name != "", "the operator reads %s (%s), which the Deployment does not set", name, file)
	}
	for name := range env {
		assert.Truef(t, read[name] != "" || name == "POD_NAME", "%s is set but nothing reads it (POD_NAME: library-go)", name)
	}
}

// proxyFlags are the kube-rbac-proxy flags the sidecar may set. Others change
// who may read what (--ignore-paths, --config-file, --insecure-listen-address,
// --auth-header-*, ...): review them and add them here.
var proxyFlags = []string{"--secure-listen-address", "--upstream", "--tls-cert-file", "--tls-private-key-file",
	"--tls-min-version", "--tls-cipher-suites", "--allow-paths", "--client-ca-file"}

// checkProxyContainer: docs/test-behaviours.md (TestDeploymentConventions).
func checkProxyContainer(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	flags := map[string]string{}
	for _, a := range c.Args {
		name, value, _ := strings.Cut(a, "=")
		assert.Truef(t, slices.Contains(proxyFlags, name), "%s: %s is not among the flags known to be harmless (proxyFlags)", c.Name, name)
		flags[name] = value
	}
	want, err := criometrics.TLSArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		name, value, _ := strings.Cut(w, "=")
		assert.Truef(t, flags[name] == value, "%s: %s=%s, want %s (Intermediate profile)", c.Name, name, flags[name], value)
	}
	_, port, _ := net.SplitHostPort(flags["--secure-listen-address"])
	assert.Truef(t, len(c.Ports) == 1 && c.Ports[0].Name == "https" && strconv.Itoa(int(c.Ports[0].ContainerPort)) == port,
		"%s: ports %+v, want exactly https on %s (--secure-listen-address)", c.Name, c.Ports, port)

	svcs := slices.DeleteFunc(tr.byKind("Service"), func(o *object) bool { return o.GetNamespace() != operatorNamespace || o.GetName() != metricsService })
	svc := &corev1.Service{}
	if len(svcs) != 1 || svcs[0].Decode(svc) != nil {
		t.Fatalf("want one Service %s/%s, got %v", operatorNamespace, metricsService, svcs)
	}
	secret := svc.Annotations["service.beta.openshift.io/serving-cert-secret-name"]
	assert.Truef(t, slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == secret && v.Secret.Optional != nil && *v.Secret.Optional
	}), "no optional volume of Secret %q, the Service's serving certificate", secret)
	p, _ := strconv.Atoi(port)
	sp := svc.Spec.Ports
	assert.Truef(t, svc.Spec.Selector["app"] == operatorName && len(sp) == 1 && sp[0].Name == "https" &&
		(sp[0].TargetPort == intstr.FromString("https") || sp[0].TargetPort == intstr.FromInt32(int32(p))),
		"Service %s (selector %v, ports %+v) does not lead to kube-rbac-proxy's https port %d", metricsService, svc.Spec.Selector, sp, p)

	var sm struct {
		Spec struct {
			ScrapeClass string `json:"scrapeClass"`
			Selector    struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			Endpoints []map[string]any `json:"endpoints"`
		} `json:"spec"`
	}
	sms := tr.byKind("ServiceMonitor")
	if len(sms) != 1 || runtime.DefaultUnstructuredConverter.FromUnstructured(sms[0].Object, &sm) != nil || len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("want one ServiceMonitor with one endpoint for the operator's metrics, got %v", sms)
	}
	for k, v := range sm.Spec.Selector.MatchLabels {
		assert.Truef(t, svc.Labels[k] == v, "the ServiceMonitor selects %s=%v, which Service %s (labels %v) lacks", k, v, metricsService, svc.Labels)
	}
	ep := sm.Spec.Endpoints[0]
	tls, _ := ep["tlsConfig"].(map[string]any)
	assert.Truef(t, len(sm.Spec.Selector.MatchLabels) > 0 && ep["port"] == "https" && ep["scheme"] == "https" && tls != nil &&
		tls["serverName"] == metricsService+"."+operatorNamespace+".svc" && sm.Spec.ScrapeClass == "tls-client-certificate-auth" &&
		(ep["path"] == nil || ep["path"] == "/metrics") && ep["bearerTokenFile"] == nil && ep["authorization"] == nil,
		"ServiceMonitor %+v: want a label selector, port and scheme https, serverName of the Service, path /metrics, scrapeClass tls-client-certificate-auth and no token", sm.Spec)
}

// checkImages: the pod's images and the *_IMAGE it passes on are image-references' pull specs, each used.
func checkImages(t *testing.T, tr *tree, spec corev1.PodSpec) {
	t.Helper()
	refs := map[string]string{}
	for _, tag := range tr.imageReferences.Spec.Tags {
		want := corev1.ObjectReference{Kind: "DockerImage", Name: "quay.io/openshift/origin-" + tag.Name + ":latest"}
		assert.Truef(t, tag.From != nil && *tag.From == want, "image-references tag %s points to %+v, want %+v", tag.Name, tag.From, want)
		refs[want.Name] = tag.Name
	}
	used, env := map[string]bool{}, map[string]string{}
	for _, c := range spec.Containers {
		used[c.Image] = true
		assert.Truef(t, refs[c.Image] != "", "container %s: image %q is not in image-references", c.Name, c.Image)
		for _, e := range c.Env {
			if strings.HasSuffix(e.Name, "_IMAGE") {
				env[e.Name], used[e.Value] = e.Value, true
				assert.Truef(t, refs[e.Value] != "", "container %s: %s=%q is not a pull spec of image-references", c.Name, e.Name, e.Value)
			}
		}
	}
	for image, tag := range refs {
		assert.Truef(t, used[image], "image-references tag %s (%s) is used by no manifest", tag, image)
	}
	proxy := spec.Containers[1].Image
	assert.Truef(t, refs[proxy] == proxyName && proxy == env["KUBE_RBAC_PROXY_IMAGE"], "%s: image %q, want tag %s, the KUBE_RBAC_PROXY_IMAGE the operator deploys", proxyName, proxy, proxyName)
}

// getenv is a literal os.Getenv("X") or os.LookupEnv("X").
var getenv = regexp.MustCompile(`\bos\.(?:Getenv|LookupEnv)\("([A-Za-z0-9_]+)"\)`)

// environmentReadByOperator finds the variables the operator's code reads
// (not cert-syncer's: it runs in the DaemonSet), each with a file reading it.
func environmentReadByOperator(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{"pkg/operator", "cmd/cluster-node-operator"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			for _, m := range getenv.FindAllSubmatch(src, -1) {
				out[string(m[1])] = path
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("found no os.Getenv in the operator's code; the lint's pattern is broken")
	}
	return out
}
