package manifests

import (
	"fmt"
	"maps"
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
)

// request is one API request the operator makes, as RBAC sees it.
type request struct {
	namespace string // "" for cluster-scoped resources
	group     string
	resource  string // with "/subresource"
	name      string // "" when the request names no object (create, list, watch)
	verb      string
}

// need is a request with the reason the operator makes it.
type need struct {
	request
	why string
}

// operatorNeeds are the requests of the operator's own machinery (its
// launcher's leader election and events, library-go's operator client and
// status controller, and the controllers in pkg/operator that are not
// stacks) and of the kube-rbac-proxy container of its pod, which runs as the
// same ServiceAccount. The operands' needs are derived from bindata/ by
// operandNeeds.
var operatorNeeds = func() []need {
	var out []need
	add := func(why string, ns, group, resource, name string, verbs ...string) {
		for _, v := range verbs {
			out = append(out, need{request{ns, group, resource, name, v}, why})
		}
	}
	add("leader election creates its Lease", operatorNamespace, "coordination.k8s.io", "leases", "", "create")
	add("leader election reads and renews its Lease", operatorNamespace, "coordination.k8s.io", "leases", "cluster-node-operator-lock", "get", "update")
	add("events", operatorNamespace, "", "events", "", "create", "patch")
	add("events name the pod's Deployment", operatorNamespace, "", "pods", "", "get")
	add("events name the pod's Deployment", operatorNamespace, "apps", "replicasets", "", "get")
	add("operator client informer", "", "nodeoperator.openshift.io", "nodeoperators", "", "get", "list", "watch")
	add("conditions and status.stacks", "", "nodeoperator.openshift.io", "nodeoperators/status", "cluster", "patch")
	add("conversion of a stack knob's old spelling", "", "nodeoperator.openshift.io", "nodeoperators", "cluster", "patch")
	add("status controller informer (by name)", "", "config.openshift.io", "clusteroperators", "node", "get", "list", "watch")
	add("status controller recreates a missing ClusterOperator", "", "config.openshift.io", "clusteroperators", "", "create")
	add("status controller deletes the ClusterOperator without NodeOperator", "", "config.openshift.io", "clusteroperators", "node", "delete")
	add("status controller", "", "config.openshift.io", "clusteroperators/status", "node", "update")
	add("platform decision and leader-election topology", "", "config.openshift.io", "infrastructures", "cluster", "get", "list", "watch")
	add("TLS profile of kube-rbac-proxy", "", "config.openshift.io", "apiservers", "cluster", "get", "list", "watch")
	add("feature gates (library-go's accessor, by name)", "", "config.openshift.io", "featuregates", "cluster", "get", "list", "watch")
	add("feature gates of a build at the version placeholder: ClusterVersion's desired version (by name)", "", "config.openshift.io", "clusterversions", "version", "get", "list", "watch")
	add("CRI-O metrics node disruption policy (criometrics/disruptionpolicy.go)", "", "operator.openshift.io", "machineconfigurations", "cluster", "get", "patch")
	for _, role := range []string{"master", "worker", "arbiter"} {
		add("platform CRI-O metrics path: MCO's kubelet MachineConfig (crioplatform)", "", "machineconfiguration.openshift.io", "machineconfigs", "01-"+role+"-kubelet", "get")
	}
	add("CRI-O metrics switching order: what is left of the own TLS stack (criometrics/path.go)", operatorNamespace, "", "configmaps", "crio-metrics-ca-bundle", "get")
	add("CRI-O metrics scrape authentication: CMO's version (criometrics/scrapeauth.go)", "", "config.openshift.io", "clusteroperators", "monitoring", "get")
	add("CRI-O metrics scrape authentication: CMO's client CA (criometrics/scrapeauth.go)", "openshift-monitoring", "", "configmaps", "metrics-client-ca", "get")
	add("metrics endpoint: its copy of the client CA, server-side applied (metricsclientca)", operatorNamespace, "", "configmaps", "metrics-client-ca", "get", "patch")
	add("metrics endpoint: the API server's client CA (metricsclientca)", "kube-system", "", "configmaps", "extension-apiserver-authentication", "get")
	add("platform CRI-O metrics path: kube-rbac-proxy-crio mirror pods (crioplatform)", "openshift-machine-config-operator", "", "pods", "", "list", "watch")
	add("CRI-O metrics collection profile, cached by name (criometrics/collectionprofile.go)", "openshift-monitoring", "", "configmaps", "cluster-monitoring-config", "list", "watch")
	add("NMState: an OLM-installed NMState operator anywhere (nmstate/provider.go)", "", "operators.coreos.com", "clusterserviceversions", "", "list")
	add("NMState: a Subscription to its package anywhere (nmstate/provider.go)", "", "operators.coreos.com", "subscriptions", "", "list")
	add("status.stacks[*].containers: NMState's DaemonSets (versioncontroller)", "openshift-nmstate", "apps", "daemonsets", "", "list", "watch")
	add("node settings: our MachineConfig per pool", "", "machineconfiguration.openshift.io", "machineconfigs", nodesettings.MachineConfigName("${POOL}"), "patch", "delete")
	add("node settings: ours by label, rendered ones by name", "", "machineconfiguration.openshift.io", "machineconfigs", "", "get", "list")
	for _, r := range []string{"machineconfigpools", "machineconfignodes", "kubeletconfigs"} {
		add("node settings rollout: pools, node states, KubeletConfigs", "", "machineconfiguration.openshift.io", r, "", "list")
	}
	add("node settings health gate: the nodes of the pool being verified (pkg/operator/nodesettings)", "", "", "nodes", "", "list")
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
	roles := map[string][]rbacv1.PolicyRule{} // "ClusterRole/name" or "Role/ns/name"
	key := func(kind, ns, name string) string {
		return strings.Join(slices.DeleteFunc([]string{kind, ns, name}, func(s string) bool { return s == "" }), "/")
	}
	for _, o := range append(tr.byKind("ClusterRole"), tr.byKind("Role")...) {
		r := &rbacv1.ClusterRole{} // a Role's fields are a ClusterRole's
		if err := o.Decode(r); err != nil {
			t.Fatal(err)
		}
		roles[key(o.GetKind(), r.Namespace, r.Name)] = r.Rules
	}
	var out []grant
	metricsRule := []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}
	prometheusMayScrape := false
	for _, o := range append(tr.byKind("ClusterRoleBinding"), tr.byKind("RoleBinding")...) {
		b := &rbacv1.RoleBinding{} // a ClusterRoleBinding's fields are a RoleBinding's
		if err := o.Decode(b); err != nil {
			t.Fatal(err)
		}
		ns := b.Namespace
		if b.RoleRef.Kind == "ClusterRole" {
			ns = ""
		}
		k := key(b.RoleRef.Kind, ns, b.RoleRef.Name)
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
					prometheusMayScrape = true
					assert.Truef(t, equality.Semantic.DeepEqual(rules, metricsRule), "%s grants prometheus-k8s %+v, want %+v", o, rules, metricsRule)
				}
			default:
				t.Errorf("%s: binds %s to %s %s/%s, which is not the operator", o, k, s.Kind, s.Namespace, s.Name)
			}
		}
	}
	assert.Truef(t, prometheusMayScrape, "no ClusterRole of the manifests lets prometheus-k8s get /metrics")
	if len(out) == 0 {
		t.Fatal("the manifests grant the operator nothing")
	}
	return out
}

