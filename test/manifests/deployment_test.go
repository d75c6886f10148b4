package manifests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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
			if got := ann["kubectl.kubernetes.io/default-container"]; got != operatorName {
				t.Errorf("kubectl.kubernetes.io/default-container is %q, want %s (oc logs and oc exec should reach the operator, not its sidecar)", got, operatorName)
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

			// Two containers: the operator, and kube-rbac-proxy in front of
			// its metrics.
			var names []string
			for _, c := range spec.Containers {
				names = append(names, c.Name)
			}
			if len(spec.Containers) != 2 || spec.Containers[0].Name != operatorName || spec.Containers[1].Name != proxyName {
				t.Fatalf("containers %v, want exactly [%s %s]", names, operatorName, proxyName)
			}
			operator, proxy := spec.Containers[0], spec.Containers[1]
			for _, c := range spec.Containers {
				checkContainer(t, spec, c)
			}
			checkVolumes(t, spec)
			checkServiceCA(t, tr, spec, operator)
			listen := checkOperatorContainer(t, operator)
			checkEnvironment(t, tr, operator)
			checkImages(t, tr, spec)
			checkProxyContainer(t, tr, spec, proxy, listen)
		})
	}
}

// checkContainer: what every container of the pod needs, whatever it runs:
// requests without limits, logs as the termination message, pinned images,
// and a securityContext that restricted-v2 (and pod security "restricted")
// admits without changing it.
func checkContainer(t *testing.T, spec corev1.PodSpec, c corev1.Container) {
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
		if sc.SeccompProfile != nil && sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("container %s: seccompProfile %s; restricted-v2 allows RuntimeDefault", c.Name, sc.SeccompProfile.Type)
		}
	}
	if len(c.Command) == 0 {
		t.Errorf("container %s: set the command; the image's entrypoint is not part of the manifest", c.Name)
	}
	for _, p := range c.Ports {
		if p.HostPort != 0 || p.HostIP != "" {
			t.Errorf("container %s: port %s uses the host's network, which restricted-v2 does not allow", c.Name, p.Name)
		}
	}
}

// checkVolumes: only volumes restricted-v2 allows, each mounted by a
// container, each mount of a volume of the pod.
func checkVolumes(t *testing.T, spec corev1.PodSpec) {
	t.Helper()
	mounted := map[string]bool{}
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
		if v.Secret == nil && v.ConfigMap == nil && v.EmptyDir == nil && v.Projected == nil && v.DownwardAPI == nil {
			t.Errorf("volume %s: restricted-v2 allows only secret, configMap, emptyDir, projected and downwardAPI volumes", v.Name)
		}
	}
	for _, c := range spec.Containers {
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				t.Errorf("container %s: mount of unknown volume %s", c.Name, m.Name)
			}
			mounted[m.Name] = true
		}
	}
	for _, v := range spec.Volumes {
		if !mounted[v.Name] {
			t.Errorf("volume %s is mounted by no container", v.Name)
		}
	}
}

const serviceCAVolume = "service-ca"

// checkServiceCA: the operator trusts Thanos Querier through the service CA
// bundle, mounted where its --prometheus-ca-file default looks, from an
// optional ConfigMap (the operator starts without it) that the manifests
// create with the service CA's injection annotation.
func checkServiceCA(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	caFile := operator.NewOptions().Prometheus.CAFile
	var source *corev1.ConfigMapVolumeSource
	for _, v := range spec.Volumes {
		if v.Name == serviceCAVolume {
			source = v.ConfigMap
		}
	}
	if source == nil || source.Optional == nil || !*source.Optional {
		t.Fatalf("volume %s: want an optional configMap volume (the operator must start before the service CA injects the bundle)", serviceCAVolume)
	}
	for _, m := range c.VolumeMounts {
		if m.Name == serviceCAVolume && m.MountPath != path.Dir(caFile) {
			t.Errorf("container %s: %s mounted at %s, but --prometheus-ca-file defaults to %s", c.Name, serviceCAVolume, m.MountPath, caFile)
		}
	}
	for _, o := range tr.byKind(schema.GroupKind{Kind: "ConfigMap"}) {
		if o.GetName() == source.Name && o.GetNamespace() == operatorNamespace {
			if o.GetAnnotations()["service.beta.openshift.io/inject-cabundle"] != "true" {
				t.Errorf("%s: without the annotation service.beta.openshift.io/inject-cabundle: \"true\" nothing puts the service CA bundle in it", o)
			}
			if data, _ := o.Object["data"].(map[string]interface{}); len(data) != 0 {
				t.Errorf("%s: data in the manifest; the service CA injects service-ca.crt", o)
			}
			return
		}
	}
	t.Errorf("no manifest creates ConfigMap %s/%s, which volume %s mounts", operatorNamespace, source.Name, serviceCAVolume)
}

