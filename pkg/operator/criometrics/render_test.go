package criometrics

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

func TestRenderMachineConfigCarriesTheDropIn(t *testing.T) {
	for _, role := range machineConfigRoles {
		mc, err := RenderMachineConfig(role)
		require.NoError(t, err)
		assert.Equal(t, "50-"+role+"-crio-metrics-tls", mc.GetName())
		assert.Equal(t, role, mc.GetLabels()["machineconfiguration.openshift.io/role"])

		// The MCO reconciles only files (and units, kernel arguments, ...)
		// on a running cluster; any other storage section degrades the pool.
		storage, _, _ := unstructured.NestedMap(mc.Object, "spec", "config", "storage")
		for section := range storage {
			assert.Equal(t, "files", section, "storage.%s cannot be applied to a running cluster", section)
		}
		files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
		require.Len(t, files, 1)
		file := files[0].(map[string]interface{})
		assert.Equal(t, "/etc/crio/crio.conf.d/50-crio-metrics-tls.conf", file["path"])
		assert.Equal(t, DropInPath, file["path"], "the node disruption policy entry names the same file")
		source, _, _ := unstructured.NestedString(file, "contents", "source")
		data, ok := strings.CutPrefix(source, "data:,")
		require.True(t, ok, source)
		content, err := url.PathUnescape(data)
		require.NoError(t, err)
		assert.Equal(t, string(bindata.MustAsset("metrics/crio-dropin.conf")), content)
		assert.Contains(t, content, `metrics_cert = "/var/lib/crio-metrics/tls.crt"`)
		assert.Contains(t, content, `metrics_key = "/var/lib/crio-metrics/tls.key"`)
	}
}

func TestRenderDaemonSet(t *testing.T) {
	images := stack.Images{KubeRBACProxy: "example/krp:1", CertSyncer: "example/op:1"}
	tls12, err := TLSArgs(nil)
	require.NoError(t, err)

	ds, err := RenderDaemonSet(images, tls12, "bundle-1", false)
	require.NoError(t, err)
	spec := ds.Spec.Template.Spec
	assert.Equal(t, "example/krp:1", spec.Containers[0].Image)
	assert.Equal(t, "example/op:1", spec.Containers[1].Image)
	assert.Subset(t, spec.Containers[0].Args, tls12)
	assert.Contains(t, spec.Containers[0].Args, "--upstream=https://127.0.0.1:9537/")
	assert.True(t, spec.HostNetwork)
	for _, c := range spec.Containers {
		require.NotNil(t, c.SecurityContext, c.Name)
		assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation, c.Name)
		assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem, c.Name)
		assert.Equal(t, "ALL", string(c.SecurityContext.Capabilities.Drop[0]), c.Name)
		assert.Nil(t, c.Resources.Limits, c.Name)
		assert.NotEmpty(t, c.Resources.Requests, c.Name)
	}

	// On RHCOS the hostPath keeps var_lib_t: only a container that writes it
	// needs spc_t, and the SCC must allow that type.
	for _, c := range spec.Containers {
		writesHostPath := false
		for _, m := range c.VolumeMounts {
			for _, v := range spec.Volumes {
				writesHostPath = writesHostPath || (v.Name == m.Name && v.HostPath != nil && !m.ReadOnly)
			}
		}
		var seType string
		if c.SecurityContext.SELinuxOptions != nil {
			seType = c.SecurityContext.SELinuxOptions.Type
		}
		if writesHostPath {
			assert.Equal(t, "spc_t", seType, "%s writes a hostPath", c.Name)
		} else {
			assert.Empty(t, seType, "%s writes no hostPath and needs no SELinux type of its own", c.Name)
		}
	}
	scc := resourceread.ReadUnstructuredOrDie(bindata.MustAsset("metrics/scc.yaml"))
	seStrategy, _, _ := unstructured.NestedString(scc.Object, "seLinuxContext", "type")
	assert.Equal(t, "RunAsAny", seStrategy, "the SCC must admit cert-syncer's spc_t")

	same, err := RenderDaemonSet(images, tls12, "bundle-1", false)
	require.NoError(t, err)
	assert.Equal(t, ds.Spec.Template, same.Spec.Template, "rendering is deterministic")

	newCA, err := RenderDaemonSet(images, tls12, "bundle-2", false)
	require.NoError(t, err)
	assert.NotEqual(t, ds.Spec.Template.Annotations[caBundleHashAnnotation], newCA.Spec.Template.Annotations[caBundleHashAnnotation],
		"a new CA bundle rolls the pods: kube-rbac-proxy reads its upstream CA only at start")

	withClientCA, err := RenderDaemonSet(images, tls12, "bundle-1", true)
	require.NoError(t, err)
	assert.NotContains(t, spec.Containers[0].Args, "--client-ca-file="+ClientCAFile, "kube-rbac-proxy exits without the file")
	assert.Equal(t, append(append([]string{}, spec.Containers[0].Args...), "--client-ca-file="+ClientCAFile),
		withClientCA.Spec.Template.Spec.Containers[0].Args, "the client CA adds only its flag")

	_, err = RenderDaemonSet(stack.Images{}, tls12, "bundle-1", false)
	assert.Error(t, err, "missing images are an error, not an empty image")
}
