package manifests

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/fixtures/nmstateoperand"
)

// request is one API request the operator makes, as RBAC sees it, and why
// it makes it.
type request struct {
	namespace string // "" for cluster-scoped resources
	group     string
	resource  string // with "/subresource"
	name      string // "" when the request names no object (create, list, watch)
	verb      string
	why       string
}

// operatorNeeds are the requests of the operator's own machinery (its
// launcher's leader election and events, library-go's operator client and
// status controller, and the controllers in pkg/operator that are not
// stacks) and of the kube-rbac-proxy container of its pod, which runs as the
// same ServiceAccount. The operands' needs are derived from bindata/ by
// operandNeeds. A rule per line: resources and names may list several,
// space-separated.
var operatorNeeds = func() []request {
	var out []request
	add := func(why, ns, group, resources, names string, verbs ...string) {
		for _, res := range strings.Split(resources, " ") {
			for _, name := range strings.Split(names, " ") {
				for _, v := range verbs {
					out = append(out, request{ns, group, res, name, v, why})
				}
			}
		}
	}
	add("leader election creates its Lease", operatorNamespace, "coordination.k8s.io", "leases", "", "create")
	add("leader election reads and renews its Lease", operatorNamespace, "coordination.k8s.io", "leases", "cluster-node-operator-lock", "get", "update")
	add("events", operatorNamespace, "", "events", "", "create", "patch")
	add("events name the pod's Deployment", operatorNamespace, "", "pods", "", "get")
	add("events name the pod's Deployment", operatorNamespace, "apps", "replicasets", "", "get")
	add("operator client informer", "", "nodeoperator.openshift.io", "nodeoperators", "", "get", "list", "watch")
	add("conditions and status.stacks; conversion of a stack knob's old spelling", "", "nodeoperator.openshift.io", "nodeoperators/status nodeoperators", "cluster", "patch")
	add("status controller informer (by name); it deletes the ClusterOperator without NodeOperator", "", "config.openshift.io", "clusteroperators", "node", "get", "list", "watch", "delete")
	add("status controller recreates a missing ClusterOperator", "", "config.openshift.io", "clusteroperators", "", "create")
	add("status controller", "", "config.openshift.io", "clusteroperators/status", "node", "update")
	add("platform decision and leader-election topology; TLS profile of kube-rbac-proxy; feature gates (library-go's accessor, by name)", "", "config.openshift.io", "infrastructures apiservers featuregates", "cluster", "get", "list", "watch")
	add("feature gates of a build at the version placeholder: ClusterVersion's desired version (by name)", "", "config.openshift.io", "clusterversions", "version", "get", "list", "watch")
	add("CRI-O metrics node disruption policy (criometrics/disruptionpolicy.go)", "", "operator.openshift.io", "machineconfigurations", "cluster", "get", "patch")
	add("platform CRI-O metrics path: MCO's kubelet MachineConfig (crioplatform)", "", "machineconfiguration.openshift.io", "machineconfigs", "01-master-kubelet 01-worker-kubelet 01-arbiter-kubelet", "get")
	add("CRI-O metrics switching order: what is left of the own TLS stack (criometrics/path.go)", crioNamespace, "", "configmaps", "crio-metrics-ca-bundle", "get")
	add("the move of the CRI-O metrics operands: what an earlier release left (criometrics/legacy.go)", operatorNamespace, "apps", "daemonsets", "crio-metrics", "delete")
	add("the move of the CRI-O metrics operands: what an earlier release left (criometrics/legacy.go)", operatorNamespace, "", "secrets", "crio-metrics-signer crio-metrics-serving-cert", "get", "delete")
	add("the move of the CRI-O metrics operands: what an earlier release left (criometrics/legacy.go)", operatorNamespace, "", "configmaps", "crio-metrics-ca-bundle crio-metrics-client-ca", "get", "delete")
	add("the move of the CRI-O metrics operands: what an earlier release left (criometrics/legacy.go)", operatorNamespace, "", "serviceaccounts services", "crio-metrics", "get", "delete")
	add("the move of the CRI-O metrics operands: what an earlier release left (criometrics/legacy.go)", operatorNamespace, "monitoring.coreos.com", "servicemonitors prometheusrules", "crio-metrics", "get", "delete")
	add("the move of the CRI-O metrics operands: what an earlier release left (criometrics/legacy.go)", operatorNamespace, "rbac.authorization.k8s.io", "roles rolebindings", "prometheus-k8s", "get", "delete")
	add("metrics endpoint: its copy of the client CA, cached and created by server-side apply (metricsclientca)", operatorNamespace, "", "configmaps", "", "list", "watch", "create")
	add("CRI-O metrics scrape authentication: CMO's version (criometrics/scrapeauth.go)", "", "config.openshift.io", "clusteroperators", "monitoring", "get")
	add("CRI-O metrics scrape authentication: CMO's client CA (criometrics/scrapeauth.go)", "openshift-monitoring", "", "configmaps", "metrics-client-ca", "get")
	add("metrics endpoint: its copy of the client CA, server-side applied (metricsclientca)", operatorNamespace, "", "configmaps", "metrics-client-ca", "get", "patch")
	add("metrics endpoint: the API server's client CA (metricsclientca)", "kube-system", "", "configmaps", "extension-apiserver-authentication", "get")
	add("platform CRI-O metrics path: kube-rbac-proxy-crio mirror pods (crioplatform)", "openshift-machine-config-operator", "", "pods", "", "list", "watch")
	add("CRI-O metrics collection profile, cached by name (criometrics/collectionprofile.go)", "openshift-monitoring", "", "configmaps", "cluster-monitoring-config", "list", "watch")
	add("NMState: an OLM-installed NMState operator, or a Subscription to its package, anywhere (nmstate/provider.go)", "", "operators.coreos.com", "clusterserviceversions subscriptions", "", "list")
	add("NMState: whether policies exist while the stack is off (nmstate/controller.go policiesExist)", "", "nmstate.io", "nodenetworkconfigurationpolicies", "", "list")
	add("status.stacks[*].containers: NMState's DaemonSets (versioncontroller)", "openshift-nmstate", "apps", "daemonsets", "", "list", "watch")
	add("node settings: our MachineConfig per pool", "", "machineconfiguration.openshift.io", "machineconfigs", nodesettings.MachineConfigName("${POOL}"), "patch", "delete")
	add("node settings: ours by label, rendered ones by name", "", "machineconfiguration.openshift.io", "machineconfigs", "", "get", "list")
	add("node settings rollout: pools, node states, KubeletConfigs", "", "machineconfiguration.openshift.io", "machineconfigpools machineconfignodes kubeletconfigs", "", "list")
	add("node settings health gate: the nodes of the pool being verified (pkg/operator/nodesettings)", "", "", "nodes", "", "list")
	add("node settings scale-down guard: the nodes of a pool in flight (guard.go)", "", "", "nodes", "", "patch")
	add("node settings scale-down guard: a NotReady node's Machine marked for deletion (guard.go)", "", "machine.openshift.io", "machines", "", "get")
	add("node settings: is the OpenTelemetry collector API served (pkg/operator/nodesettings)", "", "opentelemetry.io", "opentelemetrycollectors", "", "list")
	add("node settings: the per-node collector (nodesettings/collector.go)", operatorNamespace, "opentelemetry.io", "opentelemetrycollectors", nodesettings.CollectorName, "get", "patch", "delete")
	add("node settings health gate: Thanos Querier's proxy authorizes queries as get namespaces (pkg/operator/nodesettings/scrape.go)", "", "", "namespaces", "", "get")
	add("the metrics endpoint's kube-rbac-proxy authenticates scrapers", "", "authentication.k8s.io", "tokenreviews", "", "create")
	add("the metrics endpoint's kube-rbac-proxy authorizes scrapers", "", "authorization.k8s.io", "subjectaccessreviews", "", "create")
	return out
}()

