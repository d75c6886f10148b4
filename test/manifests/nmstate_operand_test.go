package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-helpers/auth/rbac/validation"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/test/fixtures/nmstateoperand"
)

// The NMState operator's side (test/fixtures/nmstateoperand) against the
// ClusterRole and Role the stack gives it, with Kubernetes' own coverage
// check: the escalation check of the API server asks the same question. The
// e2e test double puts the same requests to a real API server.

var operandEnv = nmstateoperand.Env{
	"HANDLER_NAMESPACE": nmstateNamespace, "OPERATOR_NAMESPACE": nmstateNamespace, "MONITORING_NAMESPACE": "openshift-monitoring",
	"HANDLER_IMAGE": "handler", "KUBE_RBAC_PROXY_IMAGE": "proxy", "PLUGIN_IMAGE": "plugin",
}

// nmstateOperatorRules are the rules that apply to the NMState operator in
// a namespace ("" for cluster-wide requests): its ClusterRole's everywhere,
// its Role's in openshift-nmstate.
func nmstateOperatorRules(t *testing.T, namespace string) []rbacv1.PolicyRule {
	t.Helper()
	var cr rbacv1.ClusterRole
	var role rbacv1.Role
	for file, into := range map[string]any{"nmstate/clusterrole.yaml": &cr, "nmstate/role.yaml": &role} {
		require.NoError(t, yaml.Unmarshal(bindata.MustAsset(file), into))
	}
	if namespace == role.Namespace {
		return append(append([]rbacv1.PolicyRule{}, cr.Rules...), role.Rules...)
	}
	return cr.Rules
}

func rule(verb, group, resource, name string) rbacv1.PolicyRule {
	r := rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{resource}}
	if name != "" {
		r.ResourceNames = []string{name}
	}
	return r
}

func TestNMStateOperatorMayMakeItsRequests(t *testing.T) {
	requests, err := nmstateoperand.Requests(operandEnv)
	require.NoError(t, err)
	phases, err := nmstateoperand.Phases(operandEnv)
	require.NoError(t, err)
	for _, p := range phases {
		for _, o := range p.Objects {
			info, ok := kinds[o.GroupVersionKind().GroupKind()]
			require.True(t, ok, "kind %s is not known to this lint; add it to kinds", o.GroupVersionKind().GroupKind())
			// Server-side apply: a patch, authorized as a create of that
			// name when the object is new.
			for _, verb := range []string{"create", "patch"} {
				requests = append(requests, nmstateoperand.Request{Verb: verb, Group: o.GroupVersionKind().Group,
					Resource: info.resource, Namespace: o.GetNamespace(), Name: o.GetName()})
			}
		}
	}
	for _, r := range requests {
		ok, _ := validation.Covers(nmstateOperatorRules(t, r.Namespace), []rbacv1.PolicyRule{rule(r.Verb, r.Group, r.Resource, r.Name)})
		assert.True(t, ok, "the NMState operator (%s) may not %s", nmstateoperand.Commit, r)
	}
}

// TestNMStateOperatorMayGrantTheHandlersRoles: every role the NMState
// operator applies for its handler is one it may create, by holding its
// rules or by escalate on that role's name, and every binding one it may
// create, by bind on the role's name or by holding its rules.
func TestNMStateOperatorMayGrantTheHandlersRoles(t *testing.T) {
	phases, err := nmstateoperand.Phases(operandEnv)
	require.NoError(t, err)
	type ref struct{ kind, namespace, name string }
	roles := map[ref][]rbacv1.PolicyRule{}
	var bindings []struct{ namespace, kind, name string }
	for _, p := range phases {
		for _, o := range p.Objects {
			switch o.GetKind() {
			case "Role", "ClusterRole":
				var r rbacv1.ClusterRole
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &r))
				roles[ref{o.GetKind(), o.GetNamespace(), o.GetName()}] = r.Rules
				held, _ := validation.Covers(nmstateOperatorRules(t, o.GetNamespace()), r.Rules)
				resource := map[string]string{"Role": "roles", "ClusterRole": "clusterroles"}[o.GetKind()]
				escalates, _ := validation.Covers(nmstateOperatorRules(t, o.GetNamespace()),
					[]rbacv1.PolicyRule{rule("escalate", rbacv1.GroupName, resource, o.GetName())})
				assert.True(t, held || escalates, "the NMState operator may not create %s %s/%s: it neither holds its rules nor may escalate on it",
					o.GetKind(), o.GetNamespace(), o.GetName())
			case "RoleBinding", "ClusterRoleBinding":
				var b rbacv1.ClusterRoleBinding
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b))
				bindings = append(bindings, struct{ namespace, kind, name string }{o.GetNamespace(), b.RoleRef.Kind, b.RoleRef.Name})
			}
		}
	}
	for _, b := range bindings {
		ns := b.namespace
		if b.kind == "ClusterRole" {
			ns = ""
		}
		resource := map[string]string{"Role": "roles", "ClusterRole": "clusterroles"}[b.kind]
		binds, _ := validation.Covers(nmstateOperatorRules(t, b.namespace), []rbacv1.PolicyRule{rule("bind", rbacv1.GroupName, resource, b.name)})
		held, _ := validation.Covers(nmstateOperatorRules(t, b.namespace), roles[ref{b.kind, ns, b.name}])
		assert.True(t, binds || held, "the NMState operator may not bind %s %s in %q", b.kind, b.name, b.namespace)
	}

	// escalate and bind name nothing but the handler's roles.
	names := map[string]bool{}
	for r := range roles {
		names[r.name] = true
	}
	for _, r := range nmstateOperatorRules(t, nmstateNamespace) {
		for _, v := range r.Verbs {
			if v == "escalate" || v == "bind" {
				for _, name := range r.ResourceNames {
					assert.True(t, names[name], "%s on %v %s: the NMState operator applies no role of that name", v, r.Resources, name)
				}
			}
		}
	}
}
