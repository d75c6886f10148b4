package manifests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	// servingCertDir is where library-go's controllercmd looks for the
	// serving certificate of the metrics endpoint.
	servingCertDir = "/var/run/secrets/serving-cert"
	// controlPlaneLabel selects the control-plane nodes.
	controlPlaneLabel = "node-role.kubernetes.io/master"
)

// TestDeploymentConventions: the operator's Deployment follows what OpenShift
// expects of a platform operator.
func TestDeploymentConventions(t *testing.T) {
	tr := load(t)
	sas := map[string]bool{}
	for _, o := range tr.byKind(serviceAccountKind) {
		sas[o.GetNamespace()+"/"+o.GetName()] = true
	}
	for o, d := range tr.deployments(t) {
		t.Run(filepath.Base(o.File), func(t *testing.T) {
			spec := d.Spec.Template.Spec
			if d.Namespace != operatorNamespace || d.Name != operatorName {
				t.Errorf("Deployment is %s/%s, want %s/%s", d.Namespace, d.Name, operatorNamespace, operatorName)
			}
			if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
				t.Errorf("replicas must be 1 (the operator is a leader-elected singleton)")
			}
			if !sas[d.Namespace+"/"+spec.ServiceAccountName] {
				t.Errorf("serviceAccountName %q is not a ServiceAccount of the manifests", spec.ServiceAccountName)
			}
			if spec.AutomountServiceAccountToken != nil && !*spec.AutomountServiceAccountToken {
				t.Errorf("the operator needs its ServiceAccount token")
			}
			if spec.PriorityClassName != "system-cluster-critical" {
				t.Errorf("priorityClassName is %q, want system-cluster-critical", spec.PriorityClassName)
			}
			if spec.HostNetwork || spec.HostPID || spec.HostIPC {
				t.Errorf("the operator must not use the host's namespaces")
			}
			ann := d.Spec.Template.Annotations
			if ann["openshift.io/required-scc"] == "" {
				t.Errorf("the pod template lacks the openshift.io/required-scc annotation")
			} else if ann["openshift.io/required-scc"] != "restricted-v2" {
				t.Errorf("required-scc is %q; the operator needs nothing beyond restricted-v2", ann["openshift.io/required-scc"])
			}
			if ann["target.workload.openshift.io/management"] == "" {
				t.Errorf("the pod template lacks target.workload.openshift.io/management (workload partitioning)")
			}

			// Placement: control-plane nodes, tolerating their taint,
			// except on hosted profiles which have none.
			_, onMasters := spec.NodeSelector[controlPlaneLabel]
			tolerates := func(key string, effect corev1.TaintEffect) *corev1.Toleration {
				for i, tol := range spec.Tolerations {
					if tol.Key == key && tol.Effect == effect && tol.Operator == corev1.TolerationOpExists {
						return &spec.Tolerations[i]
					}
				}
				return nil
			}
			if onMasters != (tolerates(controlPlaneLabel, corev1.TaintEffectNoSchedule) != nil) {
				t.Errorf("nodeSelector %v and tolerations %v disagree about control-plane nodes", spec.NodeSelector, spec.Tolerations)
			}
			if onMasters && len(spec.NodeSelector) != 1 {
				t.Errorf("nodeSelector %v selects more than the control plane", spec.NodeSelector)
			}
			for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
				tol := tolerates(key, corev1.TaintEffectNoExecute)
				if tol == nil || tol.TolerationSeconds == nil || *tol.TolerationSeconds > 300 {
					t.Errorf("want a NoExecute toleration of %s with tolerationSeconds <= 300 (move off a failed node, but not at once)", key)
				}
			}
			for _, tol := range spec.Tolerations {
				if tol.Key == "" {
					t.Errorf("toleration %+v tolerates every taint", tol)
				}
			}

			if spec.SecurityContext == nil || spec.SecurityContext.RunAsNonRoot == nil || !*spec.SecurityContext.RunAsNonRoot {
				t.Errorf("pod securityContext.runAsNonRoot must be true")
			}
			if spec.SecurityContext != nil && (spec.SecurityContext.SeccompProfile == nil || spec.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault) {
				t.Errorf("pod securityContext.seccompProfile must be RuntimeDefault (restricted-v2 and pod security 'restricted')")
			}
			if len(spec.InitContainers) != 0 {
				t.Errorf("init containers are not expected")
			}
			if len(spec.Containers) != 1 {
				t.Fatalf("want one container, got %d", len(spec.Containers))
			}
			for _, c := range spec.Containers {
				checkContainer(t, tr, spec, c)
			}
		})
	}
}

