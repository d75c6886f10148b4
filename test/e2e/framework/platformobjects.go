package framework

// The platform objects of the CRI-O metrics fixture (platform.go), written
// here as Go values. They are this project's own rendition of what the
// machine-config operator (MCO) ships for CRI-O's metrics on OpenShift >=
// 4.14; the facts they carry (names, paths, ports, labels, the proxy's
// arguments and authorization) were read from MCO at commit mcoCommit:
// its kubelet and container-runtime templates and its install manifests
// (docs/platform-fixture.md lists which facts, and what is left out).
// Nothing else of MCO's files is reproduced.

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// Node paths the proxy uses, on the hostPath volumes of its static pod.
const (
	nodeKubernetesDir = "/etc/kubernetes"
	nodeKubeletDir    = "/var/lib/kubelet"
	// The kubelet's client CA bundle: the proxy's --client-ca-file.
	nodeKubeletClientCA = nodeKubernetesDir + "/kubelet-ca.crt"
	// The kubelet's serving certificate and key, one file.
	nodeKubeletServingPair = nodeKubeletDir + "/pki/kubelet-server-current.pem"
	nodeKubeletKubeconfig  = nodeKubeletDir + "/kubeconfig"
	// The mode of every file the fixture's MachineConfigs write.
	platformFileMode os.FileMode = 0o644
)

// platformImage stands for an image of the release payload; any digest will
// do, since nothing is ever pulled.
func platformImage(fill string) string {
	return "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + strings.Repeat(fill, 32)
}

// platformTLSSettings is what MCO puts into the proxy's TLS flags on a
// cluster with the default (Intermediate) TLS security profile: the
// profile's minimum version, and its OpenSSL cipher names turned into IANA
// names by library-go, as MCO does.
func platformTLSSettings() (minVersion string, cipherSuites []string) {
	profile := configv1.TLSProfiles[configv1.TLSProfileIntermediateType]
	return string(profile.MinTLSVersion), crypto.OpenSSLToIANACipherSuites(profile.Ciphers)
}

// platformProxyArgs is the command line of the proxy container, in MCO's
// order: TLS on every address of the node at 9637, authorization from
// PlatformProxyConfig, client certificates checked against the kubelet's
// client CA, the kubelet's kubeconfig for token reviews, the kubelet's
// serving pair, and CRI-O's plain-HTTP endpoint as upstream.
func platformProxyArgs() []string {
	minVersion, ciphers := platformTLSSettings()
	flag := func(name, value string) string { return "--" + name + "=" + value }
	return []string{
		flag("secure-listen-address", ":"+strconv.Itoa(platformProxyPort)),
		flag("config-file", PlatformProxyConfig),
		flag("client-ca-file", nodeKubeletClientCA),
		flag("logtostderr", "true"),
		flag("kubeconfig", nodeKubeletKubeconfig),
		flag("tls-cipher-suites", strings.Join(ciphers, ",")),
		flag("tls-min-version", minVersion),
		flag("upstream", fmt.Sprintf("http://127.0.0.1:%d", platformCRIOPort)),
		flag("tls-cert-file", nodeKubeletServingPair),
		flag("tls-private-key-file", nodeKubeletServingPair),
	}
}

// platformStaticPod is the static pod kube-rbac-proxy-crio that
// 01-<role>-kubelet puts into the kubelet's manifest directory (the same
// for every role). It keeps what the fixture uses: identity and label,
// hostNetwork, the two hostPath volumes and their read-only mounts (the
// fixture maps the proxy's path arguments through them), the priority
// class, the image, the port and the arguments. Left out: MCO's
// annotations (workload partitioning, required SCC), the init container
// that waits for the kubelet's serving pair (the fixture writes the pair
// before it starts the proxy), the privileged security context, resource
// requests and the termination message policy.
func platformStaticPod() *corev1.Pod {
	hostDirs := []struct{ volume, dir string }{
		{"etc-kube", nodeKubernetesDir},
		{"var-lib-kubelet", nodeKubeletDir},
	}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	for _, d := range hostDirs {
		volumes = append(volumes, corev1.Volume{
			Name:         d.volume,
			VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: d.dir}},
		})
		mounts = append(mounts, corev1.VolumeMount{Name: d.volume, MountPath: d.dir, ReadOnly: true})
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      PlatformProxyName,
			Namespace: MCONamespace,
			Labels:    map[string]string{"k8s-app": PlatformProxyName},
		},
		Spec: corev1.PodSpec{
			HostNetwork:       true,
			PriorityClassName: "system-cluster-critical",
			Volumes:           volumes,
			Containers: []corev1.Container{{
				Name:         PlatformProxyName,
				Image:        platformImage("ab"),
				Args:         platformProxyArgs(),
				Ports:        []corev1.ContainerPort{{ContainerPort: platformProxyPort}},
				VolumeMounts: mounts,
			}},
		},
	}
}