// prometheusBindings are the roles the manifests bind to the platform
// Prometheus: discovery of the metrics endpoint, and get on /metrics alone,
// which the Deployment's kube-rbac-proxy authorizes.
var prometheusBindings = map[string]bool{
	"Role/" + operatorNamespace + "/cluster-node-operator-prometheus": true,
	"ClusterRole/cluster-node-operator-metrics-reader":                true,
}

// grant is a rule the operator holds, cluster-wide when namespace is "".
type grant struct {
	namespace string
	rule      rbacv1.PolicyRule
	source    string
}

// readRBAC returns what the manifests grant the operator; it fails a
// binding of a role the manifests do not define, or to anyone but the
// operator and, of prometheusBindings, prometheus-k8s (whose ClusterRole
// grants get /metrics and nothing else).
func readRBAC(t *testing.T, tr *tree) []grant {
	t.Helper()
	roles := map[string][]rbacv1.PolicyRule{} // "ClusterRole/name" or "Role/ns/name" (path.Join drops "")
	for _, o := range append(tr.byKind("ClusterRole"), tr.byKind("Role")...) {
		r := &rbacv1.ClusterRole{} // a Role's fields are a ClusterRole's
		if err := o.Decode(r); err != nil {
			t.Fatal(err)
		}
		roles[path.Join(o.GetKind(), r.Namespace, r.Name)] = r.Rules
	}
	var out []grant
	metricsRule := []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}
	for _, o := range append(tr.byKind("ClusterRoleBinding"), tr.byKind("RoleBinding")...) {
		b := &rbacv1.RoleBinding{} // a ClusterRoleBinding's fields are a RoleBinding's
		if err := o.Decode(b); err != nil {
			t.Fatal(err)
		}
		ns := b.Namespace
		if b.RoleRef.Kind == "ClusterRole" {
			ns = ""
		}
		k := path.Join(b.RoleRef.Kind, ns, b.RoleRef.Name)
		rules, ok := roles[k]
		assert.Truef(t, ok, "%s: binds %s, which the manifests do not define", o, k)
		for _, s := range b.Subjects {
			switch {
			case s.Kind == "ServiceAccount" && s.Namespace == operatorNamespace && s.Name == operatorName:
				for _, r := range rules {
					out = append(out, grant{b.Namespace, r, k})
				}
			case s.Kind == "ServiceAccount" && s.Namespace == "openshift-monitoring" && s.Name == "prometheus-k8s" && prometheusBindings[k]:
				if b.RoleRef.Kind == "ClusterRole" {
					assert.Truef(t, equality.Semantic.DeepEqual(rules, metricsRule), "%s grants prometheus-k8s %+v, want %+v", o, rules, metricsRule)
				}
			default:
				t.Errorf("%s: binds %s to %s %s/%s, which is not the operator", o, k, s.Kind, s.Namespace, s.Name)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the manifests grant the operator nothing")
	}
	return out
}

// operandNeeds derives from bindata/ the requests the stacks make: each
// operand is created and deleted when its stack is removed; reads (get, list,
// watch) and writes (patch, update) are optional, either way will do.
func operandNeeds(t *testing.T, tr *tree) []request {
	t.Helper()
	var out []request
	for _, o := range append(slices.Clone(tr.operands), codeOperands()...) {
		ns, group, res, why := o.GetNamespace(), o.GroupVersionKind().Group, o.resource(), "operand "+o.String()
		if !o.known() || o.namespaced() != (ns != "") {
			t.Errorf("%s: a kind this lint does not know, or a namespace where its kind has none", o)
			continue
		}
		out = append(out, request{ns, group, res, "", "create", why})
		if neverDeleted[o.GetKind()+"/"+o.GetName()] == "" {
			out = append(out, request{ns, group, res, o.GetName(), "delete", why})
		}
		for _, v := range []string{"get", "patch", "update", "list", "watch"} {
			name := o.GetName()
			if isRead(v) && v != "get" {
				name = ""
			}
			out = append(out, request{ns, group, res, name, v, why})
		}
	}
	return out
}

// neverDeleted are operands the stacks never delete, and why.
var neverDeleted = map[string]string{
	"CustomResourceDefinition/nmstates.nmstate.io": "deleting the CRD would delete the administrator's NMState (pkg/operator/nmstate)",
}

// codeOperands are operands the operator's code creates without a manifest
// in bindata/: the CRI-O metrics certificates (pkg/certrotation), cached by
// informers, created, rotated (updated) and deleted on opt-out.
func codeOperands() []*object {
	var out []*object
	for _, kn := range [][2]string{{"Secret", certrotation.SignerSecretName}, {"Secret", certrotation.ServingSecretName}, {"ConfigMap", certrotation.CABundleName}} {
		metadata := map[string]any{"namespace": crioNamespace, "name": kn[1]}
		out = append(out, &object{&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kn[0], "metadata": metadata}}, "pkg/certrotation"})
	}
	return out
}

