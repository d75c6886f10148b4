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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/openshift/cluster-node-operator/pkg/operator"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
)

const (
	// controlPlaneLabel selects the control-plane nodes.
	controlPlaneLabel = "node-role.kubernetes.io/master"
	// proxyName is the kube-rbac-proxy sidecar, which serves the operator's
	// metrics to the cluster.
	proxyName = "kube-rbac-proxy"
	// metricsService is the Service of the operator's metrics.
	metricsService = "metrics"
	// servingCertAnnotation asks the service CA for a serving certificate.
	servingCertAnnotation = "service.beta.openshift.io/serving-cert-secret-name"
	serviceCAVolume       = "service-ca"
	// imageEnvSuffix marks the environment variables that carry pull specs.
	imageEnvSuffix = "_IMAGE"
)

// TestDeploymentConventions: the operator's Deployment follows what OpenShift
// expects of a platform operator where no e2e test proves it
// (docs/test-behaviours.md names what TestInstallAsCVO proves live).
func TestDeploymentConventions(t *testing.T) {
	tr := load(t)
	for o, d := range tr.deployments(t) {
		t.Run(filepath.Base(o.File), func(t *testing.T) {
			spec := d.Spec.Template.Spec
			if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
				t.Errorf("replicas must be 1 (the operator is a leader-elected singleton)")
			}
			ann := d.Spec.Template.Annotations
			for k, want := range map[string]string{
				"openshift.io/required-scc":               "restricted-v2",
				"target.workload.openshift.io/management": `{"effect": "PreferredDuringScheduling"}`,
				// oc logs and oc exec reach the operator, not its sidecar.
				"kubectl.kubernetes.io/default-container": operatorName,
			} {
				if ann[k] != want {
					t.Errorf("pod template annotation %s is %q, want %q", k, ann[k], want)
				}
			}
			// Move off a failed node, but not at once; tolerate no taint by
			// accident.
			for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
				if !slices.ContainsFunc(spec.Tolerations, func(tol corev1.Toleration) bool {
					return tol.Key == key && tol.Effect == corev1.TaintEffectNoExecute && tol.TolerationSeconds != nil && *tol.TolerationSeconds <= 300
				}) {
					t.Errorf("want a NoExecute toleration of %s with tolerationSeconds <= 300", key)
				}
			}
			for _, tol := range spec.Tolerations {
				if tol.Key == "" {
					t.Errorf("toleration %+v tolerates every taint", tol)
				}
			}
			if len(spec.Containers) != 2 || spec.Containers[0].Name != operatorName || spec.Containers[1].Name != proxyName {
				t.Fatalf("want exactly the containers [%s %s]", operatorName, proxyName)
			}
			for _, c := range spec.Containers {
				checkContainer(t, spec, c)
			}
			operator, proxy := spec.Containers[0], spec.Containers[1]
			// The operator's endpoint is plain HTTP on loopback: only the
			// sidecar serves the pod's network. It reads no files but its
			// ServiceAccount's and the service CA bundle, and writes none.
			if len(operator.Ports) != 0 {
				t.Errorf("container %s: ports %+v; only kube-rbac-proxy serves the pod's network", operator.Name, operator.Ports)
			}
			if len(operator.VolumeMounts) != 1 || operator.VolumeMounts[0].Name != serviceCAVolume || !operator.VolumeMounts[0].ReadOnly {
				t.Errorf("container %s: mounts %+v, want only %s, read-only", operator.Name, operator.VolumeMounts, serviceCAVolume)
			}
			checkServiceCA(t, tr, spec, operator)
			checkEnvironment(t, tr, operator)
			checkImages(t, tr, spec)
			checkProxyContainer(t, tr, spec, proxy)
		})
	}
}