func checkContainer(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("container %s: cpu and memory requests are required", c.Name)
	}
	if len(c.Resources.Limits) != 0 {
		t.Errorf("container %s: limits %v; platform operators set requests and no limits", c.Name, c.Resources.Limits)
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Errorf("container %s: terminationMessagePolicy %q, want FallbackToLogsOnError", c.Name, c.TerminationMessagePolicy)
	}
	if c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("container %s: imagePullPolicy %q, want IfNotPresent (release images are pinned by digest)", c.Name, c.ImagePullPolicy)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Errorf("container %s: no securityContext", c.Name)
	default:
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("container %s: allowPrivilegeEscalation must be false", c.Name)
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("container %s: readOnlyRootFilesystem must be true", c.Name)
		}
		if sc.Privileged != nil && *sc.Privileged {
			t.Errorf("container %s: privileged", c.Name)
		}
		if sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0 {
			t.Errorf("container %s: capabilities must drop ALL and add none", c.Name)
		}
		if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			t.Errorf("container %s: runs as root", c.Name)
		}
		if sc.RunAsUser != nil || (spec.SecurityContext != nil && spec.SecurityContext.RunAsUser != nil) {
			t.Errorf("container %s: a fixed runAsUser conflicts with restricted-v2, which assigns one", c.Name)
		}
		if sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot {
			t.Errorf("container %s: runAsNonRoot false", c.Name)
		}
	}

	// The read-only root needs a writable /tmp (controllercmd writes a
	// self-signed pair there until the service CA's certificate arrives),
	// and the service CA's certificate where controllercmd looks for it.
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]corev1.Volume{}
	for _, m := range c.VolumeMounts {
		v, ok := volumes[m.Name]
		if !ok {
			t.Errorf("container %s: mount of unknown volume %s", c.Name, m.Name)
		}
		mounts[m.MountPath] = v
	}
	if v, ok := mounts["/tmp"]; !ok || v.EmptyDir == nil {
		t.Errorf("container %s: needs an emptyDir at /tmp with a read-only root filesystem", c.Name)
	}
	v, ok := mounts[servingCertDir]
	if !ok || v.Secret == nil {
		t.Fatalf("container %s: the service CA's serving certificate must be mounted at %s", c.Name, servingCertDir)
	}
	secretName := v.Secret.SecretName
	if v.Secret.Optional == nil || !*v.Secret.Optional {
		t.Errorf("volume %s: must be optional: controllercmd serves a self-signed certificate until the service CA issues one, and restarts when it appears", v.Name)
	}
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			t.Errorf("volume %s: hostPath is not allowed by restricted-v2", v.Name)
		}
	}

	// The metrics endpoint: the --listen port is the container's https port,
	// which the Service exposes with the service CA's certificate, and which
	// the ServiceMonitor scrapes.
	if len(c.Command) == 0 || filepath.Base(c.Command[0]) != operatorName || !contains(c.Command, "operator") && !contains(c.Args, "operator") {
		t.Errorf("container %s: want command %q with subcommand operator, got %q %q", c.Name, operatorName, c.Command, c.Args)
	}
	var listen string
	for _, a := range append(append([]string{}, c.Command...), c.Args...) {
		if v, ok := strings.CutPrefix(a, "--listen="); ok {
			listen = v
		}
	}
	_, portString, _ := strings.Cut(listen, ":")
	port, err := strconv.Atoi(portString)
	if err != nil {
		t.Errorf("container %s: want --listen=<address>:<port>, got %q", c.Name, listen)
	}
	var https *corev1.ContainerPort
	for i, p := range c.Ports {
		if p.Name == "https" {
			https = &c.Ports[i]
		}
	}
	if https == nil || int(https.ContainerPort) != port {
		t.Errorf("container %s: port https %+v does not match --listen=%s", c.Name, https, listen)
	}
	checkService(t, tr, secretName, port)

	checkEnvironment(t, tr, c)
}