// TestRBACIsLeastPrivilege: docs/test-behaviours.md (EachRuleIsNeeded
// then runs without each rule); with the admission policies, which confine
// what RBAC cannot, and the narrowness of the operands' roles.
func TestRBACIsLeastPrivilege(t *testing.T) {
	tr := load(t)
	grants := readRBAC(t, tr)
	needs := slices.Concat(operatorNeeds, operandNeeds(t, tr))
	// What the operator writes, by the subject of the policy that confines
	// it; "elsewhere" are the operands outside its namespaces.
	created, escalatable := map[string]bool{}, map[string]bool{}
	written := map[string]map[string]bool{"request.namespace": {operatorNamespace: true, crioNamespace: true}, "object.metadata.name": {}, "request.name": {}, "elsewhere": {}}
	handlerRoles := nmstateHandlerRoles(t)
	for _, o := range tr.operands {
		switch o.GetKind() {
		case "Namespace":
			created[o.GetName()], written["request.namespace"][o.GetName()] = true, true
		case "ClusterRole", "Role":
			escalatable[o.GetName()], written["object.metadata.name"][o.GetName()] = true, true
			r := &rbacv1.ClusterRole{} // a Role's fields are a ClusterRole's
			if err := o.Decode(r); err != nil {
				t.Fatal(err)
			}
			for _, rule := range r.Rules {
				checkNarrow(t, fmt.Sprintf("%s rule %+v", o, rule), rule, handlerRoles, false)
			}
		case "ClusterRoleBinding", "RoleBinding":
			written["object.metadata.name"][o.GetName()] = true
		case "MachineConfig": // the CRI-O metrics drop-in, rendered once per role
			for _, role := range []string{"master", "worker"} {
				written["request.name"][strings.ReplaceAll(o.GetName(), "${ROLE}", role)] = true
			}
		}
	}
	for _, o := range tr.operands {
		if ns := o.GetNamespace(); ns != "" && !written["request.namespace"][ns] {
			written["elsewhere"][ns+"/"+o.resource()+"."+o.GroupVersionKind().Group+"/"+o.GetName()] = true
		}
	}
	c := readConfinement(t, tr, written)
	if c.namespaces == nil || c.rbacNames == nil || c.machineConfigs == nil {
		t.Fatalf("want policies confining the operator's namespaces, role and binding names, and MachineConfig names, got %+v", c)
	}
	// The node settings' MachineConfigs by pattern, of any pool.
	for _, pool := range []string{"worker", "master", "canary", "infra-1.a"} {
		name := nodesettings.MachineConfigName(pool)
		assert.Truef(t, c.machineConfigs(name), "the MachineConfig policy does not allow %s, the node settings of pool %s", name, pool)
	}
	for _, name := range []string{"99-worker-ssh", "00-worker", "rendered-worker-0123", "60-worker-node-settings-x", "01-master-kubelet"} {
		assert.Falsef(t, c.machineConfigs(name), "the MachineConfig policy allows %s, which the operator does not write", name)
	}
	for _, g := range grants {
		r := g.rule
		where := fmt.Sprintf("%s rule %+v", g.source, r)
		checkNarrow(t, where, r, escalatable, c.rbacNames != nil)
		assert.Truef(t, len(r.NonResourceURLs) == 0, "%s: the operator reads no non-resource URL beyond discovery, which every user may", where)
		if slices.Contains(r.Verbs, "create") || slices.Contains(r.Verbs, "deletecollection") {
			assert.Truef(t, len(r.ResourceNames) == 0, "%s: create and deletecollection cannot be narrowed by resourceNames (the request names no object); the rule grants nothing", where)
		}
		// Every request the rule grants is needed.
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == "bind" || v == "escalate" }) {
					for _, n := range names {
						req := request{g.namespace, group, res, n, v, ""}
						assert.Truef(t, needed(req, needs, created, c), "%s: grants %+v, which nothing needs", g.source, req)
					}
				}
			}
		}
	}
}

