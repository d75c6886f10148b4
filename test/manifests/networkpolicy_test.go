package manifests

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// podTraffic is what each pod template of ours serves (ingress) and calls
// (egress), as "<protocol>/<port> <peer>"; a pod on the host's network is
// selected by no policy and listed with hostNetwork.
var podTraffic = []struct {
	pod             string // namespace/kind/name
	hostNetwork     bool
	ingress, egress []string
}{
	{pod: "openshift-cluster-node-operator/Deployment/cluster-node-operator",
		ingress: []string{"TCP/8443 from openshift-monitoring"},
		egress: []string{"TCP/443 anywhere", "TCP/53 to openshift-dns", "TCP/5353 to openshift-dns", "TCP/6443 anywhere",
			"TCP/9091 to openshift-monitoring", "UDP/53 to openshift-dns", "UDP/5353 to openshift-dns"}},
	{pod: "openshift-crio-metrics/DaemonSet/crio-metrics", hostNetwork: true},
	{pod: "openshift-nmstate/Deployment/nmstate-operator", egress: []string{"TCP/6443 anywhere"}},
}

// TestNetworkPolicies: docs/test-behaviours.md.
func TestNetworkPolicies(t *testing.T) {
	tr := load(t)
	var policies []networkingv1.NetworkPolicy
	templates := map[string]corev1.PodTemplateSpec{}
	for _, o := range slices.Concat(tr.manifests, tr.operands) {
		switch o.GetKind() {
		case "NetworkPolicy":
			p := networkingv1.NetworkPolicy{}
			if err := o.Decode(&p); err != nil {
				t.Fatal(err)
			}
			policies = append(policies, p)
		case "Deployment", "DaemonSet":
			var w struct {
				Spec struct {
					Template corev1.PodTemplateSpec `json:"template"`
				} `json:"spec"`
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &w); err != nil {
				t.Fatal(err)
			}
			templates[o.GetNamespace()+"/"+o.GetKind()+"/"+o.GetName()] = w.Spec.Template
		}
	}
	for _, want := range podTraffic {
		tmpl, ok := templates[want.pod]
		if !ok {
			t.Errorf("%s: no such pod template", want.pod)
			continue
		}
		delete(templates, want.pod)
		ns, _, _ := strings.Cut(want.pod, "/")
		if tmpl.Spec.HostNetwork != want.hostNetwork {
			t.Errorf("%s: hostNetwork %v, the table says %v", want.pod, tmpl.Spec.HostNetwork, want.hostNetwork)
		}
		if want.hostNetwork {
			continue // no policy selects it
		}
		var isolated bool
		var ingress, egress []string
		for _, p := range policies {
			sel, err := metav1.LabelSelectorAsSelector(&p.Spec.PodSelector)
			if err != nil || p.Namespace != ns || !sel.Matches(labels.Set(tmpl.Labels)) {
				continue
			}
			isolated = isolated || slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) && slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			for _, r := range p.Spec.Ingress {
				ingress = append(ingress, allowed(r.Ports, r.From, "from")...)
			}
			for _, r := range p.Spec.Egress {
				egress = append(egress, allowed(r.Ports, r.To, "to")...)
			}
		}
		if !isolated {
			t.Errorf("%s: no policy of its namespace denies it ingress and egress by default", want.pod)
		}
		slices.Sort(ingress)
		slices.Sort(egress)
		assert.Equal(t, want.ingress, slices.Compact(ingress), "%s: ingress allowed", want.pod)
		assert.Equal(t, want.egress, slices.Compact(egress), "%s: egress allowed", want.pod)
	}
	for pod := range templates {
		t.Errorf("%s: a pod template podTraffic does not list", pod)
	}
}

// allowed spells a rule's ports and peers; only ported rules to whole
// namespaces, by their name label, are ours to write.
func allowed(ports []networkingv1.NetworkPolicyPort, peers []networkingv1.NetworkPolicyPeer, dir string) []string {
	names := []string{"anywhere"}
	if len(peers) > 0 {
		names = nil
	}
	for _, peer := range peers {
		ns := "?"
		if peer.NamespaceSelector != nil && peer.PodSelector == nil && peer.IPBlock == nil {
			ns = peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]
		}
		names = append(names, dir+" "+ns)
	}
	if len(ports) == 0 {
		return []string{"every port " + fmt.Sprint(names)}
	}
	var out []string
	for _, p := range ports {
		for _, n := range names {
			out = append(out, fmt.Sprintf("%s/%s %s", *p.Protocol, p.Port.String(), n))
		}
	}
	return out
}