// proxyAuthorization is kube-rbac-proxy's configuration file, reduced to
// its static authorization: requests matching a rule are allowed without a
// SubjectAccessReview.
type proxyAuthorization struct {
	Authorization struct {
		Static []proxyStaticRule `json:"static"`
	} `json:"authorization"`
}

type proxyStaticRule struct {
	User struct {
		Name string `json:"name"`
	} `json:"user"`
	Verb string `json:"verb"`
	// Path and ResourceRequest=false: a non-resource request.
	Path            string `json:"path"`
	ResourceRequest bool   `json:"resourceRequest"`
}

// platformProxyAuthorization is PlatformProxyConfig: only prometheus-k8s
// may GET /metrics.
func platformProxyAuthorization() proxyAuthorization {
	var rule proxyStaticRule
	rule.User.Name = PrometheusK8sUser
	rule.Verb, rule.Path, rule.ResourceRequest = "get", "/metrics", false
	var cfg proxyAuthorization
	cfg.Authorization.Static = []proxyStaticRule{rule}
	return cfg
}

// platformCRIODefault is the fixture's 00-default (MCOCRIODropIn). The
// [crio.metrics] keys are MCO's facts: metrics on, on 127.0.0.1:9537, with
// neither metrics_cert nor metrics_key, so plain HTTP, which is what the
// proxy's upstream expects. Nothing else of MCO's 00-default is carried:
// not its metrics_collectors list (CRI-O's default, every collector, serves
// the container_runtime_crio_* series the tests look for), nor its runtime
// (crun as default runtime, the runc and crun handlers, the
// openshift-builder workload, selinux, the systemd cgroup manager, hook
// directories, default sysctls and environment), image (pause image and
// command, auth files, short-name mode), network (CNI directories), stream
// and storage-wipe settings. None of them touches the metrics path, and
// hack/crio.sh's own crio.conf gives CRI-O what it needs to start here.
func platformCRIODefault() []byte {
	return []byte(fmt.Sprintf(`# CRI-O's metrics endpoint as MCO's 00-default sets it: on, plain HTTP, on
# loopback (rendered by the e2e platform fixture, test/e2e/framework).
[crio.metrics]
enable_metrics = true
metrics_host = %q
metrics_port = %d
`, "127.0.0.1", platformCRIOPort))
}

// platformFile is a file a MachineConfig writes on a node.
type platformFile struct {
	path string
	mode os.FileMode
	data []byte
}

// platformKubeletFiles are the files of 01-<role>-kubelet the fixture
// reproduces: the static pod and its authorization config.
func platformKubeletFiles() ([]platformFile, error) {
	pod, err := yaml.Marshal(platformStaticPod())
	if err != nil {
		return nil, fmt.Errorf("static pod: %w", err)
	}
	authz, err := yaml.Marshal(platformProxyAuthorization())
	if err != nil {
		return nil, fmt.Errorf("proxy authorization: %w", err)
	}
	return []platformFile{
		{path: PlatformProxyManifest, mode: platformFileMode, data: pod},
		{path: PlatformProxyConfig, mode: platformFileMode, data: authz},
	}, nil
}

// platformContainerRuntimeFiles are the files of
// 01-<role>-container-runtime the fixture reproduces: 00-default.
func platformContainerRuntimeFiles() []platformFile {
	return []platformFile{{path: MCOCRIODropIn, mode: platformFileMode, data: platformCRIODefault()}}
}