// checkNarrow fails a wildcard, impersonation, deleting CRDs (and with them
// every object of their kind), and bind or escalate on other roles than
// roles, or not narrowed by name (escalate may be when an admission policy
// narrows it: it is checked against the request's name, which a create
// lacks).
func checkNarrow(t *testing.T, where string, r rbacv1.PolicyRule, roles map[string]bool, escalateConfined bool) {
	t.Helper()
	assert.Truef(t, !strings.Contains(strings.Join(slices.Concat(r.Verbs, r.APIGroups, r.Resources, r.ResourceNames), " "), "*"), "%s: a wildcard", where)
	assert.Truef(t, !slices.Contains(r.Verbs, "impersonate"), "%s: impersonates", where)
	assert.Truef(t, !slices.Contains(r.Verbs, "delete") || !slices.Contains(r.Resources, "customresourcedefinitions"), "%s: deletes CRDs", where)
	for _, v := range r.Verbs {
		if v == "bind" || v == "escalate" {
			assert.Truef(t, len(r.ResourceNames) > 0 || (v == "escalate" && escalateConfined), "%s: %s must be narrowed by resourceNames", where, v)
			for _, n := range r.ResourceNames {
				assert.Truef(t, roles[n], "%s: %s on %s, which is not a role it creates", where, v, n)
			}
		}
	}
}