// operandNeeds derives from bindata/ the requests the stacks make: each
// operand is created and deleted when its stack is removed; reads (get, list,
// watch) and writes (patch, update) are optional, either way will do.
func operandNeeds(t *testing.T, tr *tree) (needs, optional []need) {
	t.Helper()
	for _, o := range append(append([]*object{}, tr.operands...), codeOperands()...) {
		ns, group, res, why := o.GetNamespace(), o.GroupVersionKind().Group, o.resource(), "operand "+o.String()
		if !o.known() || o.namespaced() != (ns != "") {
			t.Errorf("%s: a kind this lint does not know, or a namespace where its kind has none", o)
			continue
		}
		needs = append(needs, need{request{ns, group, res, "", "create"}, why})
		if neverDeleted[o.GetKind()+"/"+o.GetName()] == "" {
			needs = append(needs, need{request{ns, group, res, o.GetName(), "delete"}, why})
		}
		for _, v := range []string{"get", "patch", "update", "list", "watch"} {
			name := o.GetName()
			if isRead(v) && v != "get" {
				name = ""
			}
			optional = append(optional, need{request{ns, group, res, name, v}, why})
		}
	}
	return needs, optional
}

// neverDeleted are operands the stacks never delete, and why.
var neverDeleted = map[string]string{
	"CustomResourceDefinition/nmstates.nmstate.io": "deleting the CRD would delete the administrator's NMState (pkg/operator/nmstate)",
}