// checkOperatorContainer: the operator serves /metrics, /healthz and
// /readyz in plain HTTP, without authentication, so only on the pod's
// loopback, where nothing outside the pod reaches it; it writes no files and
// reads none but its ServiceAccount's. It returns the --listen address.
func checkOperatorContainer(t *testing.T, c corev1.Container) string {
	t.Helper()
	if len(c.Command) == 0 || filepath.Base(c.Command[0]) != operatorName || !contains(c.Command, "operator") && !contains(c.Args, "operator") {
		t.Errorf("container %s: want command %q with subcommand operator, got %q %q", c.Name, operatorName, c.Command, c.Args)
	}
	flags := parseFlags(t, c)
	listen, ok := flags["--listen"]
	if !ok {
		t.Fatalf("container %s: no --listen=<address>:<port>; the operator's default may not be what the sidecar proxies to", c.Name)
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		t.Fatalf("container %s: --listen=%s: %v", c.Name, listen, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil || port == "0" {
		t.Errorf("container %s: --listen=%s: want a fixed port (kube-rbac-proxy's --upstream names it)", c.Name, listen)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Errorf("container %s: --listen=%s is not a loopback IP address: the operator's endpoint has no TLS and no authentication, so it must be reachable only from inside the pod", c.Name, listen)
	}
	if len(c.Ports) != 0 {
		t.Errorf("container %s: ports %+v; the operator's endpoint is on loopback, only kube-rbac-proxy serves the pod's network", c.Name, c.Ports)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != serviceCAVolume || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("container %s: mounts %+v; the operator reads no files but its ServiceAccount's and the service CA bundle (volume %s, read-only), and writes none (the serving certificate is kube-rbac-proxy's)", c.Name, c.VolumeMounts, serviceCAVolume)
	}
	return listen
}

// proxyFlags are the kube-rbac-proxy flags the sidecar may set. Others change
// who may read what (--ignore-paths, --config-file, --insecure-listen-address,
// --auth-header-*, ...): review them and add them here.
var proxyFlags = map[string]bool{
	"--secure-listen-address": true,
	"--upstream":              true,
	"--tls-cert-file":         true,
	"--tls-private-key-file":  true,
	"--tls-min-version":       true,
	"--tls-cipher-suites":     true,
	"--allow-paths":           true,
	"--client-ca-file":        true, // x509 beside TokenReview, authorization unchanged
}

// checkProxyContainer: kube-rbac-proxy serves, on the pod's https port, the
// operator's /metrics and nothing else, with the service CA's certificate for
// the metrics Service and OpenShift's Intermediate TLS profile, after a
// TokenReview and a SubjectAccessReview; it proxies to exactly the operator's
// loopback address.
func checkProxyContainer(t *testing.T, tr *tree, spec corev1.PodSpec, c corev1.Container, operatorListen string) {
	t.Helper()
	if len(c.Command) != 1 || filepath.Base(c.Command[0]) != proxyName {
		t.Errorf("container %s: command %q, want [%s]", c.Name, c.Command, proxyName)
	}
	flags := parseFlags(t, c)
	for f := range flags {
		if !proxyFlags[f] {
			t.Errorf("container %s: %s is not among the flags this lint knows to be harmless; check what it does to authentication and authorization, then add it to proxyFlags", c.Name, f)
		}
	}
	for f := range proxyFlags {
		if _, ok := flags[f]; !ok {
			t.Errorf("container %s: %s is not set", c.Name, f)
		}
	}

	// Upstream: the operator's --listen, exactly, in plain HTTP (it is
	// loopback inside the pod).
	u, err := url.Parse(flags["--upstream"])
	if err != nil || u.Scheme != "http" || u.Host != operatorListen || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
		t.Errorf("container %s: --upstream=%s, want http://%s/ (the operator's --listen)", c.Name, flags["--upstream"], operatorListen)
	}

	// Listening: on the pod's network, on the port named https.
	host, portString, err := net.SplitHostPort(flags["--secure-listen-address"])
	port, perr := strconv.Atoi(portString)
	if err != nil || perr != nil {
		t.Fatalf("container %s: --secure-listen-address=%s: want <address>:<port>", c.Name, flags["--secure-listen-address"])
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		t.Errorf("container %s: --secure-listen-address=%s: listen on every address of the pod (0.0.0.0), or the Service cannot reach it", c.Name, flags["--secure-listen-address"])
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "https" || int(c.Ports[0].ContainerPort) != port || (c.Ports[0].Protocol != "" && c.Ports[0].Protocol != corev1.ProtocolTCP) {
		t.Errorf("container %s: ports %+v, want exactly https, TCP, %d (--secure-listen-address)", c.Name, c.Ports, port)
	}
	if port == portOf(operatorListen) {
		t.Errorf("container %s: listens on %d, the operator's port", c.Name, port)
	}

	// Only /metrics; the authorization is then get on /metrics.
	if flags["--allow-paths"] != "/metrics" {
		t.Errorf("container %s: --allow-paths=%s, want /metrics: the operator's /healthz and /readyz are for the kubelet on loopback, not the cluster", c.Name, flags["--allow-paths"])
	}

	// TLS: OpenShift's Intermediate profile (the default of the API
	// server's tlsSecurityProfile).
	want, err := criometrics.TLSArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		name, value, _ := strings.Cut(w, "=")
		got := flags[name]
		if name == "--tls-cipher-suites" {
			gotSet, wantSet := strings.Split(got, ","), strings.Split(value, ",")
			sort.Strings(gotSet)
			sort.Strings(wantSet)
			if strings.Join(gotSet, ",") != strings.Join(wantSet, ",") {
				t.Errorf("container %s: --tls-cipher-suites=%s, want the Intermediate profile's TLS 1.2 suites %s", c.Name, got, value)
			}
			continue
		}
		if got != value {
			t.Errorf("container %s: %s=%s, want %s (Intermediate profile)", c.Name, name, got, value)
		}
	}
	if v := flags["--tls-min-version"]; v != "VersionTLS12" && v != "VersionTLS13" {
		t.Errorf("container %s: --tls-min-version=%s allows TLS older than 1.2", c.Name, v)
	}

	// The serving certificate: the Secret the metrics Service asks the
	// service CA for, mounted read-only, optional (a missing certificate
	// must not keep the operator from starting; only the sidecar waits).
	svc := metricsServiceOf(t, tr)
	secretName := svc.Annotations[servingCertAnnotation]
	if secretName == "" {
		t.Fatalf("Service %s has no %s annotation; the service CA would issue no certificate", metricsService, servingCertAnnotation)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	for _, f := range []struct{ flag, key string }{{"--tls-cert-file", corev1.TLSCertKey}, {"--tls-private-key-file", corev1.TLSPrivateKeyKey}} {
		file := flags[f.flag]
		var mount *corev1.VolumeMount
		for i, m := range c.VolumeMounts {
			if path.Dir(file) == path.Clean(m.MountPath) {
				mount = &c.VolumeMounts[i]
			}
		}
		if mount == nil {
			t.Errorf("container %s: %s=%s is in no volume mount", c.Name, f.flag, file)
			continue
		}
		v := volumes[mount.Name]
		switch {
		case v.Secret == nil || v.Secret.SecretName != secretName:
			t.Errorf("container %s: %s=%s is in volume %s, which is not Secret %s (Service %s's %s)", c.Name, f.flag, file, mount.Name, secretName, metricsService, servingCertAnnotation)
		case len(v.Secret.Items) != 0:
			t.Errorf("volume %s: items %v; mount the service CA's Secret as it is", v.Name, v.Secret.Items)
		case path.Base(file) != f.key:
			t.Errorf("container %s: %s=%s, but the service CA writes the %s into key %s", c.Name, f.flag, file, strings.TrimPrefix(f.flag, "--tls-"), f.key)
		}
		if !mount.ReadOnly {
			t.Errorf("container %s: mount %s must be read-only", c.Name, mount.Name)
		}
		if v.Secret != nil && (v.Secret.Optional == nil || !*v.Secret.Optional) {
			t.Errorf("volume %s: must be optional, so that the operator starts before the service CA has issued the certificate (only kube-rbac-proxy restarts until it is there)", v.Name)
		}
	}

	checkService(t, tr, svc, port)
}

func portOf(hostPort string) int {
	_, p, _ := net.SplitHostPort(hostPort)
	n, _ := strconv.Atoi(p)
	return n
}

// parseFlags reads a container's --flag=value arguments (after the command
// and, for the operator, its subcommand); each flag once.
func parseFlags(t *testing.T, c corev1.Container) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range c.Args {
		if a == "operator" {
			continue
		}
		name, value, ok := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") || !ok {
			t.Errorf("container %s: argument %q: write flags as --name=value, so that this lint and the e2e tests read them", c.Name, a)
			continue
		}
		if _, dup := out[name]; dup {
			t.Errorf("container %s: %s is set twice", c.Name, name)
		}
		out[name] = value
	}
	return out
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
	matchLabels, _, _ := unstructuredMap(sm, "spec", "selector", "matchLabels")
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

// imageEnvSuffix marks the environment variables that carry pull specs.
const imageEnvSuffix = "_IMAGE"

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