// nmstateHandlerRoles are the roles the NMState operator applies for its
// handler (test/fixtures/nmstateoperand), which its own may bind and
// escalate.
func nmstateHandlerRoles(t *testing.T) map[string]bool {
	phases := nmstatePhases(t)
	roles := map[string]bool{}
	for _, p := range phases {
		for _, o := range p.Objects {
			roles[o.GetName()] = roles[o.GetName()] || o.GetKind() == "Role" || o.GetKind() == "ClusterRole"
		}
	}
	return roles
}

// needed reports whether a granted request (namespace "" = every namespace,
// name "" = every object) is one the operator makes. Reads are
// interchangeable (an informer lists and watches what the operator gets) and
// may span a namespace the operator reads in; anything else granted
// cluster-wide must be narrowed by name to justify a namespaced need. A
// MachineConfig write granted for every name is needed when a need's name is
// one the MachineConfig policy allows.
func needed(g request, needs []request, created map[string]bool, c confinement) bool {
	read := isRead(g.verb)
	for _, n := range needs {
		if n.group != g.group || n.resource != g.resource {
			continue
		}
		if n.verb != g.verb && !(read && isRead(n.verb)) {
			continue
		}
		nameOK := g.name == n.name ||
			(g.name != "" && strings.Contains(n.name, "${") && variablePattern(n.name).MatchString(g.name)) ||
			(g.name == "" && read) ||
			(g.name == "" && g.resource == "machineconfigs" && c.machineConfigs(strings.NewReplacer("${", "", "}", "").Replace(strings.ToLower(n.name))))
		// A cluster-wide grant for a namespaced need must be narrowed by name,
		// unless the namespace is one the operator creates (no Role can be
		// there before it does): then reads may span the cluster, and writes
		// too when an admission policy confines them to the namespace.
		nsOK := g.namespace == n.namespace ||
			(g.namespace == "" && n.namespace != "" &&
				(g.name != "" || (created[n.namespace] && (read || c.namespaces[n.namespace]))))
		if nameOK && nsOK {
			return true
		}
	}
	return false
}

func isRead(verb string) bool { return verb == "get" || verb == "list" || verb == "watch" }

// The validation each policy must have, `<subject> in ['a', 'b']` (for
// MachineConfigs `|| request.name.matches('re')`), and a matchCondition
// that lets one object outside the confined namespaces through (namespace,
// group, resource, name).
var (
	policyValidation = regexp.MustCompile(`^(request\.namespace|object\.metadata\.name|request\.name) in \[([^\]]*)\]( \|\| request\.name\.matches\('([^']+)'\))?$`)
	policyException  = regexp.MustCompile(`^!\(request\.namespace == '([a-z0-9.-]+)' && request\.resource\.group == '([a-z0-9.-]*)' && request\.resource\.resource == '([a-z0-9]+)' && request\.name == '([a-z0-9.-]+)'\)$`)
)

// policyMatches are what each policy must match (its matchConstraints), by
// the subject of its validation: every namespaced write, every write of a
// role or binding, every write of a MachineConfig.
var policyMatches = map[string]string{
	"request.namespace":    `{"resourceRules":[{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*/*"],"scope":"Namespaced"}]}`,
	"object.metadata.name": `{"resourceRules":[{"operations":["CREATE","UPDATE"],"apiGroups":["rbac.authorization.k8s.io"],"apiVersions":["*"],"resources":["clusterroles","clusterrolebindings","roles","rolebindings"]}]}`,
	"request.name":         `{"resourceRules":[{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":["machineconfiguration.openshift.io"],"apiVersions":["*"],"resources":["machineconfigs"]}]}`,
}