// codeOperands are operands the operator's code creates without a manifest
// in bindata/: the CRI-O metrics certificates (pkg/certrotation), cached by
// informers, created, rotated (updated) and deleted on opt-out.
func codeOperands() []*object {
	mk := func(kind, name string) *object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		u.SetNamespace(operatorNamespace)
		u.SetName(name)
		return &object{Unstructured: u, File: "pkg/certrotation"}
	}
	return []*object{
		mk("Secret", certrotation.SignerSecretName),
		mk("Secret", certrotation.ServingSecretName),
		mk("ConfigMap", certrotation.CABundleName),
	}
}

// TestRBACIsLeastPrivilege: docs/test-behaviours.md (EachRuleIsNeeded
// then runs without each rule).
func TestRBACIsLeastPrivilege(t *testing.T) {
	tr := load(t)
	grants := readRBAC(t, tr)
	needs, optional := operandNeeds(t, tr)
	needs = append(append(append([]need{}, operatorNeeds...), needs...), optional...)
	c := readConfinement(t, tr)
	created, escalatable := map[string]bool{}, map[string]bool{}
	for _, o := range tr.operands {
		created[o.GetName()] = created[o.GetName()] || o.GetKind() == "Namespace"
		escalatable[o.GetName()] = escalatable[o.GetName()] || o.GetKind() == "ClusterRole" || o.GetKind() == "Role"
	}
	for _, g := range grants {
		r := g.rule
		where := fmt.Sprintf("%s rule %+v", g.source, r)
		assert.Truef(t, !strings.Contains(strings.Join(slices.Concat(r.Verbs, r.APIGroups, r.Resources, r.ResourceNames), " "), "*"), "%s: a wildcard", where)
		assert.Truef(t, len(r.NonResourceURLs) == 0, "%s: the operator reads no non-resource URL beyond discovery, which every user may", where)
		assert.Truef(t, !slices.Contains(r.Verbs, "impersonate"), "%s: the operator impersonates no one", where)
		for _, v := range r.Verbs {
			switch v {
			case "create", "deletecollection":
				assert.Truef(t, len(r.ResourceNames) == 0, "%s: %s cannot be narrowed by resourceNames (the request names no object); the rule grants nothing", where, v)
			case "bind", "escalate":
				// escalate is checked against the request's name, which a
				// create lacks; an admission policy narrows it instead.
				assert.Truef(t, len(r.ResourceNames) > 0 || (v == "escalate" && c.rbacNames != nil), "%s: %s must be narrowed by resourceNames", where, v)
				for _, n := range r.ResourceNames {
					assert.Truef(t, escalatable[n], "%s: %s on %s, which is not a role the operator creates", where, v, n)
				}
			}
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
						req := request{g.namespace, group, res, n, v}
						assert.Truef(t, needed(req, needs, created, c.namespaces, c.writeNames), "%s: grants %+v, which nothing needs", g.source, req)
					}
				}
			}
		}
	}
}

// needed reports whether a granted request (namespace "" = every namespace,
// name "" = every object) is one the operator makes. Reads are
// interchangeable (an informer lists and watches what the operator gets) and
// may span a namespace the operator reads in; anything else granted
// cluster-wide must be narrowed by name to justify a namespaced need.
//
// writeNames are the resources whose writes an admission policy confines
// by name: a write granted for every name is needed when a need's name is
// one the policy allows.
func needed(g request, needs []need, created, confined map[string]bool, writeNames map[string]func(string) bool) bool {
	read := isRead(g.verb)
	allowed := writeNames[g.group+"/"+g.resource]
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
			(g.name == "" && allowed != nil && allowed(strings.NewReplacer("${", "", "}", "").Replace(strings.ToLower(n.name))))
		// A cluster-wide grant for a namespaced need must be narrowed by name,
		// unless the namespace is one the operator creates (no Role can be
		// there before it does): then reads may span the cluster, and writes
		// too when an admission policy confines them to the namespace.
		nsOK := g.namespace == n.namespace ||
			(g.namespace == "" && n.namespace != "" &&
				(g.name != "" || (created[n.namespace] && (read || confined[n.namespace]))))
		if nameOK && nsOK {
			return true
		}
	}
	return false
}

