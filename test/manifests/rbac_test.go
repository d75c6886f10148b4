package manifests

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

func (r request) String() string {
	s := r.verb + " " + r.resource
	if r.group != "" {
		s += "." + r.group
	}
	if r.name != "" {
		s += " " + r.name
	}
	if r.namespace != "" {
		s += " in " + r.namespace
	}
	return s
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
	add("CRI-O metrics node disruption policy: read MCO's MachineConfiguration and server-side apply our one entry of spec.nodeDisruptionPolicy.files (pkg/operator/criometrics/disruptionpolicy.go)",
		"", "operator.openshift.io", "machineconfigurations", "cluster", "get", "patch")
	for _, role := range []string{"master", "worker", "arbiter"} {
		add("platform CRI-O metrics path: MCO's base kubelet MachineConfig carries kube-rbac-proxy-crio (pkg/operator/crioplatform)",
			"", "machineconfiguration.openshift.io", "machineconfigs", "01-"+role+"-kubelet", "get")
	}
	add("CRI-O metrics switching order: which parts of the own TLS stack are left, read live (pkg/operator/criometrics/path.go)",
		operatorNamespace, "", "configmaps", "crio-metrics-ca-bundle", "get")
	add("CRI-O metrics scrape authentication: CMO's version (its scrape class) and metrics client CA, by name (pkg/operator/criometrics/scrapeauth.go)",
		"", "config.openshift.io", "clusteroperators", "monitoring", "get")
	add("CRI-O metrics scrape authentication: CMO's version (its scrape class) and metrics client CA, by name (pkg/operator/criometrics/scrapeauth.go)",
		"openshift-monitoring", "", "configmaps", "metrics-client-ca", "get")
	add("the operator's metrics endpoint: its copy of the API server's client CA, read and server-side applied (pkg/operator/metricsclientca)",
		operatorNamespace, "", "configmaps", "metrics-client-ca", "get", "patch")
	add("the operator's metrics endpoint: the API server's client CA, by name (pkg/operator/metricsclientca)",
		"kube-system", "", "configmaps", "extension-apiserver-authentication", "get")
	add("platform CRI-O metrics path: kube-rbac-proxy-crio mirror pods, selected by label (pkg/operator/crioplatform)",
		"openshift-machine-config-operator", "", "pods", "", "list", "watch")
	add("CRI-O metrics status: the cluster-monitoring operator's configuration (collection profile), cached by name (pkg/operator/criometrics/collectionprofile.go)",
		"openshift-monitoring", "", "configmaps", "cluster-monitoring-config", "list", "watch")
	add("NMState: an NMState operator installed by OLM in any namespace, where the stack steps aside (pkg/operator/nmstate/provider.go)",
		"", "operators.coreos.com", "clusterserviceversions", "", "list")
	add("NMState: a Subscription to the NMState operator's package, in any namespace (pkg/operator/nmstate/provider.go)",
		"", "operators.coreos.com", "subscriptions", "", "list")
	add("status.stacks[*].containers: the DaemonSets the NMState operator runs, cached (pkg/operator/versioncontroller)",
		"openshift-nmstate", "apps", "daemonsets", "", "list", "watch")
	add("node settings: our MachineConfig per pool, server-side applied and deleted (pkg/operator/nodesettings)",
		"", "machineconfiguration.openshift.io", "machineconfigs", nodesettings.MachineConfigName("${POOL}"), "patch", "delete")
	add("node settings: ours by label, a pool's rendered MachineConfig by name, a rollback's earlier revision (pkg/operator/nodesettings)",
		"", "machineconfiguration.openshift.io", "machineconfigs", "", "get", "list")
	for _, r := range []string{"machineconfigpools", "machineconfignodes", "kubeletconfigs"} {
		add("node settings rollout: MCO's pools, node states and the administrator's KubeletConfigs (pkg/operator/nodesettings)",
			"", "machineconfiguration.openshift.io", r, "", "list")
	}
	add("node settings health gate: the nodes of the pool being verified (pkg/operator/nodesettings)", "", "", "nodes", "", "list")
	add("node settings: is the OpenTelemetry collector API served (pkg/operator/nodesettings)", "", "opentelemetry.io", "opentelemetrycollectors", "", "list")
	add("node settings: the per-node OpenTelemetryCollector, read, server-side applied and deleted (pkg/operator/nodesettings/collector.go)",
		operatorNamespace, "opentelemetry.io", "opentelemetrycollectors", nodesettings.CollectorName, "get", "patch", "delete")
	add("node settings health gate: Thanos Querier's proxy authorizes queries as get namespaces (pkg/operator/nodesettings/scrape.go)", "", "", "namespaces", "", "get")
	add("the metrics endpoint's kube-rbac-proxy authenticates scrapers", "", "authentication.k8s.io", "tokenreviews", "", "create")
	add("the metrics endpoint's kube-rbac-proxy authorizes scrapers", "", "authorization.k8s.io", "subjectaccessreviews", "", "create")
	return out
}()