// confinement is what the manifests' ValidatingAdmissionPolicies, bound with
// Deny, enforce on the operator's ServiceAccount (nil: not confined).
type confinement struct {
	namespaces     map[string]bool        // of every namespaced write
	rbacNames      map[string]bool        // of the roles and bindings it writes
	machineConfigs func(name string) bool // of the MachineConfigs it writes
}

// readConfinement reads the policies; each must allow exactly what the
// operator writes (written, by the subject of the validation; the
// namespace policy lets through the operands "elsewhere", and only them).
func readConfinement(t *testing.T, tr *tree, written map[string]map[string]bool) confinement {
	t.Helper()
	bound := map[string]bool{}
	for _, o := range tr.byKind("ValidatingAdmissionPolicyBinding") {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		ok := o.Decode(b) == nil && slices.Equal(b.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) &&
			b.Spec.ParamRef == nil && b.Spec.MatchResources == nil
		bound[b.Spec.PolicyName] = ok
		assert.Truef(t, ok, "%s: bind with validationActions [Deny] only, and no parameters or resource selection", o)
	}
	username := "system:serviceaccount:" + operatorNamespace + ":" + operatorName
	var out confinement
	for _, o := range tr.byKind("ValidatingAdmissionPolicy") {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := o.Decode(p); err != nil || !bound[p.Name] || len(p.Spec.Validations) != 1 || p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != admissionregistrationv1.Fail ||
			len(p.Spec.MatchConditions) < 1 || p.Spec.MatchConditions[0].Expression != "request.userInfo.username == '"+username+"'" {
			t.Errorf("%s: want it bound, one validation, failurePolicy Fail (an error must not let writes through) and the first matchCondition request.userInfo.username == '%s'", o, username)
			continue
		}
		match, err := json.Marshal(p.Spec.MatchConstraints)
		if err != nil {
			t.Fatal(err)
		}
		expression := p.Spec.Validations[0].Expression
		m := policyValidation.FindStringSubmatch(expression)
		if m == nil || string(match) != policyMatches[m[1]] || m[2] != "'"+strings.Join(slices.Sorted(maps.Keys(written[m[1]])), "', '")+"'" || (m[4] == "") == (m[1] == "request.name") {
			t.Errorf("%s: validation %q matching %s: want one of %v, allowing (sorted) exactly what the operator writes, %v", o, expression, match, policyMatches, written)
			continue
		}
		exceptions, want := map[string]bool{}, map[string]bool{}
		for _, mc := range p.Spec.MatchConditions[1:] {
			e := mc.Name // unless it is an exception for one named object
			if x := policyException.FindStringSubmatch(strings.Join(strings.Fields(mc.Expression), " ")); x != nil {
				e = x[1] + "/" + x[3] + "." + x[2] + "/" + x[4]
			}
			exceptions[e] = true
		}
		switch names := written[m[1]]; m[1] {
		case "request.namespace":
			out.namespaces, want = names, written["elsewhere"]
		case "object.metadata.name":
			out.rbacNames = names
		default:
			pattern, err := regexp.Compile(m[4])
			if err != nil {
				t.Errorf("%s: %v", o, err)
				continue
			}
			out.machineConfigs = func(n string) bool { return names[n] || pattern.MatchString(n) }
		}
		assert.Truef(t, maps.Equal(exceptions, want), "%s: lets %v through, want the operands outside its namespaces %v", o, slices.Sorted(maps.Keys(exceptions)), slices.Sorted(maps.Keys(want)))
	}
	return out
}

// nmstatePhases is what the NMState operator applies, in its order.
func nmstatePhases(t *testing.T) []nmstateoperand.Phase {
	phases, err := nmstateoperand.Phases(nmstateoperand.Env{
		"HANDLER_NAMESPACE": nmstateNamespace, "OPERATOR_NAMESPACE": nmstateNamespace, "MONITORING_NAMESPACE": "openshift-monitoring",
		"HANDLER_IMAGE": "handler", "KUBE_RBAC_PROXY_IMAGE": "proxy", "PLUGIN_IMAGE": "plugin",
	})
	if err != nil {
		t.Fatal(err)
	}
	return phases
}
