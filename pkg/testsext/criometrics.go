package testsext

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// testCRIOMetricsServed: where the operator serves CRI-O metrics itself
// (mode OperatorTLS), its DaemonSet is rolled out, the Service selects
// every pod of it on a port they declare, and has a ready endpoint for
// each ready pod. The endpoints are node addresses, so scraping them would
// assume a network path from wherever this runs; the endpoints are what
// Prometheus scrapes. A loopback address cannot be an endpoint (API
// validation), so pods on such nodes are not counted.
func testCRIOMetricsServed(t *T) error {
	s, err := enabledStack(t, "Metrics")
	if err != nil {
		return err
	}
	if s.Mode != "OperatorTLS" {
		return Skip("CRI-O metrics are served by the platform here (mode %q)", s.Mode)
	}
	return t.Eventually(settle, "daemonset/crio-metrics rolled out behind service/crio-metrics", func() (string, error) {
		ds, err := t.Cluster.Kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(t.Ctx, crioMetricsName, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("daemonset %s/%s: %v", crioMetricsNamespace, crioMetricsName, err), nil
		}
		st := ds.Status
		if st.ObservedGeneration < ds.Generation || st.DesiredNumberScheduled == 0 || st.UpdatedNumberScheduled != st.DesiredNumberScheduled || st.NumberAvailable != st.DesiredNumberScheduled {
			return fmt.Sprintf("daemonset/%s: desired %d, updated %d, available %d (generation %d observed %d)", crioMetricsName,
				st.DesiredNumberScheduled, st.UpdatedNumberScheduled, st.NumberAvailable, ds.Generation, st.ObservedGeneration), nil
		}
		svc, err := t.Cluster.Kube.CoreV1().Services(crioMetricsNamespace).Get(t.Ctx, crioMetricsName, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("service %s/%s: %v", crioMetricsNamespace, crioMetricsName, err), nil
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != crioMetricsPort {
			return fmt.Sprintf("service/%s ports %+v, want %d", crioMetricsName, svc.Spec.Ports, crioMetricsPort), nil
		}
		pods, err := t.Cluster.Kube.CoreV1().Pods(crioMetricsNamespace).List(t.Ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
		if err != nil {
			return "", err
		}
		routable := int32(0)
		for _, p := range pods.Items {
			if !declaresPort(p.Spec.Containers, svc.Spec.Ports[0].TargetPort) {
				return fmt.Sprintf("pod %s does not declare service/%s's target port %s", p.Name, crioMetricsName, svc.Spec.Ports[0].TargetPort.String()), nil
			}
			if ip := net.ParseIP(p.Status.PodIP); podReady(p.Status.Conditions) && ip != nil && !ip.IsLoopback() {
				routable++
			}
		}
		if int32(len(pods.Items)) != st.DesiredNumberScheduled {
			return fmt.Sprintf("service/%s selects %d pods, the DaemonSet runs %d", crioMetricsName, len(pods.Items), st.DesiredNumberScheduled), nil
		}
		slices, err := t.Cluster.Kube.DiscoveryV1().EndpointSlices(crioMetricsNamespace).List(t.Ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + crioMetricsName})
		if err != nil {
			return "", err
		}
		ready := 0
		for _, sl := range slices.Items {
			for _, e := range sl.Endpoints {
				if e.Conditions.Ready == nil || *e.Conditions.Ready {
					ready++
				}
			}
		}
		if int32(ready) < routable {
			return fmt.Sprintf("service/%s has %d ready endpoints for %d ready pods", crioMetricsName, ready, routable), nil
		}
		t.Logf("daemonset/%s: %d of %d available; service/%s: %d ready endpoints", crioMetricsName, st.NumberAvailable, st.DesiredNumberScheduled, crioMetricsName, ready)
		return "", nil
	})
}

// testCRIOMetricsRefused replays kube-rbac-proxy's decision for a request
// to CRI-O's metrics: a token of a fresh ServiceAccount is reviewed
// (TokenReview) and the identity it yields asked for get on /metrics
// (SubjectAccessReview), as the proxy does; it must be refused, and the
// platform Prometheus allowed. Sending the request itself would need a
// network path to a node from wherever this runs.
func testCRIOMetricsRefused(t *T) error {
	if _, err := enabledStack(t, "Metrics"); err != nil {
		return err
	}
	kube := t.Cluster.Kube
	ns, err := kube.CoreV1().Namespaces().Create(t.Ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-node-metrics-reader-"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = kube.CoreV1().Namespaces().Delete(t.Ctx, ns.Name, metav1.DeleteOptions{}) }()
	sa, err := kube.CoreV1().ServiceAccounts(ns.Name).Create(t.Ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	expiry := int64(600)
	token, err := kube.CoreV1().ServiceAccounts(ns.Name).CreateToken(t.Ctx, sa.Name, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	review, err := kube.AuthenticationV1().TokenReviews().Create(t.Ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token.Status.Token}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if !review.Status.Authenticated {
		return fmt.Errorf("the API server does not authenticate a fresh ServiceAccount token: %s", review.Status.Error)
	}
	reader := review.Status.User
	if allowed, why, err := mayGetMetrics(t, reader.Username, reader.Groups); err != nil {
		return err
	} else if allowed {
		return fmt.Errorf("%s, which holds no role, may get /metrics (CRI-O metrics are open to any ServiceAccount): %s", reader.Username, why)
	}
	prometheus := "system:serviceaccount:" + prometheusNamespace + ":" + prometheusAccount
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + prometheusNamespace, "system:authenticated"}
	if allowed, why, err := mayGetMetrics(t, prometheus, groups); err != nil {
		return err
	} else if !allowed {
		return fmt.Errorf("the platform Prometheus %s may not get /metrics (clusterrolebinding/%s): %s", prometheus, crioMetricsClient, why)
	}
	t.Logf("%s is refused get /metrics; %s is allowed", reader.Username, prometheus)
	return nil
}

func mayGetMetrics(t *T, user string, groups []string) (bool, string, error) {
	sar, err := t.Cluster.Kube.AuthorizationV1().SubjectAccessReviews().Create(t.Ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: groups, NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}}, metav1.CreateOptions{})
	if err != nil {
		return false, "", err
	}
	return sar.Status.Allowed, sar.Status.Reason, nil
}

// testAlertsAndDashboard: where monitoring runs, the PrometheusRule watches
// the job of the path that serves CRI-O metrics, and the console dashboard
// is loaded.
func testAlertsAndDashboard(t *T) error {
	s, err := enabledStack(t, "Metrics")
	if err != nil {
		return err
	}
	if served, err := t.Cluster.Serves(monitoringGroup); err != nil {
		return err
	} else if !served {
		return Skip("%s is not served: no monitoring stack", monitoringGroup)
	}
	job := map[string]string{"PlatformProxy": "crio", "OperatorTLS": "crio-metrics"}[string(s.Mode)]
	return t.Eventually(settle, "prometheusrule/crio-metrics and the CRI-O dashboard", func() (string, error) {
		rule, err := t.Cluster.Dynamic.Resource(prometheusRulesGVR).Namespace(crioMetricsNamespace).Get(t.Ctx, crioMetricsName, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("prometheusrule %s/%s: %v", crioMetricsNamespace, crioMetricsName, err), nil
		}
		groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
		raw, _ := json.Marshal(groups)
		switch {
		case len(groups) == 0:
			return "prometheusrule/crio-metrics has no rule groups", nil
		case strings.Contains(string(raw), "${"):
			return "prometheusrule/crio-metrics has an unrendered placeholder", nil
		case job != "" && !strings.Contains(string(raw), `job=\"`+job+`\"`):
			return fmt.Sprintf("prometheusrule/crio-metrics does not select job=%q of mode %s", job, s.Mode), nil
		}
		cm, err := t.Cluster.Kube.CoreV1().ConfigMaps(dashboardNamespace).Get(t.Ctx, dashboardConfigMap, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("configmap %s/%s: %v", dashboardNamespace, dashboardConfigMap, err), nil
		}
		if cm.Labels["console.openshift.io/dashboard"] != "true" || len(cm.Data) != 1 {
			return fmt.Sprintf("configmap/%s is not a console dashboard: labels %v, %d keys", dashboardConfigMap, cm.Labels, len(cm.Data)), nil
		}
		for key, board := range cm.Data {
			if !json.Valid([]byte(board)) {
				return fmt.Sprintf("configmap/%s key %s is not JSON", dashboardConfigMap, key), nil
			}
		}
		t.Logf("prometheusrule/crio-metrics: %d groups on job %q; dashboard loaded", len(groups), job)
		return "", nil
	})
}

// declaresPort reports whether a container declares the Service's target port.
func declaresPort(containers []corev1.Container, target intstr.IntOrString) bool {
	for _, c := range containers {
		for _, p := range c.Ports {
			if (target.Type == intstr.String && p.Name == target.StrVal) || (target.Type == intstr.Int && p.ContainerPort == target.IntVal) {
				return true
			}
		}
	}
	return false
}
