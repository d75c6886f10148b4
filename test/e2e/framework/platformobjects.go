package framework

// MCO's CRI-O metrics objects for the platform fixture, as facts read at mcoCommit: docs/platform-fixture.md.

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

// Node paths of the proxy, on its static pod's hostPath volumes.
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

// platformProxyArgs is the proxy container's command line, in MCO's order,
// the TLS flags from the default (Intermediate) profile as MCO converts them.
func platformProxyArgs() []string {
	profile := configv1.TLSProfiles[configv1.TLSProfileIntermediateType]
	minVersion, ciphers := string(profile.MinTLSVersion), crypto.OpenSSLToIANACipherSuites(profile.Ciphers)
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

// platformStaticPod is the static pod kube-rbac-proxy-crio of 01-<role>-kubelet (the same for every role), with the facts the fixture uses.
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
				Image:        KubeRBACProxyImage, // the release's kube-rbac-proxy, the operator's too; loaded on the real node
				Args:         platformProxyArgs(),
				Ports:        []corev1.ContainerPort{{ContainerPort: platformProxyPort}},
				VolumeMounts: mounts,
			}},
		},
	}
}

// platformProxyAuthorization is PlatformProxyConfig, kube-rbac-proxy's static authorization: only prometheus-k8s may GET /metrics.
func platformProxyAuthorization() []byte {
	return []byte("authorization:\n  static:\n  - user:\n      name: " + PrometheusK8sUser +
		"\n    verb: get\n    path: /metrics\n    resourceRequest: false\n")
}

// platformCRIODefault is 00-default's [crio.metrics]: on, plain HTTP, on 127.0.0.1:9537; the rest of MCO's 00-default is left out.
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

// platformKubeletFiles are 01-<role>-kubelet's static pod and its authorization config.
func platformKubeletFiles() ([]platformFile, error) {
	pod, err := yaml.Marshal(platformStaticPod())
	if err != nil {
		return nil, fmt.Errorf("static pod: %w", err)
	}
	return []platformFile{
		{path: PlatformProxyManifest, mode: platformFileMode, data: pod},
		{path: PlatformProxyConfig, mode: platformFileMode, data: platformProxyAuthorization()},
	}, nil
}

// platformContainerRuntimeFiles are 01-<role>-container-runtime's 00-default.
func platformContainerRuntimeFiles() []platformFile {
	return []platformFile{{path: MCOCRIODropIn, mode: platformFileMode, data: platformCRIODefault()}}
}

// escapeDataURL escapes data as MCO's config transpiler does for a data URL (RFC 2396: only unreserved characters stay).
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

// platformMachineConfig is a MachineConfig shaped like MCO's for a pool: role label, generated-by annotation, Ignition 3.5.0 files in path order.
func platformMachineConfig(role, name string, files []platformFile, units ...interface{}) *unstructured.Unstructured {
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
				"systemd":  map[string]interface{}{"units": append([]interface{}{}, units...)},
			},
		},
	}}
}

// platformKubeletUnit is 01-<role>-kubelet's kubelet.service, reduced to what the operator reads (--config-dir since OpenShift 4.21).
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

// platformMachineConfigs are 01-<role>-kubelet and -container-runtime per role.
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

// platformNamespace is MCO's namespace with its monitoring and privileged Pod Security labels.
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

// platformService is the Service kube-rbac-proxy-crio in front of the static pods.
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