// escapeDataURL escapes data as RFC 2396 wants in a data URL (only
// unreserved characters stay), which is how MCO's Fedora CoreOS Config
// transpiler encodes an inline file into an Ignition source.
func escapeDataURL(data []byte) string {
	var b strings.Builder
	for _, c := range data {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-_.!~*'()", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// platformMachineConfig builds a MachineConfig shaped like the ones MCO
// renders for a pool: the role label, MCO's generated-by annotation, and an
// Ignition 3.5.0 config whose storage.files hold the files in path order,
// overwrite true, contents as data: URLs. MCO's real 01-<role>-kubelet and
// 01-<role>-container-runtime hold many more files and systemd units; only
// those of the CRI-O metrics path are reproduced.
func platformMachineConfig(role, name string, files []platformFile, units ...map[string]interface{}) *unstructured.Unstructured {
	files = append([]platformFile(nil), files...)
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	var igFiles []interface{}
	for _, f := range files {
		igFiles = append(igFiles, map[string]interface{}{
			"path":      f.path,
			"mode":      int64(f.mode),
			"overwrite": true,
			"user":      map[string]interface{}{},
			"group":     map[string]interface{}{},
			"contents": map[string]interface{}{
				"source":       "data:," + escapeDataURL(f.data),
				"verification": map[string]interface{}{},
			},
		})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1",
		"kind":       "MachineConfig",
		"metadata": map[string]interface{}{
			"name":        name,
			"labels":      map[string]interface{}{mcoRoleLabel: role},
			"annotations": map[string]interface{}{mcoGeneratedByAnnotation: mcoCommit},
		},
		"spec": map[string]interface{}{
			"config": map[string]interface{}{
				"ignition": map[string]interface{}{"version": "3.5.0"},
				"storage":  map[string]interface{}{"files": igFiles},
				"systemd":  map[string]interface{}{"units": unitList(units)},
			},
		},
	}}
}

// platformKubeletUnit is the kubelet.service unit of 01-<role>-kubelet,
// reduced to what the operator reads: since OpenShift 4.21 MCO's unit
// passes --config-dir=/etc/openshift/kubelet.conf.d, so the kubelet reads
// drop-ins there (MCO's templates/<role>/01-<role>-kubelet/_base/units/
// kubelet.service.yaml at mcoCommit). The other flags and the wrapper are
// left out.
func platformKubeletUnit(role string) map[string]interface{} {
	return map[string]interface{}{
		"name":    "kubelet.service",
		"enabled": true,
		"contents": "[Unit]\nDescription=Kubernetes Kubelet\nRequires=crio.service\n\n[Service]\n" +
			"ExecStart=/usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf --config-dir=/etc/openshift/kubelet.conf.d " +
			"--container-runtime-endpoint=/var/run/crio/crio.sock --node-labels=node-role.kubernetes.io/" + role + "\n" +
			"Restart=always\n\n[Install]\nWantedBy=multi-user.target\n",
	}
}

func unitList(units []map[string]interface{}) []interface{} {
	out := []interface{}{}
	for _, u := range units {
		out = append(out, u)
	}
	return out
}

// platformMachineConfigs returns the MachineConfigs the fixture puts on the
// API server: 01-<role>-kubelet and 01-<role>-container-runtime per role
// (the same files for every role).
func platformMachineConfigs(t testing.TB) []*unstructured.Unstructured {
	t.Helper()
	kubelet, err := platformKubeletFiles()
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for _, role := range PlatformRoles {
		out = append(out,
			platformMachineConfig(role, "01-"+role+"-kubelet", kubelet, platformKubeletUnit(role)),
			platformMachineConfig(role, "01-"+role+"-container-runtime", platformContainerRuntimeFiles()))
	}
	return out
}

// platformNamespace is MCO's namespace, with the labels that matter to the
// metrics path: cluster monitoring scrapes it, and its pods (the privileged
// static pod's mirror pods among them) are admitted at the privileged Pod
// Security level. Left out: MCO's release-inclusion, node-selector and
// workload annotations, and its run-level label.
func platformNamespace() *corev1.Namespace {
	labels := map[string]string{
		"name":                            MCONamespace,
		"openshift.io/cluster-monitoring": "true",
	}
	for _, mode := range []string{"enforce", "audit", "warn"} {
		labels["pod-security.kubernetes.io/"+mode] = "privileged"
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: MCONamespace, Labels: labels}}
}

// platformService is the Service kube-rbac-proxy-crio in front of the
// static pods: ClusterIP, selecting k8s-app=kube-rbac-proxy-crio, port
// "metrics" 9637/TCP. Left out: MCO's release-inclusion annotations.
func platformService() *corev1.Service {
	selector := map[string]string{"k8s-app": PlatformProxyName}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: PlatformProxyName, Namespace: MCONamespace, Labels: selector},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports: []corev1.ServicePort{{
				Name:       "metrics",
				Protocol:   corev1.ProtocolTCP,
				Port:       platformProxyPort,
				TargetPort: intstr.FromInt32(platformProxyPort),
			}},
		},
	}
}