// prometheusBindings are the roles the manifests bind to the platform
// Prometheus: discovery of the metrics endpoint, and get on /metrics, which
// the Deployment's kube-rbac-proxy authorizes.
var prometheusBindings = map[string]bool{
	"Role/" + operatorNamespace + "/cluster-node-operator-prometheus": true,
	"ClusterRole/cluster-node-operator-metrics-reader":                true,
}

func isPrometheus(s rbacv1.Subject) bool {
	return s.Kind == "ServiceAccount" && s.Namespace == "openshift-monitoring" && s.Name == "prometheus-k8s"
}

// grant is a rule the operator holds, cluster-wide when namespace is "".
type grant struct {
	namespace string
	rule      rbacv1.PolicyRule
	source    string
}

// rbac is the operator's RBAC as the manifests define it.
type rbac struct {
	grants []grant
	roles  map[string][]rbacv1.PolicyRule // "ClusterRole/name" or "Role/ns/name"
}

func readRBAC(t *testing.T, tr *tree) *rbac {
	t.Helper()
	out := &rbac{roles: map[string][]rbacv1.PolicyRule{}}
	for _, o := range tr.manifests {
		switch o.GetKind() {
		case "ClusterRole":
			r := &rbacv1.ClusterRole{}
			if err := o.Decode(r); err != nil {
				t.Fatal(err)
			}
			out.roles["ClusterRole/"+r.Name] = r.Rules
		case "Role":
			r := &rbacv1.Role{}
			if err := o.Decode(r); err != nil {
				t.Fatal(err)
			}
			out.roles["Role/"+r.Namespace+"/"+r.Name] = r.Rules
		}
	}
	isOperator := func(s rbacv1.Subject) bool {
		return s.Kind == "ServiceAccount" && s.Namespace == operatorNamespace && s.Name == operatorName
	}
	for _, o := range tr.manifests {
		var subjects []rbacv1.Subject
		var ref rbacv1.RoleRef
		namespace := ""
		switch o.GetKind() {
		case "ClusterRoleBinding":
			b := &rbacv1.ClusterRoleBinding{}
			if err := o.Decode(b); err != nil {
				t.Fatal(err)
			}
			subjects, ref = b.Subjects, b.RoleRef
		case "RoleBinding":
			b := &rbacv1.RoleBinding{}
			if err := o.Decode(b); err != nil {
				t.Fatal(err)
			}
			subjects, ref, namespace = b.Subjects, b.RoleRef, b.Namespace
		default:
			continue
		}
		key := "ClusterRole/" + ref.Name
		if ref.Kind == "Role" {
			key = "Role/" + namespace + "/" + ref.Name
		}
		rules, ok := out.roles[key]
		if !ok {
			t.Errorf("%s: binds %s, which the manifests do not define", o, key)
		}
		for _, s := range subjects {
			switch {
			case isOperator(s):
				for _, r := range rules {
					out.grants = append(out.grants, grant{namespace, r, key})
				}
			case isPrometheus(s) && prometheusBindings[key]:
			default:
				t.Errorf("%s: binds %s to %s %s/%s, which is not the operator", o, key, s.Kind, s.Namespace, s.Name)
			}
		}
	}
	if len(out.grants) == 0 {
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
		info, ok := kinds[o.GroupKind()]
		if !ok {
			t.Errorf("%s: kind %s is not known to this lint; add it to kinds", o, o.GroupKind())
			continue
		}
		ns, group, why := o.GetNamespace(), o.GroupKind().Group, "operand "+o.String()
		if info.namespaced && ns == "" {
			t.Errorf("%s: a namespaced operand needs metadata.namespace", o)
			continue
		}
		needs = append(needs, need{request{ns, group, info.resource, "", "create"}, why})
		if neverDeleted[o.GetKind()+"/"+o.GetName()] == "" {
			needs = append(needs, need{request{ns, group, info.resource, o.GetName(), "delete"}, why})
		}
		for _, v := range []string{"get", "patch", "update"} {
			optional = append(optional, need{request{ns, group, info.resource, o.GetName(), v}, why})
		}
		for _, v := range []string{"list", "watch"} {
			optional = append(optional, need{request{ns, group, info.resource, "", v}, why})
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

// TestRBACIsLeastPrivilege: no wildcards, no broad roles, narrowing that
// works, and no rule that nothing needs: every request a rule grants is one
// the operator makes (reads of an operand kind may span the namespace, since
// informers list). test/e2e/install_test.go then proves each rule is needed
// by running without it.
func TestRBACIsLeastPrivilege(t *testing.T) {
	tr := load(t)
	a := readRBAC(t, tr)
	needs, optional := operandNeeds(t, tr)
	needs = append(append(append([]need{}, operatorNeeds...), needs...), optional...)
	c := readConfinement(t, tr)
	confined := c.namespaces
	created := map[string]bool{}
	for _, o := range tr.operands {
		if o.GroupKind() == namespaceKind {
			created[o.GetName()] = true
		}
	}
	escalatable := map[string]bool{}
	for _, o := range tr.operands {
		switch o.GetKind() {
		case "ClusterRole", "Role":
			escalatable[o.GetName()] = true
		}
	}

	for _, g := range a.grants {
		r := g.rule
		where := fmt.Sprintf("%s rule %+v", g.source, r)
		for _, list := range [][]string{r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs} {
			for _, x := range list {
				if strings.Contains(x, "*") {
					t.Errorf("%s: wildcard %q", where, x)
				}
			}
		}
		if len(r.NonResourceURLs) > 0 {
			t.Errorf("%s: the operator reads no non-resource URL beyond discovery, which every user may", where)
		}
		for _, v := range r.Verbs {
			switch v {
			case "create", "deletecollection":
				if len(r.ResourceNames) > 0 {
					t.Errorf("%s: %s cannot be narrowed by resourceNames (the request names no object); the rule grants nothing", where, v)
				}
			case "bind", "escalate", "impersonate":
				// escalate is checked against the request's name, which a
				// create lacks; an admission policy narrows it instead.
				if len(r.ResourceNames) == 0 && !(v == "escalate" && c.rbacNames != nil) {
					t.Errorf("%s: %s must be narrowed by resourceNames", where, v)
				}
				for _, n := range r.ResourceNames {
					if v != "impersonate" && !escalatable[n] {
						t.Errorf("%s: %s on %s, which is not a role the operator creates", where, v, n)
					}
				}
				if v == "impersonate" {
					t.Errorf("%s: the operator impersonates no one", where)
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
				for _, v := range r.Verbs {
					if v == "bind" || v == "escalate" {
						continue
					}
					for _, n := range names {
						req := request{g.namespace, group, res, n, v}
						if !needed(req, needs, created, confined, c.writeNames) {
							t.Errorf("%s: grants %s, which nothing needs", g.source, req)
						}
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

// policyList parses the list of `<subject> in ['a', 'b']`.
var policyList = regexp.MustCompile(`^(request\.namespace|object\.metadata\.name) in \[((?:'[a-z0-9.-]+'(?:, )?)+)\]$`)

// confinement is what the manifests' ValidatingAdmissionPolicies, bound with
// Deny, enforce on the operator's ServiceAccount.
// policyException is a matchCondition that lets one object outside the
// confined namespaces through: namespace, group, resource, name.
var policyException = regexp.MustCompile(`^!\(request\.namespace == '([a-z0-9.-]+)' && request\.resource\.group == '([a-z0-9.-]*)' && request\.resource\.resource == '([a-z0-9]+)' && request\.name == '([a-z0-9.-]+)'\)$`)

type confinement struct {
	// namespaces confines every namespaced write (nil: not confined).
	namespaces map[string]bool
	// exceptions are the objects outside those namespaces the namespace
	// policy lets through, as "namespace/resource.group/name".
	exceptions []string
	// rbacNames confines the names of the roles and bindings it writes.
	rbacNames map[string]bool
	// writeNames confines the names of the objects of a resource
	// ("group/resource") it writes: a list, or a pattern.
	writeNames map[string]func(string) bool
	// machineConfigNames and machineConfigPattern are the MachineConfig
	// names the policy allows.
	machineConfigNames   map[string]bool
	machineConfigPattern *regexp.Regexp
}

// policyNamesOrPattern parses `request.name in ['a', 'b'] || request.name.matches('re')`.
var policyNamesOrPattern = regexp.MustCompile(`^request\.name in \[((?:'[a-z0-9.-]+'(?:, )?)+)\] \|\| request\.name\.matches\('([^']+)'\)$`)

func readConfinement(t *testing.T, tr *tree) confinement {
	t.Helper()
	bound := map[string]bool{}
	for _, o := range tr.byKind(schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}) {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		if err := o.Decode(b); err != nil {
			t.Fatal(err)
		}
		if len(b.Spec.ValidationActions) == 1 && b.Spec.ValidationActions[0] == admissionregistrationv1.Deny && b.Spec.ParamRef == nil && b.Spec.MatchResources == nil {
			bound[b.Spec.PolicyName] = true
		} else {
			t.Errorf("%s: bind with validationActions [Deny] only, and no parameters or resource selection", o)
		}
	}
	username := "system:serviceaccount:" + operatorNamespace + ":" + operatorName
	var out confinement
	for _, o := range tr.byKind(schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}) {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := o.Decode(p); err != nil {
			t.Fatal(err)
		}
		if !bound[p.Name] {
			t.Errorf("%s is not bound with validationActions [Deny]", o)
			continue
		}
		if p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != admissionregistrationv1.Fail {
			t.Errorf("%s: failurePolicy must be Fail, or an error would let writes through", o)
		}
		if len(p.Spec.MatchConditions) < 1 || p.Spec.MatchConditions[0].Expression != "request.userInfo.username == '"+username+"'" {
			t.Errorf("%s: must match exactly the operator's requests (request.userInfo.username == '%s')", o, username)
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
		if len(p.Spec.Validations) != 1 {
			t.Errorf("%s: want one validation", o)
			continue
		}
		if m := policyNamesOrPattern.FindStringSubmatch(p.Spec.Validations[0].Expression); m != nil {
			var rule admissionregistrationv1.RuleWithOperations
			if mc := p.Spec.MatchConstraints; mc != nil && len(mc.ResourceRules) == 1 && mc.ResourceRules[0].ResourceNames == nil {
				rule = mc.ResourceRules[0].RuleWithOperations
			}
			if strings.Join(rule.APIGroups, ",") != "machineconfiguration.openshift.io" || strings.Join(rule.APIVersions, ",") != "*" ||
				strings.Join(rule.Resources, ",") != "machineconfigs" || strings.Join(operations(rule.Operations), ",") != "CREATE,DELETE,UPDATE" || len(exceptions) > 0 {
				t.Errorf("%s: must match CREATE, UPDATE and DELETE of every MachineConfig, with no exception", o)
				continue
			}
			names := map[string]bool{}
			for _, x := range strings.Split(m[1], ", ") {
				names[strings.Trim(x, "'")] = true
			}
			pattern, err := regexp.Compile(m[2])
			if err != nil {
				t.Errorf("%s: %v", o, err)
				continue
			}
			out.machineConfigNames, out.machineConfigPattern = names, pattern
			out.writeNames = map[string]func(string) bool{"machineconfiguration.openshift.io/machineconfigs": func(n string) bool { return names[n] || pattern.MatchString(n) }}
			continue
		}
		m := policyList.FindStringSubmatch(p.Spec.Validations[0].Expression)
		if m == nil {
			t.Errorf("%s: validation %q is not <request.namespace|object.metadata.name> in ['...']", o, p.Spec.Validations[0].Expression)
			continue
		}
		list := map[string]bool{}
		for _, x := range strings.Split(m[2], ", ") {
			list[strings.Trim(x, "'")] = true
		}
		var rule admissionregistrationv1.RuleWithOperations
		if mc := p.Spec.MatchConstraints; mc != nil && len(mc.ResourceRules) == 1 {
			rule = mc.ResourceRules[0].RuleWithOperations
			if mc.ResourceRules[0].ResourceNames != nil || mc.NamespaceSelector != nil && len(mc.NamespaceSelector.MatchLabels)+len(mc.NamespaceSelector.MatchExpressions) > 0 {
				t.Errorf("%s: must not narrow what it matches", o)
				continue
			}
		}
		ops := strings.Join(operations(rule.Operations), ",")
		switch m[1] {
		case "request.namespace":
			out.exceptions = exceptions
			if strings.Join(rule.APIGroups, ",") != "*" || strings.Join(rule.APIVersions, ",") != "*" || strings.Join(rule.Resources, ",") != "*/*" ||
				rule.Scope == nil || *rule.Scope != admissionregistrationv1.NamespacedScope || ops != "CREATE,DELETE,UPDATE" {
				t.Errorf("%s: must match CREATE, UPDATE and DELETE of every namespaced resource and subresource", o)
				continue
			}
			out.namespaces = list
		case "object.metadata.name":
			if len(exceptions) > 0 {
				t.Errorf("%s: the role and binding names allow no exception", o)
			}
			if strings.Join(rule.APIGroups, ",") != "rbac.authorization.k8s.io" || strings.Join(rule.APIVersions, ",") != "*" ||
				strings.Join(sortedCopy(rule.Resources), ",") != "clusterrolebindings,clusterroles,rolebindings,roles" || ops != "CREATE,UPDATE" {
				t.Errorf("%s: must match CREATE and UPDATE of every kind of role and binding", o)
				continue
			}
			out.rbacNames = list
		}
	}
	return out
}

func sortedCopy(in []string) []string {
	out := append([]string{}, in...)
	sort.Strings(out)
	return out
}

func operations(ops []admissionregistrationv1.OperationType) []string {
	var out []string
	for _, o := range ops {
		out = append(out, string(o))
	}
	sort.Strings(out)
	return out
}

// TestAdmissionPoliciesConfineTheOperator: the policies confine the operator's
// namespaced writes to its own namespace and the namespaces its stacks
// create, and its RBAC writes to the names of its operands' roles and
// bindings.
func TestAdmissionPoliciesConfineTheOperator(t *testing.T) {
	tr := load(t)
	c := readConfinement(t, tr)
	namespaces := map[string]bool{operatorNamespace: true}
	rbacNames := map[string]bool{}
	for _, o := range tr.operands {
		switch o.GetKind() {
		case "Namespace":
			namespaces[o.GetName()] = true
		case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			rbacNames[o.GetName()] = true
		}
	}
	// An exception to the namespaces must be an operand the operator writes.
	for _, e := range c.exceptions {
		parts := strings.SplitN(e, "/", 3)
		found := false
		for _, o := range tr.operands {
			if o.GetNamespace() == parts[0] && o.GetName() == parts[2] && strings.EqualFold(o.GetKind()+"s", strings.TrimSuffix(parts[1], ".")) {
				found = true
			}
		}
		if !found {
			t.Errorf("the namespace policy lets %s through, which is no operand of the operator", e)
		}
	}
	// MachineConfigs: the operands' by name, the node settings' by pattern.
	machineConfigs := map[string]bool{}
	for _, o := range append(append([]*object{}, tr.operands...), codeOperands()...) {
		if o.GetKind() == "MachineConfig" {
			// The CRI-O metrics drop-in is rendered once per role.
			for _, role := range []string{"master", "worker"} {
				machineConfigs[strings.ReplaceAll(o.GetName(), "${ROLE}", role)] = true
			}
		}
	}
	if c.machineConfigPattern == nil {
		t.Error("no ValidatingAdmissionPolicy confines the names of the operator's MachineConfigs")
	} else {
		for _, pool := range []string{"worker", "master", "canary", "infra-1.a"} {
			if name := nodesettings.MachineConfigName(pool); !c.machineConfigPattern.MatchString(name) {
				t.Errorf("the MachineConfig policy does not allow %s, the node settings of pool %s", name, pool)
			}
		}
		for _, name := range []string{"99-worker-ssh", "00-worker", "rendered-worker-0123", "60-worker-node-settings-x", "01-master-kubelet"} {
			if c.machineConfigPattern.MatchString(name) || c.machineConfigNames[name] {
				t.Errorf("the MachineConfig policy allows %s, which the operator does not write", name)
			}
		}
	}
	for what, pair := range map[string][2]map[string]bool{"namespaces": {c.namespaces, namespaces}, "role and binding names": {c.rbacNames, rbacNames}, "MachineConfig names": {c.machineConfigNames, machineConfigs}} {
		got, want := pair[0], pair[1]
		if got == nil {
			t.Errorf("no ValidatingAdmissionPolicy confines the operator's %s", what)
			continue
		}
		for x := range want {
			if !got[x] {
				t.Errorf("the policy on %s does not allow %s, which the operator writes", what, x)
			}
		}
		for x := range got {
			if !want[x] {
				t.Errorf("the policy on %s allows %s, which the operator does not write", what, x)
			}
		}
	}
}

// TestPrometheusMayScrape: the platform Prometheus may read the operator's
// metrics through the Deployment's kube-rbac-proxy (which allows /metrics
// only, TestDeploymentConventions), whatever the CRI-O metrics stack (whose
// crio-metrics-client grants the same) is doing: the ClusterRoles of the
// manifests bound to openshift-monitoring/prometheus-k8s, and to it alone,
// grant get on /metrics and nothing else. TestInstallAsCVO's
// MetricsAreServedWithAuthnAndAuthz scrapes with its token.
func TestPrometheusMayScrape(t *testing.T) {
	tr := load(t)
	roles := map[string][]rbacv1.PolicyRule{}
	for _, o := range tr.byKind(schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRole"}) {
		r := &rbacv1.ClusterRole{}
		if err := o.Decode(r); err != nil {
			t.Fatal(err)
		}
		roles[r.Name] = r.Rules
	}
	var granted []rbacv1.PolicyRule
	for _, o := range tr.byKind(schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRoleBinding"}) {
		b := &rbacv1.ClusterRoleBinding{}
		if err := o.Decode(b); err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(b.Subjects, isPrometheus) {
			if len(b.Subjects) != 1 {
				t.Errorf("%s: binds %v; bind the metrics reader to prometheus-k8s only", o, b.Subjects)
			}
			granted = append(granted, roles[b.RoleRef.Name]...)
		}
	}
	want := []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}
	if !equality.Semantic.DeepEqual(granted, want) {
		t.Errorf("ClusterRoles bound to prometheus-k8s grant %+v, want %+v", granted, want)
	}
}
