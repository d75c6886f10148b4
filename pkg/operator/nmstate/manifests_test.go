package nmstate

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/openshift/cluster-node-operator/bindata"
)

func TestEveryManifestIsUsedAndLabelled(t *testing.T) {
	names, err := bindata.Names("nmstate")
	require.NoError(t, err)
	used := map[string]bool{crdFile: true, deploymentFile: true, crFile: true}
	for _, f := range staticFiles {
		used[f] = true
	}
	for _, name := range names {
		assert.True(t, used[name], "%s is embedded but never applied", name)
		assert.Equal(t, StackLabelValue, manifest(t, name).GetLabels()[StackLabel],
			"%s lacks the label that lets removal tell the stack's objects from others'", name)
	}
}

func TestDeploymentFollowsThePlatformConventions(t *testing.T) {
	d, err := readDeployment(imagesFrom(testImages))
	require.NoError(t, err)
	spec := d.Spec.Template.Spec
	assert.Equal(t, map[string]string{"node-role.kubernetes.io/master": ""}, spec.NodeSelector)
	assert.Contains(t, spec.Tolerations, corev1.Toleration{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	assert.Equal(t, "system-cluster-critical", spec.PriorityClassName)
	assert.Equal(t, "nmstate-operator", spec.ServiceAccountName)
	require.Len(t, spec.Containers, 1)
	c := spec.Containers[0]
	assert.Equal(t, testImages.NMStateOperator, c.Image)
	assert.NotEmpty(t, c.Resources.Requests, "requests are set")
	assert.Empty(t, c.Resources.Limits, "no limits")
	assert.Equal(t, corev1.TerminationMessageFallbackToLogsOnError, c.TerminationMessagePolicy)
	require.NotNil(t, c.SecurityContext)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.True(t, *c.SecurityContext.RunAsNonRoot)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			env[e.Name] = "fieldRef:" + e.ValueFrom.FieldRef.FieldPath
		}
	}
	// The names the NMState operator reads (openshift/kubernetes-nmstate at
	// 32524b06), and upstream's name for the handler image.
	assert.Equal(t, testImages.NMStateHandler, env["HANDLER_IMAGE"])
	assert.Equal(t, testImages.NMStateHandler, env["RELATED_IMAGE_HANDLER_IMAGE"])
	assert.Equal(t, testImages.NMStatePlugin, env["PLUGIN_IMAGE"])
	assert.Equal(t, testImages.KubeRBACProxy, env["KUBE_RBAC_PROXY_IMAGE"])
	assert.Equal(t, "fieldRef:metadata.namespace", env["HANDLER_NAMESPACE"])
	assert.Equal(t, "fieldRef:metadata.namespace", env["OPERATOR_NAMESPACE"])
}

func TestRBACIsNarrow(t *testing.T) {
	var rules []rbacv1.PolicyRule
	for _, f := range []string{"nmstate/clusterrole.yaml", "nmstate/role.yaml"} {
		switch r := resourceread.ReadGenericWithUnstructuredOrDie(bindata.MustAsset(f)).(type) {
		case *rbacv1.ClusterRole:
			rules = append(rules, r.Rules...)
		case *rbacv1.Role:
			rules = append(rules, r.Rules...)
		default:
			t.Fatalf("%s: unexpected %T", f, r)
		}
	}
	for _, r := range rules {
		for _, v := range r.Verbs {
			assert.NotContains(t, []string{"*", "impersonate"}, v, "rule %+v", r)
			if v == "escalate" || v == "bind" {
				assert.NotEmpty(t, r.ResourceNames, "%s is narrowed to the handler's role names: rule %+v", v, r)
			}
			if v == "delete" {
				assert.NotContains(t, r.Resources, "customresourcedefinitions", "the NMState operator must not be able to delete CRDs")
			}
		}
		assert.NotContains(t, r.Resources, "*", "rule %+v", r)
		assert.NotContains(t, r.APIGroups, "*", "rule %+v", r)
	}
}

func TestRelatedObjectsIncludeTheNMStateCR(t *testing.T) {
	related, err := relatedObjects()
	require.NoError(t, err)
	assert.Contains(t, related, configv1.ObjectReference{Group: "nmstate.io", Resource: "nmstates", Name: "nmstate"})
	assert.Contains(t, related, configv1.ObjectReference{Group: "apps", Resource: "deployments", Namespace: Namespace, Name: DeploymentName})
	assert.Contains(t, related, configv1.ObjectReference{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "nmstates.nmstate.io"})
}