// checkService: the Service "metrics" asks the service CA for the Secret the
// Deployment mounts, and exposes the operator's https port; the
// ServiceMonitor scrapes it over TLS, checking the certificate's name.
func checkService(t *testing.T, tr *tree, secretName string, port int) {
	t.Helper()
	var svc *corev1.Service
	for _, o := range tr.byKind(serviceKind) {
		if o.GetNamespace() == operatorNamespace && o.GetName() == "metrics" {
			svc = &corev1.Service{}
			if err := o.Decode(svc); err != nil {
				t.Fatal(err)
			}
		}
	}
	if svc == nil {
		t.Fatalf("no Service metrics in %s", operatorNamespace)
	}
	if got := svc.Annotations["service.beta.openshift.io/serving-cert-secret-name"]; got != secretName {
		t.Errorf("Service metrics asks the service CA for Secret %q, the Deployment mounts %q", got, secretName)
	}
	if svc.Spec.Selector["app"] != operatorName {
		t.Errorf("Service metrics selects %v", svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "https" ||
		(svc.Spec.Ports[0].TargetPort != intstr.FromString("https") && svc.Spec.Ports[0].TargetPort != intstr.FromInt32(int32(port))) {
		t.Errorf("Service metrics ports %+v do not lead to the container's https port %d", svc.Spec.Ports, port)
	}

	sms := tr.byKind(serviceMonitorKind)
	if len(sms) != 1 {
		t.Fatalf("want one ServiceMonitor for the operator's metrics, got %v", sms)
	}
	sm := sms[0].Object
	matchLabels, _, _ := unstructuredMap(sm, "spec", "selector", "matchLabels")
	for k, v := range matchLabels {
		if svc.Labels[k] != v {
			t.Errorf("ServiceMonitor selects %s=%v, which Service metrics (labels %v) lacks", k, v, svc.Labels)
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
	want := "metrics." + operatorNamespace + ".svc"
	if ep["port"] != "https" || ep["scheme"] != "https" || tls == nil || tls["serverName"] != want || (tls["caFile"] == nil && tls["ca"] == nil) {
		t.Errorf("ServiceMonitor endpoint %v: want port https, scheme https, a CA and serverName %s", ep, want)
	}
	if ep["bearerTokenFile"] == nil && ep["authorization"] == nil {
		t.Errorf("ServiceMonitor endpoint %v: the operator authenticates scrapers; send Prometheus' token", ep)
	}
}

// imageEnvPrefix marks the environment variables that carry pull specs.
const imageEnvSuffix = "_IMAGE"

// checkEnvironment: the operator's environment sets every variable the
// operator's code reads, the operand images are image references, and the
// version is the placeholder the release tooling replaces.
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
	images := []string{c.Image}
	for name, e := range env {
		if strings.HasSuffix(name, imageEnvSuffix) {
			if e.Value == "" {
				t.Errorf("container %s: %s must be a literal pull spec", c.Name, name)
			}
			images = append(images, e.Value)
		}
	}
	for _, image := range images {
		if refs[image] == "" {
			t.Errorf("container %s: image %q is not in image-references; the release tooling would not substitute it", c.Name, image)
		}
		used[image] = true
	}
	for image, tag := range refs {
		if !used[image] {
			t.Errorf("image-references tag %s (%s) is used by no manifest", tag, image)
		}
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

// environmentReadByOperator finds os.Getenv("X") and os.LookupEnv("X") in the
// operator's code (not cert-syncer's: it runs in the DaemonSet).
func environmentReadByOperator(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{"pkg/operator", "cmd/cluster-node-operator"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "os" {
					return true
				}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					name, _ := strconv.Unquote(lit.Value)
					rel, _ := filepath.Rel(root, path)
					out[name] = rel
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("found no os.Getenv in the operator's code; the lint's parser is broken")
	}
	return out
}

// TestDeploymentVariantsAgree: the hosted variant of the Deployment differs
// from the self-managed one only in placement and profiles.
func TestDeploymentVariantsAgree(t *testing.T) {
	tr := load(t)
	ds := tr.deployments(t)
	var objs []*object
	for o := range ds {
		objs = append(objs, o)
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].File < objs[j].File })
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
	seen := map[string]*object{}
	for _, o := range objs {
		for p := range o.Profiles() {
			if prev := seen[p]; prev != nil {
				t.Errorf("profile %s includes both %s and %s", p, prev, o)
			}
			seen[p] = o
		}
	}
	for _, p := range profiles {
		if seen[p] == nil {
			t.Errorf("profile %s has no Deployment", p)
		}
	}
}