func isRead(verb string) bool { return verb == "get" || verb == "list" || verb == "watch" }

// The validations and exceptions the lint reads from the policies:
// `<subject> in ['a', 'b']`, `request.name in [...] || request.name.matches('re')`,
// and a matchCondition that lets one object outside the confined
// namespaces through (namespace, group, resource, name).
var (
	policyList           = regexp.MustCompile(`^(request\.namespace|object\.metadata\.name) in \[((?:'[a-z0-9.-]+'(?:, )?)+)\]$`)
	policyNamesOrPattern = regexp.MustCompile(`^request\.name in \[((?:'[a-z0-9.-]+'(?:, )?)+)\] \|\| request\.name\.matches\('([^']+)'\)$`)
	policyException      = regexp.MustCompile(`^!\(request\.namespace == '([a-z0-9.-]+)' && request\.resource\.group == '([a-z0-9.-]*)' && request\.resource\.resource == '([a-z0-9]+)' && request\.name == '([a-z0-9.-]+)'\)$`)
)

// policyMatches are what each kind of policy must match: every namespaced
// write, every write of a role or binding, every write of a MachineConfig.
var policyMatches = map[string]string{
	"request.namespace":    "* * */* Namespaced CREATE,DELETE,UPDATE",
	"object.metadata.name": "rbac.authorization.k8s.io * clusterrolebindings,clusterroles,rolebindings,roles  CREATE,UPDATE",
	"request.name":         "machineconfiguration.openshift.io * machineconfigs  CREATE,DELETE,UPDATE",
}

// confinement is what the manifests' ValidatingAdmissionPolicies, bound with
// Deny, enforce on the operator's ServiceAccount (nil: not confined).
type confinement struct {
	namespaces map[string]bool // of every namespaced write
	exceptions []string        // "namespace/resource.group/name" let through anyway
	rbacNames  map[string]bool // of the roles and bindings it writes
	// writeNames confines the names of the objects of a resource
	// ("group/resource") it writes; the MachineConfigs' by a list or a pattern.
	writeNames           map[string]func(string) bool
	machineConfigNames   map[string]bool
	machineConfigPattern *regexp.Regexp
}