// checkContainer: what every container needs beyond restricted Pod Security:
// requests without limits, logs as the termination message, pinned images, a
// read-only root, and no fixed user (restricted-v2 assigns one).
func checkContainer(t *testing.T, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || len(c.Resources.Limits) != 0 {
		t.Errorf("container %s: want cpu and memory requests and no limits", c.Name)
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError || c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("container %s: want terminationMessagePolicy FallbackToLogsOnError and imagePullPolicy IfNotPresent", c.Name)
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.RunAsUser != nil || (spec.SecurityContext != nil && spec.SecurityContext.RunAsUser != nil) {
		t.Errorf("container %s: want readOnlyRootFilesystem and no fixed runAsUser", c.Name)
	}
}

// checkServiceCA: the operator trusts Thanos Querier through the service CA
// bundle, mounted where its --prometheus-ca-file default looks, from an
// optional ConfigMap (the operator starts without it) that the manifests
// create empty, with the service CA's injection annotation.
func checkServiceCA(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	caFile := operator.NewOptions().Prometheus.CAFile
	i := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == serviceCAVolume })
	if i < 0 || spec.Volumes[i].ConfigMap == nil || spec.Volumes[i].ConfigMap.Optional == nil || !*spec.Volumes[i].ConfigMap.Optional {
		t.Fatalf("volume %s: want an optional configMap volume", serviceCAVolume)
	}
	source := spec.Volumes[i].ConfigMap
	if m := c.VolumeMounts[0]; m.MountPath != path.Dir(caFile) {
		t.Errorf("container %s: %s mounted at %s, but --prometheus-ca-file defaults to %s", c.Name, serviceCAVolume, m.MountPath, caFile)
	}
	for _, o := range tr.byKind(schema.GroupKind{Kind: "ConfigMap"}) {
		if o.GetName() == source.Name && o.GetNamespace() == operatorNamespace {
			if data, _ := o.Object["data"].(map[string]any); o.GetAnnotations()["service.beta.openshift.io/inject-cabundle"] != "true" || len(data) != 0 {
				t.Errorf("%s: want no data and the annotation service.beta.openshift.io/inject-cabundle: \"true\"", o)
			}
			return
		}
	}
	t.Errorf("no manifest creates ConfigMap %s/%s, which volume %s mounts", operatorNamespace, source.Name, serviceCAVolume)
}

// proxyFlags are the kube-rbac-proxy flags the sidecar may set. Others change
// who may read what (--ignore-paths, --config-file, --insecure-listen-address,
// --auth-header-*, ...): review them and add them here.
var proxyFlags = []string{"--secure-listen-address", "--upstream", "--tls-cert-file", "--tls-private-key-file",
	"--tls-min-version", "--tls-cipher-suites", "--allow-paths", "--client-ca-file"}

// checkProxyContainer: kube-rbac-proxy sets only reviewed flags (that it
// serves /metrics only is TestInstallAsCVO's), on the port named https, with OpenShift's Intermediate TLS profile
// (the API server's default tlsSecurityProfile), from the optional Secret
// the service CA issues for the metrics Service (a missing certificate must
// not keep the operator from starting; only the sidecar waits).
func checkProxyContainer(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	flags := map[string]string{}
	for _, a := range c.Args {
		name, value, _ := strings.Cut(a, "=")
		if !slices.Contains(proxyFlags, name) {
			t.Errorf("container %s: %s is not among the flags this lint knows to be harmless; check what it does to authentication and authorization, then add it to proxyFlags", c.Name, name)
		}
		flags[name] = value
	}
	want, err := criometrics.TLSArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		name, value, _ := strings.Cut(w, "=")
		if got := flags[name]; got != value {
			t.Errorf("container %s: %s=%s, want %s (Intermediate profile)", c.Name, name, got, value)
		}
	}
	_, port, _ := net.SplitHostPort(flags["--secure-listen-address"])
	if len(c.Ports) != 1 || c.Ports[0].Name != "https" || strconv.Itoa(int(c.Ports[0].ContainerPort)) != port {
		t.Errorf("container %s: ports %+v, want exactly https on %s (--secure-listen-address)", c.Name, c.Ports, port)
	}
	svc := metricsServiceOf(t, tr)
	secret := svc.Annotations[servingCertAnnotation]
	if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == secret && v.Secret.Optional != nil && *v.Secret.Optional
	}) {
		t.Errorf("no optional volume of Secret %q (Service %s's %s)", secret, metricsService, servingCertAnnotation)
	}
	p, _ := strconv.Atoi(port)
	checkService(t, tr, svc, p)
}

