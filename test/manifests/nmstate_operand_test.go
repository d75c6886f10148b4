package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/test/fixtures/nmstateoperand"
)

// TestNMStateOperatorRBACIsNarrow: docs/test-behaviours.md (what it may do
// is proven live by TestNMState's testOperandDeploysItsHandler).
func TestNMStateOperatorRBACIsNarrow(t *testing.T) {
	phases, err := nmstateoperand.Phases(nmstateoperand.Env{
		"HANDLER_NAMESPACE": nmstateNamespace, "OPERATOR_NAMESPACE": nmstateNamespace, "MONITORING_NAMESPACE": "openshift-monitoring",
		"HANDLER_IMAGE": "handler", "KUBE_RBAC_PROXY_IMAGE": "proxy", "PLUGIN_IMAGE": "plugin",
	})
	require.NoError(t, err)
	roles := map[string]bool{}
	for _, p := range phases {
		for _, o := range p.Objects {
			if o.GetKind() == "Role" || o.GetKind() == "ClusterRole" {
				roles[o.GetName()] = true
			}
		}
	}
	var cr rbacv1.ClusterRole
	var role rbacv1.Role
	require.NoError(t, yaml.Unmarshal(bindata.MustAsset("nmstate/clusterrole.yaml"), &cr))
	require.NoError(t, yaml.Unmarshal(bindata.MustAsset("nmstate/role.yaml"), &role))
	for _, r := range append(cr.Rules, role.Rules...) {
		assert.NotContains(t, r.Resources, "*", "rule %+v", r)
		assert.NotContains(t, r.APIGroups, "*", "rule %+v", r)
		for _, v := range r.Verbs {
			assert.NotContains(t, []string{"*", "impersonate"}, v, "rule %+v", r)
			if v == "delete" {
				assert.NotContains(t, r.Resources, "customresourcedefinitions", "the NMState operator must not be able to delete CRDs")
			}
			if v == "escalate" || v == "bind" {
				assert.NotEmpty(t, r.ResourceNames, "%s is narrowed to the handler's role names: rule %+v", v, r)
				for _, name := range r.ResourceNames {
					assert.True(t, roles[name], "%s on %v %s: the NMState operator applies no role of that name", v, r.Resources, name)
				}
			}
		}
	}
}