// sortedJoin joins the strings sorted.
func sortedJoin[S ~string](in []S) string {
	out := make([]string, 0, len(in))
	for _, x := range in {
		out = append(out, string(x))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// quoted is the set of a CEL list's 'quoted' strings.
func quoted(list string) map[string]bool {
	out := map[string]bool{}
	for _, x := range strings.Split(list, ", ") {
		out[strings.Trim(x, "'")] = true
	}
	return out
}

func readConfinement(t *testing.T, tr *tree) confinement {
	t.Helper()
	bound := map[string]bool{}
	for _, o := range tr.byKind("ValidatingAdmissionPolicyBinding") {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		ok := o.Decode(b) == nil && sortedJoin(b.Spec.ValidationActions) == "Deny" && b.Spec.ParamRef == nil && b.Spec.MatchResources == nil
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
		var exceptions []string
		for _, mc := range p.Spec.MatchConditions[1:] {
			m := policyException.FindStringSubmatch(strings.Join(strings.Fields(mc.Expression), " "))
			if m == nil {
				t.Errorf("%s: matchCondition %q is not an exception for one named object", o, mc.Name)
				continue
			}
			exceptions = append(exceptions, m[1]+"/"+m[3]+"."+m[2]+"/"+m[4])
		}
		match := "narrowed"
		if mc := p.Spec.MatchConstraints; mc != nil && len(mc.ResourceRules) == 1 && mc.ResourceRules[0].ResourceNames == nil &&
			(mc.NamespaceSelector == nil || len(mc.NamespaceSelector.MatchLabels)+len(mc.NamespaceSelector.MatchExpressions) == 0) {
			r, scope := mc.ResourceRules[0], ""
			if r.Scope != nil {
				scope = string(*r.Scope)
			}
			match = strings.Join([]string{sortedJoin(r.APIGroups), sortedJoin(r.APIVersions), sortedJoin(r.Resources), scope, sortedJoin(r.Operations)}, " ")
		}
		expression, subject := p.Spec.Validations[0].Expression, "request.name"
		m := policyNamesOrPattern.FindStringSubmatch(expression)
		if m == nil {
			if m = policyList.FindStringSubmatch(expression); m != nil {
				subject = m[1]
			}
		}
		if m == nil || match != policyMatches[subject] || (len(exceptions) > 0 && subject != "request.namespace") {
			t.Errorf("%s: validation %q matching %q: want one of %v, exceptions only to the namespaces", o, expression, match, policyMatches)
			continue
		}
		switch subject {
		case "request.name":
			pattern, err := regexp.Compile(m[2])
			if err != nil {
				t.Errorf("%s: %v", o, err)
				continue
			}
			names := quoted(m[1])
			out.machineConfigNames, out.machineConfigPattern = names, pattern
			out.writeNames = map[string]func(string) bool{"machineconfiguration.openshift.io/machineconfigs": func(n string) bool { return names[n] || pattern.MatchString(n) }}
		case "request.namespace":
			out.namespaces, out.exceptions = quoted(m[2]), exceptions
		default:
			out.rbacNames = quoted(m[2])
		}
	}
	return out
}

// TestAdmissionPoliciesConfineTheOperator: docs/test-behaviours.md.
func TestAdmissionPoliciesConfineTheOperator(t *testing.T) {
	tr := load(t)
	c := readConfinement(t, tr)
	namespaces, rbacNames, machineConfigs := map[string]bool{operatorNamespace: true}, map[string]bool{}, map[string]bool{}
	for _, o := range tr.operands {
		switch o.GetKind() {
		case "Namespace":
			namespaces[o.GetName()] = true
		case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			rbacNames[o.GetName()] = true
		case "MachineConfig": // the CRI-O metrics drop-in, rendered once per role
			for _, role := range []string{"master", "worker"} {
				machineConfigs[strings.ReplaceAll(o.GetName(), "${ROLE}", role)] = true
			}
		}
	}
	for _, e := range c.exceptions {
		assert.Truef(t, slices.ContainsFunc(tr.operands, func(o *object) bool {
			return o.GetNamespace()+"/"+o.resource()+"."+o.GroupVersionKind().Group+"/"+o.GetName() == e
		}), "the namespace policy lets %s through, which is no operand of the operator", e)
	}
	// The node settings' MachineConfigs by pattern, of any pool.
	if c.machineConfigPattern == nil {
		t.Fatal("no ValidatingAdmissionPolicy confines the names of the operator's MachineConfigs")
	}
	for _, pool := range []string{"worker", "master", "canary", "infra-1.a"} {
		name := nodesettings.MachineConfigName(pool)
		assert.Truef(t, c.machineConfigPattern.MatchString(name), "the MachineConfig policy does not allow %s, the node settings of pool %s", name, pool)
	}
	for _, name := range []string{"99-worker-ssh", "00-worker", "rendered-worker-0123", "60-worker-node-settings-x", "01-master-kubelet"} {
		assert.Truef(t, !c.machineConfigPattern.MatchString(name) && !c.machineConfigNames[name], "the MachineConfig policy allows %s, which the operator does not write", name)
	}
	for what, pair := range map[string][2]map[string]bool{"namespaces": {c.namespaces, namespaces}, "role and binding names": {c.rbacNames, rbacNames}, "MachineConfig names": {c.machineConfigNames, machineConfigs}} {
		assert.Truef(t, pair[0] != nil && maps.Equal(pair[0], pair[1]), "the policy on the operator's %s allows %v, want exactly what it writes: %v", what, slices.Sorted(maps.Keys(pair[0])), slices.Sorted(maps.Keys(pair[1])))
	}
}