// metricsServiceOf is the Service of the operator's metrics.
func metricsServiceOf(t *testing.T, tr *tree) *corev1.Service {
	t.Helper()
	for _, o := range tr.byKind(serviceKind) {
		if o.GetNamespace() == operatorNamespace && o.GetName() == metricsService {
			svc := &corev1.Service{}
			if err := o.Decode(svc); err != nil {
				t.Fatal(err)
			}
			return svc
		}
	}
	t.Fatalf("no Service %s in %s", metricsService, operatorNamespace)
	return nil
}

// checkService: the Service "metrics" leads to kube-rbac-proxy's https port;
// the ServiceMonitor scrapes it over TLS, checking the certificate's name,
// with CMO's client certificate (its scrape class), no token.
func checkService(t *testing.T, tr *tree, svc *corev1.Service, port int) {
	t.Helper()
	if svc.Spec.Selector["app"] != operatorName {
		t.Errorf("Service %s selects %v", metricsService, svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "https" ||
		(svc.Spec.Ports[0].TargetPort != intstr.FromString("https") && svc.Spec.Ports[0].TargetPort != intstr.FromInt32(int32(port))) {
		t.Errorf("Service %s ports %+v do not lead to kube-rbac-proxy's https port %d", metricsService, svc.Spec.Ports, port)
	}

	sms := tr.byKind(serviceMonitorKind)
	if len(sms) != 1 {
		t.Fatalf("want one ServiceMonitor for the operator's metrics, got %v", sms)
	}
	sm := sms[0].Object
	matchLabels, _, _ := unstructured.NestedMap(sm, "spec", "selector", "matchLabels")
	for k, v := range matchLabels {
		if svc.Labels[k] != v {
			t.Errorf("ServiceMonitor selects %s=%v, which Service %s (labels %v) lacks", k, v, metricsService, svc.Labels)
		}
	}
	if len(matchLabels) == 0 {
		t.Errorf("ServiceMonitor selects no labels")
	}
	endpoints, _ := sm["spec"].(map[string]any)["endpoints"].([]any)
	if len(endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v, want one", endpoints)
	}
	ep := endpoints[0].(map[string]any)
	tls, _ := ep["tlsConfig"].(map[string]any)
	want := metricsService + "." + operatorNamespace + ".svc"
	if ep["port"] != "https" || ep["scheme"] != "https" || tls == nil || tls["serverName"] != want ||
		sm["spec"].(map[string]any)["scrapeClass"] != "tls-client-certificate-auth" {
		t.Errorf("ServiceMonitor %v: want port https, scheme https, serverName %s and scrapeClass tls-client-certificate-auth", ep, want)
	}
	if p, ok := ep["path"]; ok && p != "/metrics" {
		t.Errorf("ServiceMonitor endpoint path %v; kube-rbac-proxy serves only /metrics", p)
	}
	if ep["bearerTokenFile"] != nil || ep["authorization"] != nil {
		t.Errorf("ServiceMonitor endpoint %v: the client certificate authenticates; send no token", ep)
	}
}

// checkImages: every image the pod runs or the operator deploys (*_IMAGE) is
// a pull spec of image-references, which the release tooling substitutes,
// and every one of those is used; the sidecar runs the same kube-rbac-proxy
// the operator deploys.
func checkImages(t *testing.T, tr *tree, spec corev1.PodSpec) {
	t.Helper()
	refs := map[string]string{}
	for _, tag := range tr.imageReferences.Spec.Tags {
		if tag.From == nil || tag.From.Kind != "DockerImage" {
			t.Errorf("image-references tag %s: from must be a DockerImage", tag.Name)
			continue
		}
		refs[tag.From.Name] = tag.Name
		if want := "quay.io/openshift/origin-" + tag.Name + ":latest"; tag.From.Name != want {
			t.Errorf("image-references tag %s points to %s, want %s", tag.Name, tag.From.Name, want)
		}
	}
	used := map[string]bool{}
	env := map[string]string{}
	for _, c := range spec.Containers {
		images := []string{c.Image}
		for _, e := range c.Env {
			if strings.HasSuffix(e.Name, imageEnvSuffix) {
				if e.Value == "" {
					t.Errorf("container %s: %s must be a literal pull spec", c.Name, e.Name)
				}
				env[e.Name] = e.Value
				images = append(images, e.Value)
			}
		}
		for _, image := range images {
			if refs[image] == "" {
				t.Errorf("container %s: image %q is not in image-references; the release tooling would not substitute it", c.Name, image)
			}
			used[image] = true
		}
	}
	for image, tag := range refs {
		if !used[image] {
			t.Errorf("image-references tag %s (%s) is used by no manifest", tag, image)
		}
	}
	for _, c := range spec.Containers {
		if c.Name == proxyName && (refs[c.Image] != proxyName || c.Image != env["KUBE_RBAC_PROXY_IMAGE"]) {
			t.Errorf("container %s: image %q, want image-references tag %s, the KUBE_RBAC_PROXY_IMAGE %q that the operator deploys", c.Name, c.Image, proxyName, env["KUBE_RBAC_PROXY_IMAGE"])
		}
	}
}

// checkEnvironment: the operator's environment sets every variable the
// operator's code reads and nothing else, and the version is the placeholder
// the release tooling replaces (checkImages checks the pull specs).
func checkEnvironment(t *testing.T, tr *tree, c corev1.Container) {
	t.Helper()
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			t.Errorf("container %s: %s is set twice", c.Name, e.Name)
		}
		env[e.Name] = e
	}
	if env["OPERATOR_IMAGE_VERSION"].Value != versionPlaceholder {
		t.Errorf("container %s: OPERATOR_IMAGE_VERSION is %q, want %q", c.Name, env["OPERATOR_IMAGE_VERSION"].Value, versionPlaceholder)
	}
	if env["OPERATOR_IMAGE"].Value != c.Image {
		t.Errorf("container %s: OPERATOR_IMAGE %q is not the operator's own image %q (the image ships cert-syncer)", c.Name, env["OPERATOR_IMAGE"].Value, c.Image)
	}
	if p := env["POD_NAME"].ValueFrom; p == nil || p.FieldRef == nil || p.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("container %s: POD_NAME must come from metadata.name, so that events name the Deployment", c.Name)
	}

	// Every variable the operator reads is set here, and every variable set
	// here is read by someone.
	read := environmentReadByOperator(t, tr.root)
	for name := range read {
		if _, ok := env[name]; !ok {
			t.Errorf("container %s: the operator reads %s (%s), which the Deployment does not set", c.Name, name, read[name])
		}
	}
	readByLibraries := map[string]bool{"POD_NAME": true}
	for name := range env {
		if read[name] == "" && !readByLibraries[name] {
			t.Errorf("container %s: %s is set but nothing reads it", c.Name, name)
		}
	}
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
				out[string(m[1])], _ = filepath.Rel(root, path)
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

// TestDeploymentVariantsAgree: the hosted variant of the Deployment differs
// from the self-managed one only in placement and profiles (that each
// profile has exactly one is TestReleaseProfiles').
func TestDeploymentVariantsAgree(t *testing.T) {
	tr := load(t)
	ds := tr.deployments(t)
	var objs []*object
	for o := range ds {
		objs = append(objs, o)
	}
	slices.SortFunc(objs, func(a, b *object) int { return strings.Compare(a.File, b.File) })
	normalize := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = d.DeepCopy()
		d.Annotations = nil
		d.Spec.Template.Spec.NodeSelector = nil
		var tols []corev1.Toleration
		for _, tol := range d.Spec.Template.Spec.Tolerations {
			if tol.Key != controlPlaneLabel {
				tols = append(tols, tol)
			}
		}
		d.Spec.Template.Spec.Tolerations = tols
		return d
	}
	for _, o := range objs[1:] {
		if !equality.Semantic.DeepEqual(normalize(ds[objs[0]]), normalize(ds[o])) {
			t.Errorf("%s and %s differ in more than placement and profiles", objs[0], o)
		}
	}
}
