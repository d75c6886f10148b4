//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"github.com/openshift/library-go/pkg/crypto"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/pkg/operator/metricsclientca"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	// operatorNamespace is also used by the other tests of this package.
	operatorNamespace         = "openshift-cluster-node-operator"
	nodeOperatorName          = "cluster-node-operator"
	nodeClusterOperator       = "node"
	operatorMetricsServerName = "metrics." + operatorNamespace + ".svc"
	operatorLeaseName         = "cluster-node-operator-lock"
	// deploymentListen is the operator's --listen in the Deployment (plain
	// HTTP on the pod's loopback); deploymentProxyListen and
	// deploymentProxyUpstream are its kube-rbac-proxy container's
	// --secure-listen-address and --upstream.
	deploymentListen        = "127.0.0.1:8080"
	deploymentProxyListen   = "0.0.0.0:8443"
	deploymentProxyUpstream = "http://" + deploymentListen + "/"
	proxyContainer          = "kube-rbac-proxy"
	installTimeout          = 4 * time.Minute
	nodeOperatorBinary      = "cluster-node-operator"
)

// TestInstallAsCVO installs the operator from manifests/ as the
// cluster-version operator's install leaves it (the real CVO's install is
// TestInstallWithRealCVO's), and runs its Deployment's pod as the pod would
// run: both containers (the operator and the kube-rbac-proxy in front of its
// metrics), each with exactly the Deployment's command, arguments and
// environment, as its ServiceAccount, with its volumes and securityContext
// (framework.StartPodProcess). It then waits for what the CVO waits for,
// checks the install, and finally restarts the operator with its RBAC
// reduced by one rule at a time: each one fails visibly.
func TestInstallAsCVO(t *testing.T) {
	in := newInstallation(t, "")
	in.install(true)

	t.Run("PodIsPlacedOnTheControlPlane", in.testPlacement)
	t.Run("PodMeetsRestrictedPodSecurity", in.testPodSecurity)
	t.Run("NoRequestWasForbidden", in.testNothingForbidden)
	t.Run("OperandsUseTheReleaseImages", in.testOperandImages)
	t.Run("RelatedObjectsResolve", in.testRelatedObjects)
	t.Run("MetricsAreServedWithAuthnAndAuthz", in.testMetrics)
	t.Run("WritesAreConfinedToOwnNamespaces", in.testConfinement)
	t.Run("EachRuleIsNeeded", in.testEachRuleIsNeeded)
	t.Run("ADeniedWriteTurnsTheClusterOperatorDegraded", in.testDeniedWriteDegrades)
}

// TestInstallAsCVOHostedProfile installs the manifests of the hypershift
// profile, whose clusters have no control-plane nodes: the Deployment's
// hosted variant runs on a worker, and the install completes.
func TestInstallAsCVOHostedProfile(t *testing.T) {
	in := newInstallation(t, "hypershift")
	in.install(true)
	pod, node := in.operatorNode(t)
	if _, ok := node.Labels["node-role.kubernetes.io/master"]; ok {
		t.Errorf("the hosted variant's pod runs on control-plane node %s", node.Name)
	}
	in.testNothingForbidden(t)
	t.Logf("pod %s on worker %s", pod.Name, node.Name)
}

// installation is the operator installed on the cluster under test.
type installation struct {
	t      *testing.T
	cfg    *rest.Config
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	config configclient.Interface
	rel    *framework.Release
	// applier applies and finds the resources of objects.
	applier *framework.Applier
	// servingCA signs the metrics Service's certificate, as the service CA
	// would.
	servingCA *crypto.CA
	// pki is CMO's: its client certificate's CA is the API server's.
	pki *framework.PlatformPKI

	operator *framework.Process
	// proxy is the pod's kube-rbac-proxy container, when started.
	proxy *framework.Process
	// listenPort is where the proxy's --secure-listen-address was moved
	// to, which scrapes go to.
	listenPort int
	started    time.Time
}

// newInstallation prepares the installation of the manifests of a release
// profile ("" for self-managed-high-availability) on a cluster without the
// operator, and uninstalls it when the test ends.
func newInstallation(t *testing.T, profile string) *installation {
	t.Helper()
	cfg := framework.KubeConfig(t)
	ca, err := crypto.MakeSelfSignedCAConfigForDuration("openshift-service-serving-signer@e2e", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	in := &installation{
		t:         t,
		cfg:       cfg,
		kube:      kubernetes.NewForConfigOrDie(cfg),
		dyn:       dynamic.NewForConfigOrDie(cfg),
		config:    configclient.NewForConfigOrDie(cfg),
		applier:   framework.NewApplier(t, cfg),
		servingCA: &crypto.CA{Config: ca, SerialGenerator: &crypto.RandomSerialGenerator{}},
		rel: framework.ReadRelease(t, framework.ReleaseOptions{Profile: profile, Version: fmt.Sprintf("4.99.0-0.e2e-%d", time.Now().Unix()),
			FeatureSet: framework.ClusterFeatureSet(t, cfg)}),
	}
	// The local world has no MCO: this stands for its operator's node
	// disruption policy status, without which the operator's
	// MachineConfigs wait (framework.StartOperator does the same).
	framework.StartMCOPolicyStatus(t, cfg)
	in.publishMetricsClientCA()
	in.pki = framework.NewPlatformPKI(t)
	trustAsAPIServerClientCA(t, in.kube, in.pki)
	ctx := framework.Context(t, time.Minute)
	_, nsErr := in.kube.CoreV1().Namespaces().Get(ctx, operatorNamespace, metav1.GetOptions{})
	_, coErr := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
	if !apierrors.IsNotFound(nsErr) || !apierrors.IsNotFound(coErr) {
		t.Logf("the cluster is not fresh (a previous run left the operator installed); removing it first")
		in.uninstall()
	}
	t.Cleanup(in.uninstall)
	return in
}

// publishMetricsClientCA plays CMO (4.19 and later), which copies the
// cluster's client CA into openshift-monitoring/metrics-client-ca: the
// operator copies it on for kube-rbac-proxy, so the release's rules for
// that copy are needed on every current cluster.
func (in *installation) publishMetricsClientCA() {
	ctx := framework.Context(in.t, time.Minute)
	ca := in.cfg.CAData
	if len(ca) == 0 {
		var err error
		if ca, err = os.ReadFile(in.cfg.CAFile); err != nil {
			in.t.Fatal(err)
		}
	}
	_, err := in.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "openshift-monitoring"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		in.t.Fatal(err)
	}
	cms := in.kube.CoreV1().ConfigMaps("openshift-monitoring")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "metrics-client-ca"}, Data: map[string]string{criometrics.ClientCAKey: string(ca)}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		in.t.Fatal(err)
	}
	in.t.Cleanup(func() { _ = cms.Delete(context.Background(), cm.Name, metav1.DeleteOptions{}) })
}

// install leaves the cluster as the CVO's install of the release does,
// applying the manifests in order as plain objects: the ClusterOperator
// first, created with the manifest's relatedObjects (so that must-gather
// finds the component even if its operator never starts), then the rest;
// the service CA's serving certificate is issued for the metrics Service.
// With runOperator, the Deployment's pod runs (startOperator), and install
// returns once the ClusterOperator satisfies the CVO.
func (in *installation) install(runOperator bool) {
	t := in.t
	t.Helper()
	ctx := framework.Context(t, installTimeout+2*time.Minute)
	in.started = time.Now()
	// Until the operator first runs, the ClusterOperator has no
	// conditions, and a starting operator may report Available=False; the
	// window ends once it is healthy.
	endInstall := framework.ExpectCondition(t, configv1.OperatorAvailable, configv1.ConditionFalse, "install: the operator starts")
	in.precreateClusterOperator(ctx)
	for _, m := range in.rel.Manifests {
		if m.Object.GetKind() == "ClusterOperator" {
			continue
		}
		if err := in.applier.Apply(ctx, m.Object.DeepCopy(), "e2e-install"); err != nil {
			t.Fatalf("applying %s: %v", m, err)
		}
		if m.Object.GetKind() == "Service" {
			in.issueServingCert(ctx, m.Object)
		}
	}
	if !runOperator {
		return
	}
	in.startOperator(ctx, "", true)
	if err := in.waitHealthy(ctx); err != nil {
		t.Fatalf("install: %v", err)
	}
	endInstall()
	t.Logf("the CVO would move past clusteroperator/%s after %s", nodeClusterOperator, time.Since(in.started).Round(time.Second))
}

// waitHealthy waits until the ClusterOperator satisfies the CVO.
func (in *installation) waitHealthy(ctx context.Context) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, installTimeout, true, func(ctx context.Context) (bool, error) {
		if in.operator != nil && in.operator.Exited() {
			return false, fmt.Errorf("the operator exited")
		}
		actual, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
		if last = err; err == nil {
			last = framework.ClusterOperatorHealth(in.expectedClusterOperator(), actual)
		}
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("after %s: %v (%v)\n%s", installTimeout, err, last, in.logTail(30))
	}
	return nil
}

// expectedClusterOperator is the release's ClusterOperator manifest.
func (in *installation) expectedClusterOperator() *configv1.ClusterOperator {
	co := &configv1.ClusterOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in.rel.Find("ClusterOperator", nodeClusterOperator).Object, co); err != nil {
		in.t.Fatal(err)
	}
	return co
}

// startOperator runs the Deployment's pod, once the cluster has scheduled and
// (simulated) started it, as local processes: the operator container and,
// withProxy, the kube-rbac-proxy container, which serves its metrics. Both
// run as the pod's ServiceAccount, or as serviceAccount when set. The
// processes share this machine's network, where the pod would have its own:
// the only change to their arguments is the ports they listen on (and the
// proxy's upstream, which is the operator's).
func (in *installation) startOperator(ctx context.Context, serviceAccount string, withProxy bool) {
	t := in.t
	t.Helper()
	pod := in.operatorPod(ctx)
	var operatorListen string
	opStart := time.Now()
	in.operator, operatorListen = startOperatorContainer(t, in.cfg, pod, serviceAccount, operatorBinary(t))
	if !withProxy {
		return
	}
	if err := framework.EnsureTool(t, "kube-rbac-proxy"); err != nil {
		t.Fatal(err)
	}
	// The kubelet restarts kube-rbac-proxy until any replica copied the CA.
	framework.Eventually(t, time.Minute, 100*time.Millisecond, func() (bool, error) {
		_, err := in.kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, metricsclientca.Name, metav1.GetOptions{})
		return err == nil, nil
	}, "the operator to copy the client CA")
	t.Logf("client CA copied %s after the operator started", time.Since(opStart).Round(10*time.Millisecond))
	in.listenPort = framework.FreePort(t)
	in.proxy = framework.StartPodProcess(t, in.cfg, framework.PodProcessOptions{
		Pod:                pod,
		Container:          proxyContainer,
		ServiceAccountName: serviceAccount,
		Binaries:           map[string]string{"kube-rbac-proxy": filepath.Join(framework.RepoRoot(t), "_output", "bin", "kube-rbac-proxy")},
		RewriteArgs: func(args []string) []string {
			return rewriteArgs(t, args, map[string]string{
				"--secure-listen-address=" + deploymentProxyListen: "--secure-listen-address=127.0.0.1:" + strconv.Itoa(in.listenPort),
				"--upstream=" + deploymentProxyUpstream:            "--upstream=http://" + operatorListen + "/",
			})
		},
	})
}

// startOperatorContainer runs the operator container of a pod of the
// Deployment with binary, as the pod's ServiceAccount or serviceAccount,
// with --listen moved to a free port of this machine, which it returns.
func startOperatorContainer(t *testing.T, cfg *rest.Config, pod *corev1.Pod, serviceAccount, binary string) (*framework.Process, string) {
	listen := "127.0.0.1:" + strconv.Itoa(framework.FreePort(t))
	return framework.StartPodProcess(t, cfg, framework.PodProcessOptions{
		Pod:                pod,
		Container:          nodeOperatorName,
		ServiceAccountName: serviceAccount,
		Binaries:           map[string]string{nodeOperatorBinary: binary},
		RewriteArgs: func(args []string) []string {
			return rewriteArgs(t, args, map[string]string{"--listen=" + deploymentListen: "--listen=" + listen})
		},
	}), listen
}

// rewriteArgs replaces each argument of replace, all of which must be there:
// a Deployment whose arguments changed must fail the test, not run with
// arguments that were not rewritten.
func rewriteArgs(t *testing.T, args []string, replace map[string]string) []string {
	t.Helper()
	out := slices.Clone(args)
	for a, r := range replace {
		i := slices.Index(out, a)
		if i < 0 {
			t.Fatalf("the container's arguments %q lack %s", args, a)
		}
		out[i] = r
	}
	return out
}

// operatorPod waits for the Deployment's pod to run.
func (in *installation) operatorPod(ctx context.Context) *corev1.Pod {
	var pod *corev1.Pod
	framework.Eventually(in.t, 2*time.Minute, time.Second, func() (bool, error) {
		pods, err := in.kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + nodeOperatorName})
		if err != nil {
			return false, err
		}
		for i := range pods.Items {
			if p := &pods.Items[i]; p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				pod = p
			}
		}
		return pod != nil, nil
	}, "the operator Deployment's pod to be scheduled and running")
	return pod
}

// operatorNode is the operator's running pod and its node.
func (in *installation) operatorNode(t *testing.T) (*corev1.Pod, *corev1.Node) {
	ctx := framework.Context(t, time.Minute)
	pod := in.operatorPod(ctx)
	node, err := in.kube.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod, node
}

// stopOperator stops the operator, which releases its lease, and its
// kube-rbac-proxy.
func (in *installation) stopOperator() {
	for _, p := range []**framework.Process{&in.proxy, &in.operator} {
		if *p != nil {
			(*p).Stop()
			*p = nil
		}
	}
}

// logTail returns the end of the operator's log.
func (in *installation) logTail(lines int) string {
	if in.operator == nil {
		return "(the operator is not running)"
	}
	return "operator " + in.operator.LogTail(lines)
}

func (in *installation) operatorLog() string {
	if in.operator == nil {
		return ""
	}
	return in.operator.Log()
}

// issueServingCert does what the service CA operator does for a Service
// annotated service.beta.openshift.io/serving-cert-secret-name.
func (in *installation) issueServingCert(ctx context.Context, svc *unstructured.Unstructured) {
	t := in.t
	name := svc.GetAnnotations()["service.beta.openshift.io/serving-cert-secret-name"]
	if name == "" {
		return
	}
	cert, err := in.servingCA.MakeServerCert(sets.New(svc.GetName()+"."+svc.GetNamespace()+".svc", svc.GetName()+"."+svc.GetNamespace()+".svc.cluster.local"), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := cert.GetPEMBytes()
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: svc.GetNamespace(), Annotations: map[string]string{
			"service.beta.openshift.io/originating-service-name": svc.GetName(),
		}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM},
	}
	_, err = in.kube.CoreV1().Secrets(svc.GetNamespace()).Create(ctx, secret, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("issuing the serving certificate: %v", err)
	}
}

// --- checks of the installed operator ---------------------------------------

// testPlacement: the Deployment's nodeSelector and tolerations put the pod on
// a control-plane node, which is tainted NoSchedule.
func (in *installation) testPlacement(t *testing.T) {
	pod, node := in.operatorNode(t)
	if _, ok := node.Labels["node-role.kubernetes.io/master"]; !ok {
		t.Errorf("the operator's pod runs on %s, which is not a control-plane node", node.Name)
	}
	if pod.Spec.PriorityClassName != "system-cluster-critical" || pod.Spec.Priority == nil || *pod.Spec.Priority < 2000000000 {
		t.Errorf("pod priority class %q priority %v, want system-cluster-critical", pod.Spec.PriorityClassName, pod.Spec.Priority)
	}
	t.Logf("pod %s on control-plane node %s", pod.Name, node.Name)
}

// testPodSecurity: the API server's PodSecurity admission admits the
// operator's pod in a namespace that enforces the "restricted" level.
func (in *installation) testPodSecurity(t *testing.T) {
	ctx := framework.Context(t, 2*time.Minute)
	ns, err := in.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "e2e-restricted-",
		Labels:       map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in.rel.Find("Deployment", nodeOperatorName).Object, d); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "restricted-check", Namespace: ns.Name}, Spec: d.Spec.Template.Spec}
	pod.Spec.ServiceAccountName = "default"
	pod.Spec.PriorityClassName = ""
	var warnings bytes.Buffer
	cfg := rest.CopyConfig(in.cfg)
	cfg.WarningHandler = rest.NewWarningWriter(&warnings, rest.WarningWriterOptions{})
	client := kubernetes.NewForConfigOrDie(cfg)
	if _, err := client.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("PodSecurity 'restricted' rejects the operator's pod: %v", err)
	}
	// Other warnings (deprecated labels) are the API server's, not PodSecurity's.
	if strings.Contains(warnings.String(), "PodSecurity") {
		t.Errorf("PodSecurity warnings: %s", warnings.String())
	}
}

// forbidden matches the API server's authorization errors in a log.
var forbiddenLines = regexp.MustCompile(`(?i)[^\n]*forbidden[^\n]*`)

// testNothingForbidden: with its RBAC, the operator was never denied.
func (in *installation) testNothingForbidden(t *testing.T) {
	if lines := forbiddenLines.FindAllString(in.operatorLog(), 10); len(lines) > 0 {
		t.Errorf("the operator was denied requests its RBAC should allow:\n%s", strings.Join(lines, "\n"))
	}
}

// testOperandImages: the operands run the images the release substituted into
// the operator's environment, not the placeholders.
func (in *installation) testOperandImages(t *testing.T) {
	ctx := framework.Context(t, time.Minute)
	released := map[string]string{}
	for tag, spec := range in.rel.Images {
		released[spec] = tag
	}
	found := 0
	for _, ns := range in.relatedNamespaces(t) {
		for _, gvr := range []schema.GroupVersionResource{{Group: "apps", Version: "v1", Resource: "daemonsets"}, {Group: "apps", Version: "v1", Resource: "deployments"}} {
			list, err := in.dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, obj := range list.Items {
				containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
				for _, c := range containers {
					image, _ := c.(map[string]any)["image"].(string)
					found++
					if released[image] == "" {
						t.Errorf("%s %s/%s runs image %q, which is not one of the release's %v", obj.GetKind(), ns, obj.GetName(), image, in.rel.Images)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Error("found no bindataOperand containers")
	}
}

// relatedNamespaces are the namespaces among the live relatedObjects.
func (in *installation) relatedNamespaces(t *testing.T) []string {
	var out []string
	for _, ref := range framework.LiveClusterOperator(t, in.cfg, nodeClusterOperator).Status.RelatedObjects {
		if ref.Group == "" && ref.Resource == "namespaces" {
			out = append(out, ref.Name)
		}
	}
	return out
}

// testRelatedObjects: once running, the operator still lists what the
// manifest's ClusterOperator lists, and every relatedObject exists.
func (in *installation) testRelatedObjects(t *testing.T) {
	co := framework.LiveClusterOperator(t, in.cfg, nodeClusterOperator)
	for _, ref := range in.expectedClusterOperator().Status.RelatedObjects {
		if !slices.Contains(co.Status.RelatedObjects, ref) {
			t.Errorf("the operator dropped relatedObject %+v that the manifest lists", ref)
		}
	}
	framework.CheckRelatedObjects(t, in.cfg, co)
}

// getReference reads the object a relatedObject names.
func (in *installation) getReference(ctx context.Context, ref configv1.ObjectReference) (*unstructured.Unstructured, error) {
	partial := schema.GroupVersionResource{Group: ref.Group, Resource: ref.Resource}
	gvr, err := in.applier.Mapper.ResourceFor(partial)
	if err != nil {
		// A CRD may have been created since discovery was read.
		in.applier.Mapper.Reset()
		if gvr, err = in.applier.Mapper.ResourceFor(partial); err != nil {
			return nil, err
		}
	}
	var ri dynamic.ResourceInterface = in.dyn.Resource(gvr)
	if ref.Namespace != "" {
		ri = in.dyn.Resource(gvr).Namespace(ref.Namespace)
	}
	return ri.Get(ctx, ref.Name, metav1.GetOptions{})
}

// testMetrics: the pod's kube-rbac-proxy serves the operator's /metrics over
// TLS with the service CA's certificate for metrics.<namespace>.svc; it
// authenticates the caller (CMO's client certificate, whose CA the API
// server trusts, or a TokenReview; neither is 401) and authorizes it
// (SubjectAccessReview for get on /metrics: 403 without RBAC for it;
// prometheus-k8s is allowed by the manifests' ClusterRoleBinding
// cluster-node-operator-metrics-reader), then proxies to the operator's
// plain-HTTP endpoint on loopback. Other paths of the operator (/healthz)
// are not served to the cluster.
func (in *installation) testMetrics(t *testing.T) {
	ctx := framework.Context(t, 2*time.Minute)
	if in.proxy == nil {
		t.Fatal("the pod's kube-rbac-proxy was not started")
	} else if in.proxy.Exited() {
		t.Fatalf("the pod's kube-rbac-proxy exited\n%s", in.proxy.LogTail(30))
	}
	// Who may scrape: CMO's client certificate, as the platform Prometheus
	// presents it, and tokens.
	caFile := filepath.Join(in.pki.Dir, "service-ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: in.servingCA.Config.Certs[0].Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	scrapeCheckAuthentication(t, ctx, in.kube, in.pki, "127.0.0.1:"+strconv.Itoa(in.listenPort), caFile, operatorMetricsServerName)
	// What is served: the operator's metrics, no other path.
	token := in.token(ctx, "openshift-monitoring", "prometheus-k8s")
	for path, want := range map[string]int{"/metrics": http.StatusOK, "/healthz": http.StatusNotFound} {
		code, body, err := in.scrape(path, token)
		if err != nil || code != want || (want == http.StatusOK && !strings.Contains(body, "openshift_cluster_node_operator_build_info")) {
			t.Errorf("GET %s: HTTP %d (want %d, with the operator's build_info), %v: %.300s\n%s", path, code, want, err, body, in.proxy.LogTail(20))
		}
	}
}

func (in *installation) token(ctx context.Context, namespace, name string) string {
	token, err := framework.ServiceAccountToken(ctx, in.kube, namespace, name, framework.TokenOptions{})
	if err != nil {
		in.t.Fatal(err)
	}
	return token
}

// scrape gets a path of the metrics endpoint (kube-rbac-proxy) as Prometheus
// would: TLS verified against the service CA for the Service's name, with a
// bearer token.
func (in *installation) scrape(path, token string) (int, string, error) {
	pool := x509.NewCertPool()
	pool.AddCert(in.servingCA.Config.Certs[0])
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: operatorMetricsServerName, MinVersion: tls.VersionTLS12},
	}}
	var code int
	var body []byte
	var lastErr error
	// The process may have just started serving.
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 20*time.Second, true, func(context.Context) (bool, error) {
		req, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1:"+strconv.Itoa(in.listenPort)+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if lastErr = err; err != nil {
			return false, nil
		}
		defer resp.Body.Close()
		code = resp.StatusCode
		body, _ = io.ReadAll(resp.Body)
		if code >= 500 {
			lastErr = fmt.Errorf("HTTP %d: %s", code, body)
		}
		return code < 500, nil
	})
	if err != nil {
		return 0, "", fmt.Errorf("%w: %v", err, lastErr)
	}
	return code, string(body), nil
}

// testConfinement: the operator's RBAC lets it create Deployments anywhere
// (the NMState stack creates its namespace, so no Role can grant that), but
// the manifests' admission policy confines its writes to its namespaces.
func (in *installation) testConfinement(t *testing.T) {
	ctx := framework.Context(t, time.Minute)
	asOperator := kubernetes.NewForConfigOrDie(framework.ServiceAccountConfig(t, in.cfg, operatorNamespace, nodeOperatorName))
	deployment := func(ns string) *appsv1.Deployment {
		labels := map[string]string{"app": "e2e-confinement"}
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-confinement", Namespace: ns},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.e2e.invalid/pause"}}},
				},
			},
		}
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	_, err := asOperator.AppsV1().Deployments("default").Create(ctx, deployment("default"), dryRun)
	if err == nil || !strings.Contains(err.Error(), "cluster-node-operator-namespaces") {
		t.Errorf("creating a Deployment in default as the operator: got %v, want a denial by the policy cluster-node-operator-namespaces", err)
	} else {
		t.Logf("denied as expected: %v", err)
	}
	if _, err := asOperator.AppsV1().Deployments(operatorNamespace).Create(ctx, deployment(operatorNamespace), dryRun); err != nil &&
		strings.Contains(err.Error(), "cluster-node-operator-namespaces") {
		t.Errorf("the policy denies the operator's own namespace: %v", err)
	}

	// RBAC lets it create (and escalate) any role; the policy only its
	// operands'.
	_, err = asOperator.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-not-an-bindataOperand"}}, dryRun)
	if err == nil || !strings.Contains(err.Error(), "cluster-node-operator-rbac-names") {
		t.Errorf("creating ClusterRole e2e-not-an-bindataOperand as the operator: got %v, want a denial by the policy cluster-node-operator-rbac-names", err)
	} else {
		t.Logf("denied as expected: %v", err)
	}
	if _, err := asOperator.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "crio-metrics-client"}}, dryRun); err != nil &&
		!apierrors.IsAlreadyExists(err) {
		t.Errorf("the operator may not create its bindataOperand's ClusterRole crio-metrics-client: %v", err)
	}
}

// --- removal ----------------------------------------------------------------

// uninstall removes everything the manifests and the operator created, so the
// cluster is left as the test found it.
func (in *installation) uninstall() {
	t := in.t
	in.stopOperator()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var victims []*unstructured.Unstructured
	// What the operator said it owns, and what it applies.
	co, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
	if err == nil {
		for _, ref := range co.Status.RelatedObjects {
			if obj, err := in.getReference(ctx, ref); err == nil {
				victims = append(victims, obj)
			}
		}
	}
	victims = append(victims, in.liveOperands(ctx)...)
	in.deleteReducedRBAC(ctx)
	// The manifests, last first.
	for i := len(in.rel.Manifests) - 1; i >= 0; i-- {
		victims = append(victims, in.rel.Manifests[i].Object)
	}
	if err := in.deleteObjects(ctx, victims); err != nil {
		t.Logf("uninstall: %v", err)
	}
	// Namespaces take a while to go; wait, so that the next test starts
	// fresh.
	for _, ns := range append(in.operandNamespaces(), operatorNamespace) {
		err := wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
			_, err := in.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Errorf("uninstall: namespace %s is still there: %v", ns, err)
		}
	}
}

// deleteObjects deletes objects; those already gone, or whose API is gone
// with its CRD, are skipped.
func (in *installation) deleteObjects(ctx context.Context, objs []*unstructured.Unstructured) error {
	var errs []error
	background := metav1.DeletePropagationBackground
	for _, obj := range objs {
		if ri, err := in.applier.Resource(obj); err == nil {
			if err := ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &background}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// bindataOperand is an object the operator applies, from bindata/; its name may hold
// ${VARIABLES}.
type bindataOperand struct {
	gvk       schema.GroupVersionKind
	namespace string
	name      *regexp.Regexp
}

// operands reads bindata/.
func bindataOperands(t testing.TB) []bindataOperand {
	var files []string
	err := filepath.Walk(filepath.Join(framework.RepoRoot(t), "bindata"), func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []bindataOperand
	for _, obj := range framework.ReadManifests(t, files...) {
		parts := regexp.MustCompile(`\$\{[A-Z0-9_]+\}`).Split(obj.GetName(), -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		out = append(out, bindataOperand{obj.GroupVersionKind(), obj.GetNamespace(), regexp.MustCompile("^" + strings.Join(parts, "[a-z0-9.-]+") + "$")})
	}
	return out
}

// liveOperands lists the objects of the cluster that bindata/ describes.
func (in *installation) liveOperands(ctx context.Context) []*unstructured.Unstructured {
	applier := in.applier
	var out []*unstructured.Unstructured
	for _, o := range bindataOperands(in.t) {
		probe := &unstructured.Unstructured{}
		probe.SetGroupVersionKind(o.gvk)
		probe.SetNamespace(o.namespace)
		ri, err := applier.Resource(probe)
		if err != nil {
			continue // not served
		}
		list, err := ri.List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for i := range list.Items {
			if o.name.MatchString(list.Items[i].GetName()) {
				out = append(out, &list.Items[i])
			}
		}
	}
	return out
}

// operandNamespaces are the namespaces the operator creates.
func (in *installation) operandNamespaces() []string {
	var out []string
	for _, o := range bindataOperands(in.t) {
		if o.gvk.Kind == "Namespace" && o.gvk.Group == "" {
			out = append(out, strings.Trim(o.name.String(), "^$"))
		}
	}
	return out
}

// --- each rule is needed ------------------------------------------------------

const (
	// reducedServiceAccount runs the operator with its RBAC reduced by one
	// rule, bound to copies of its roles.
	reducedServiceAccount = "cluster-node-operator-e2e-reduced"
	reducedRoleName       = "e2e-reduced-cluster-node-operator"
	// deniedTimeout bounds how long a run may take to make the request the
	// removed rule allowed; visibleTimeout how long the failure may then
	// take to show.
	deniedTimeout  = 90 * time.Second
	visibleTimeout = 30 * time.Second
)

// ruleCase is one rule of the operator's RBAC.
type ruleCase struct {
	role      string // "ClusterRole" or "Role"
	namespace string // the Role's
	index     int
	rule      rbacv1.PolicyRule
}

func (c ruleCase) String() string {
	r := c.rule
	role := c.role
	if c.namespace != "" && c.namespace != operatorNamespace {
		role += " in " + c.namespace
	}
	s := fmt.Sprintf("%s rule %d: %v %v", role, c.index, r.Verbs, r.Resources)
	if len(r.APIGroups) > 0 && r.APIGroups[0] != "" {
		s += "." + strings.Join(r.APIGroups, ",")
	}
	if len(r.ResourceNames) > 0 {
		s += fmt.Sprintf(" %v", r.ResourceNames)
	}
	return s
}

var ruleWriteVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true, "escalate": true, "bind": true}

func (c ruleCase) writes() bool {
	for _, v := range c.rule.Verbs {
		if ruleWriteVerbs[v] {
			return true
		}
	}
	return false
}

func (c ruleCase) has(resource, verb string) bool {
	return hasString(c.rule.Resources, resource) && hasString(c.rule.Verbs, verb)
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scenario is the state a reduced run starts from, and what failure shows.
type rbacScenario string

const (
	// scenarioInstall: a fresh install (the previous run's lease, released,
	// is kept). The failure shows on the ClusterOperator: the CVO's criteria
	// are not met, or its conditions report the denied request (Degraded
	// turns True after the inertia: ADeniedWriteTurnsTheClusterOperatorDegraded).
	scenarioInstall rbacScenario = "install"
	// scenarioNoLease: a fresh install without the Lease.
	scenarioNoLease rbacScenario = "install without a Lease"
	// scenarioNoClusterOperator: the CVO has not created the ClusterOperator.
	scenarioNoClusterOperator rbacScenario = "ClusterOperator missing"
	// scenarioNoNodeOperator: NodeOperator cluster is gone; the operator
	// must delete its ClusterOperator.
	scenarioNoNodeOperator rbacScenario = "NodeOperator missing"
	// scenarioEvents: the operator's events are missing.
	scenarioEvents rbacScenario = "events"
	// scenarioEventOwner: the events are not about the operator's Deployment.
	scenarioEventOwner rbacScenario = "event owner"
	// scenarioRemoval: both stacks are opted out after a full install; the
	// rule's objects are not removed.
	scenarioRemoval rbacScenario = "stacks removed"
	// scenarioNodeTracing: an install with node tracing asked for where the
	// OpenTelemetry operator's API is served, so that the operator keeps
	// its per-node collector. The failure shows like an install's.
	scenarioNodeTracing rbacScenario = "node tracing through the collector"
	// scenarioOldSpelling: an install whose NodeOperator uses the previous
	// release's spelling (a stack's managementState), which the operator
	// converts with a patch of the spec. The failure shows like an install's.
	scenarioOldSpelling rbacScenario = "NodeOperator in the previous release's spelling"
)

func scenarioFor(c ruleCase) rbacScenario {
	switch {
	case c.has("leases", "create"):
		return scenarioNoLease
	case c.has("clusteroperators", "create"):
		return scenarioNoClusterOperator
	case c.has("clusteroperators", "delete") && !c.has("clusteroperators", "get"):
		return scenarioNoNodeOperator
	case c.has("events", "create"):
		return scenarioEvents
	case c.has("pods", "get") && len(c.rule.Resources) == 1, c.has("replicasets", "get"):
		return scenarioEventOwner
	case c.has("opentelemetrycollectors", "patch"):
		return scenarioNodeTracing
	case c.has("nodeoperators", "patch"):
		return scenarioOldSpelling
	}
	onlyUpdateDelete := true
	for _, v := range c.rule.Verbs {
		if v != "update" && v != "delete" {
			onlyUpdateDelete = false
		}
	}
	if onlyUpdateDelete && hasString(c.rule.Verbs, "delete") {
		return scenarioRemoval
	}
	return scenarioInstall
}

// testEachRuleIsNeeded runs the operator once per rule of its ClusterRole and
// Role (by default the rules that allow writes; E2E_RBAC_SWEEP=all adds the
// reads, =none skips), each time as a ServiceAccount bound to copies of the
// roles without that rule, from a state where the rule is needed. Only the
// operator container runs: the rules are the operator's, and no scenario
// scrapes. Each run must make a request the API server denies for lack of
// the rule, and fail visibly. Every wait polls for its condition.
func (in *installation) testEachRuleIsNeeded(t *testing.T) {
	mode := os.Getenv("E2E_RBAC_SWEEP")
	if mode == "none" {
		t.Skip("E2E_RBAC_SWEEP=none")
	}
	// Each run must fail visibly: denied, unavailable or degraded.
	framework.ExpectDisruption(t, "the operator runs once per write rule, without that rule")
	in.stopOperator()
	ctx := framework.Context(t, time.Minute)
	if _, err := in.kube.CoreV1().ServiceAccounts(operatorNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: reducedServiceAccount}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var cases []ruleCase
	for i, r := range in.releaseRole(t, "ClusterRole", "").Rules {
		cases = append(cases, ruleCase{role: "ClusterRole", index: i, rule: r})
	}
	for _, ns := range in.roleNamespaces() {
		for i, r := range in.releaseRole(t, "Role", ns).Rules {
			cases = append(cases, ruleCase{role: "Role", namespace: ns, index: i, rule: r})
		}
	}
	selected := 0
	for _, c := range cases {
		c := c
		if mode != "all" && !c.writes() {
			continue
		}
		selected++
		t.Run(strings.NewReplacer(" ", "_", "[", "", "]", "").Replace(c.String()), func(t *testing.T) {
			in.checkRuleIsNeeded(t, c)
		})
	}
	t.Logf("%d of the %d rules selected (E2E_RBAC_SWEEP=%q)", selected, len(cases), mode)
}

// roleNamespaces are where the release of the cluster's profile grants the
// operator a Role (its own namespace first), read from the release so that a
// new Role is swept and copied to the reduced ServiceAccount without an edit.
func (in *installation) roleNamespaces() []string {
	out := []string{operatorNamespace}
	for _, m := range in.rel.Manifests {
		if ns := m.Object.GetNamespace(); m.Object.GetKind() == "Role" && m.Object.GetName() == nodeOperatorName && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// releaseRole is the release's ClusterRole, or its Role in a namespace, of
// the operator.
func (in *installation) releaseRole(t *testing.T, kind, namespace string) *rbacv1.ClusterRole {
	var obj *unstructured.Unstructured
	for _, m := range in.rel.Manifests {
		if m.Object.GetKind() == kind && m.Object.GetName() == nodeOperatorName && m.Object.GetNamespace() == namespace {
			obj = m.Object
		}
	}
	if obj == nil {
		t.Fatalf("the release has no %s %s in %q", kind, nodeOperatorName, namespace)
	}
	r := &rbacv1.ClusterRole{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (in *installation) checkRuleIsNeeded(t *testing.T, c ruleCase) {
	sc := scenarioFor(c)
	t.Logf("scenario: %s", sc)
	in.t = t
	defer func(parent *testing.T) { in.t = parent }(in.t)

	// The events scenarios show first, from the same fresh state, that the
	// full RBAC gives the opposite outcome.
	if sc == scenarioEvents || sc == scenarioEventOwner {
		in.runScenario(t, sc, "", c, nil)
		if err := in.awaitOutcome(t, sc, c, false); err != nil {
			t.Fatalf("with its full RBAC: %v\n%s", err, in.logTail(20))
		}
		in.stopOperator()
	}

	in.applyReducedRBAC(t, c)
	started := in.runScenario(t, sc, reducedServiceAccount, c, nil)
	defer in.stopOperator()

	// Where the failure is something that does not happen (an object not
	// created or not deleted, no events), the operator must have retried and
	// been denied again: the failure lasts, it is not a first attempt that a
	// retry would get past. Three denied lines are at least two attempts,
	// even where an attempt logs its error and an event.
	deny := deniedPattern(c)
	want := 1
	if absenceScenarios[sc] {
		want = 3
	}
	var denials []string
	framework.Eventually(t, deniedTimeout, 100*time.Millisecond, func() (bool, error) {
		denials = deny.FindAllString(in.operatorLog(), want)
		if len(denials) < want && in.operator.Exited() {
			return false, fmt.Errorf("the operator exited with %d of %d denials:\n%s", len(denials), want, in.logTail(20))
		}
		return len(denials) >= want, nil
	}, fmt.Sprintf("the operator to be denied %d request(s) the rule allows (%s); log %s", want, deny, in.operator.LogPath))
	t.Logf("denied %d time(s) after %s: %.300s", len(denials), time.Since(started).Round(100*time.Millisecond), denials[0])

	if err := in.awaitOutcome(t, sc, c, true); err != nil {
		t.Fatalf("%v\n%s", err, in.logTail(20))
	}

	// Where the failure is an object left behind, the operator with its full
	// RBAC then does, from that very state, what the reduced one could not.
	if sc == scenarioNoNodeOperator || sc == scenarioRemoval {
		in.stopOperator()
		in.started = time.Now()
		in.startOperator(framework.Context(t, time.Minute), "", false)
		if err := in.awaitOutcome(t, sc, c, false); err != nil {
			t.Fatalf("with its full RBAC: %v\n%s", err, in.logTail(20))
		}
	}
}

// absenceScenarios are those whose failure is that something does not
// happen.
var absenceScenarios = map[rbacScenario]bool{
	scenarioNoClusterOperator: true,
	scenarioNoNodeOperator:    true,
	scenarioEvents:            true,
	scenarioRemoval:           true,
}

// awaitOutcome waits for the scenario's failure (or, with failed false, its
// success) to show.
func (in *installation) awaitOutcome(t *testing.T, sc rbacScenario, c ruleCase, failed bool) error {
	var last error
	_ = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, visibleTimeout, true, func(context.Context) (bool, error) {
		last = in.outcome(t, sc, c, failed)
		return last == nil, nil
	})
	return last
}

// testDeniedWriteDegrades follows one denied write past library-go's
// inertia: the ClusterOperator that first only reports it in its Degraded
// message turns Degraded=True, which makes the CVO report the failure.
//
// The operator starts as if an earlier process of it had been denied the
// same write for longer than the inertia table's two minutes: NodeOperator
// cluster already carries MetricsDegraded=True since then,
// written by the same field manager as the operator's. The operator keeps
// that transition time (its status is a function of the world, not of its
// own uptime), so the ClusterOperator turns Degraded=True at once, with the
// API server's denial as the message. That the inertia runs out in real time
// is TestCoreMissingInfrastructure's to show.
func (in *installation) testDeniedWriteDegrades(t *testing.T) {
	if os.Getenv("E2E_RBAC_SWEEP") == "none" {
		t.Skip("E2E_RBAC_SWEEP=none")
	}
	var c *ruleCase
	for i, r := range in.releaseRole(t, "ClusterRole", "").Rules {
		if hasString(r.Resources, "securitycontextconstraints") && hasString(r.Verbs, "create") {
			c = &ruleCase{role: "ClusterRole", index: i, rule: r}
		}
	}
	if c == nil {
		t.Fatal("the ClusterRole has no rule to create SecurityContextConstraints")
	}
	in.t = t
	defer func(parent *testing.T) { in.t = parent }(in.t)
	framework.ExpectDisruption(t, "the operator is denied creating its SecurityContextConstraints, past the inertia")
	in.applyReducedRBAC(t, *c)
	const earlierMessage = "e2e: reported by an earlier process of the operator"
	since := time.Now().Add(-degradedInertia - 5*time.Second)
	started := in.runScenario(t, scenarioInstall, reducedServiceAccount, *c, func(ctx context.Context) {
		if err := framework.ReportedSince(ctx, in.dyn, "CRIOMetrics", "MetricsDegraded", earlierMessage, since); err != nil {
			t.Fatalf("writing the earlier process's condition: %v", err)
		}
	})
	defer in.stopOperator()
	ctx := framework.Context(t, 2*time.Minute)
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		co, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range co.Status.Conditions {
			if cond.Type == configv1.OperatorDegraded && cond.Status == configv1.ConditionTrue &&
				strings.Contains(cond.Message, "securitycontextconstraints") && strings.Contains(cond.Message, "forbidden") {
				t.Logf("Degraded=True after %s: %.300s", time.Since(started).Round(100*time.Millisecond), cond.Message)
				return true, nil
			}
		}
		return false, nil
	}, "clusteroperator/node to turn Degraded=True for the denied SecurityContextConstraints")
	no, err := in.dyn.Resource(nodeOperatorsResource).Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(no.Object, "status", "conditions")
	for _, raw := range conds {
		cond, _ := raw.(map[string]interface{})
		if cond["type"] == "MetricsDegraded" && cond["lastTransitionTime"] != since.UTC().Format(time.RFC3339) {
			t.Errorf("MetricsDegraded's transition time is %v, want the earlier process's %s", cond["lastTransitionTime"], since.UTC().Format(time.RFC3339))
		}
	}
}

// degradedInertia is the inertia table's entry for MetricsDegraded
// (pkg/operator/starter.go).
const degradedInertia = 30 * time.Minute

// deniedPattern matches the API server's denial of a request the rule
// allowed: "cannot <verb> resource ..." for plain verbs, and the escalation
// check's "attempting to grant RBAC permissions not currently held" for
// escalate and bind, and for permissions held so that they may be bound.
func deniedPattern(c ruleCase) *regexp.Regexp {
	var alts []string
	for _, v := range c.rule.Verbs {
		for _, r := range c.rule.Resources {
			for _, g := range c.rule.APIGroups {
				// Quotes may be escaped (a message within a message).
				q := func(s string) string { return `\\?"` + regexp.QuoteMeta(s) + `\\?"` }
				alts = append(alts, `cannot `+regexp.QuoteMeta(v)+` resource `+q(r)+` in API group `+q(g),
					// The permission is held so that a role granting it may
					// be bound or created without escalate.
					`attempting to grant RBAC permissions not currently held[^\n]*Resources:\[`+q(r)+`\][^\n]*`+q(v))
			}
			if v == "escalate" || v == "bind" {
				kinds := r
				if v == "bind" {
					kinds = strings.TrimSuffix(r, "s") + "bindings"
				}
				alts = append(alts, regexp.QuoteMeta(kinds+".rbac.authorization.k8s.io")+`[^\n]*is forbidden[^\n]*attempting to grant RBAC permissions not currently held`)
			}
		}
	}
	return regexp.MustCompile(`[^\n]*(` + strings.Join(alts, "|") + `)[^\n]*`)
}

// applyReducedRBAC binds the reduced ServiceAccount to copies of the
// operator's roles without the rule.
func (in *installation) applyReducedRBAC(t *testing.T, c ruleCase) {
	ctx := framework.Context(t, time.Minute)
	in.deleteReducedRBAC(ctx)
	without := func(kind, namespace string) []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for i, r := range in.releaseRole(t, kind, namespace).Rules {
			if c.role == kind && c.namespace == namespace && c.index == i {
				continue
			}
			out = append(out, r)
		}
		return out
	}
	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: operatorNamespace, Name: reducedServiceAccount}}
	meta := func(ns string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: reducedRoleName, Namespace: ns, Labels: map[string]string{"e2e.cluster-node-operator/reduced": "true"}}
	}
	var errs []error
	_, err := in.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta(""), Rules: without("ClusterRole", "")}, metav1.CreateOptions{})
	errs = append(errs, err)
	_, err = in.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta(""), Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reducedRoleName}}, metav1.CreateOptions{})
	errs = append(errs, err)
	for _, ns := range in.roleNamespaces() {
		_, err = in.kube.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: meta(ns), Rules: without("Role", ns)}, metav1.CreateOptions{})
		errs = append(errs, err)
		_, err = in.kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta(ns), Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: reducedRoleName}}, metav1.CreateOptions{})
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// deleteReducedRBAC removes the reduced ServiceAccount's roles and bindings.
func (in *installation) deleteReducedRBAC(ctx context.Context) {
	_ = in.kube.RbacV1().ClusterRoleBindings().Delete(ctx, reducedRoleName, metav1.DeleteOptions{})
	_ = in.kube.RbacV1().ClusterRoles().Delete(ctx, reducedRoleName, metav1.DeleteOptions{})
	for _, ns := range in.roleNamespaces() {
		_ = in.kube.RbacV1().RoleBindings(ns).Delete(ctx, reducedRoleName, metav1.DeleteOptions{})
		_ = in.kube.RbacV1().Roles(ns).Delete(ctx, reducedRoleName, metav1.DeleteOptions{})
	}
}

// runScenario brings the cluster to the scenario's starting state for the
// rule, calls before (when not nil), and starts the operator as the
// ServiceAccount ("" for its own). It returns when the operator started.
func (in *installation) runScenario(t *testing.T, sc rbacScenario, serviceAccount string, c ruleCase, before func(context.Context)) time.Time {
	ctx := framework.Context(t, 5*time.Minute)
	in.reset(ctx, sc != scenarioNoLease, !hasString(c.rule.Resources, "namespaces"))
	if sc == scenarioRemoval {
		// An install that got as far as the rule's objects, then the
		// opt-out.
		in.precreateClusterOperator(ctx)
		in.createNodeOperator(ctx)
		in.startOperator(ctx, "", false)
		var missing []string
		err := wait.PollUntilContextCancel(framework.Context(t, installTimeout), 250*time.Millisecond, true, func(context.Context) (bool, error) {
			if in.operator.Exited() {
				return false, fmt.Errorf("the operator exited:\n%s", in.logTail(30))
			}
			left, err := in.ruleObjects(ctx, c)
			missing = nil
			for _, name := range ruleObjectNames(c) {
				if !hasString(left, name) {
					missing = append(missing, name)
				}
			}
			return len(missing) == 0, err
		})
		if err != nil {
			t.Fatalf("installing %v with full RBAC: %v (missing %v)\n%s", ruleObjectNames(c), err, missing, in.logTail(30))
		}
		in.stopOperator()
		patch := []byte(`{"spec":{"metrics":{"state":"Disabled","managementState":null},"nmstate":{"state":"Disabled","managementState":null}}}`)
		if _, err := in.dyn.Resource(nodeOperatorsResource).Patch(ctx, "cluster", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	} else {
		if sc != scenarioNoClusterOperator {
			in.precreateClusterOperator(ctx)
		}
		if sc != scenarioNoNodeOperator {
			in.createNodeOperator(ctx)
		}
	}
	if sc == scenarioOldSpelling {
		patch := []byte(`{"spec":{"metrics":{"managementState":"Managed"}}}`)
		if _, err := in.dyn.Resource(nodeOperatorsResource).Patch(ctx, "cluster", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if sc == scenarioNodeTracing {
		framework.ServeOpenTelemetryCollectors(t, in.cfg)
		patch := []byte(`{"spec":{"nodeSettings":{"tracing":{"endpoint":"otel.example.com:4317","crio":{"samplingRatePerMillion":1000}}}}}`)
		if _, err := in.dyn.Resource(nodeOperatorsResource).Patch(ctx, "cluster", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if before != nil {
		before(ctx)
	}
	start := time.Now()
	in.started = start
	// The operator only: the rules are the operator's, and the scenarios
	// scrape nothing.
	in.startOperator(ctx, serviceAccount, false)
	return start
}

var nodeOperatorsResource = schema.GroupVersionResource{Group: "nodeoperator.openshift.io", Version: "v1alpha1", Resource: "nodeoperators"}

// reset stops the operator and removes what it created, its events, its
// ClusterOperator and its NodeOperator; with keepLease the released Lease
// stays. With keepNamespaces the namespaces it created stay, emptied of what
// it put there: a namespace takes seconds to be finalized, and only the rules
// about namespaces need a fresh one.
func (in *installation) reset(ctx context.Context, keepLease, keepNamespaces bool) {
	t := in.t
	in.stopOperator()
	var victims []*unstructured.Unstructured
	for _, obj := range in.liveOperands(ctx) {
		if keepNamespaces && obj.GetKind() == "Namespace" && obj.GetAPIVersion() == "v1" {
			continue
		}
		victims = append(victims, obj)
	}
	for name, kind := range map[string]string{"crio-metrics-ca-bundle": "ConfigMap", metricsclientca.Name: "ConfigMap", "crio-metrics-signer": "Secret", "crio-metrics-serving-cert": "Secret"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind(kind)
		u.SetNamespace(operatorNamespace)
		u.SetName(name)
		victims = append(victims, u)
	}
	_ = in.config.ConfigV1().ClusterOperators().Delete(ctx, nodeClusterOperator, metav1.DeleteOptions{})
	_ = in.dyn.Resource(nodeOperatorsResource).Delete(ctx, "cluster", metav1.DeleteOptions{})
	if !keepLease {
		_ = in.kube.CoordinationV1().Leases(operatorNamespace).Delete(ctx, operatorLeaseName, metav1.DeleteOptions{})
	}
	if err := in.kube.CoreV1().Events(operatorNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatalf("reset: deleting the events: %v", err)
	}
	if err := in.deleteObjects(ctx, victims); err != nil {
		t.Fatalf("reset: %v", err)
	}
	// Wait until everything is gone (namespaces are finalized).
	framework.Eventually(t, 3*time.Minute, 250*time.Millisecond, func() (bool, error) {
		for _, obj := range append(victims, in.rel.Find("NodeOperator", "cluster")) {
			ri, err := in.applier.Resource(obj)
			if err != nil {
				continue
			}
			if _, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		_, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}, "the operator's objects to be gone")
}

// ruleObjectNames are the objects (resource/name) a removal rule names.
func ruleObjectNames(c ruleCase) []string {
	var out []string
	for _, res := range c.rule.Resources {
		for _, name := range c.rule.ResourceNames {
			out = append(out, res+"/"+name)
		}
	}
	return out
}

// ruleObjects returns those of the objects a removal rule names that exist.
func (in *installation) ruleObjects(ctx context.Context, c ruleCase) ([]string, error) {
	var out []string
	for _, res := range c.rule.Resources {
		for _, name := range c.rule.ResourceNames {
			var err error
			switch res {
			case "secrets":
				_, err = in.kube.CoreV1().Secrets(operatorNamespace).Get(ctx, name, metav1.GetOptions{})
			case "configmaps":
				_, err = in.kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, name, metav1.GetOptions{})
			case "namespaces":
				// A namespace being finalized counts as gone: the
				// operator deleted it.
				var ns *corev1.Namespace
				if ns, err = in.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{}); err == nil && ns.DeletionTimestamp != nil {
					continue
				}
			default:
				return nil, fmt.Errorf("no removal check for %s", res)
			}
			switch {
			case err == nil:
				out = append(out, res+"/"+name)
			case !apierrors.IsNotFound(err):
				return nil, err
			}
		}
	}
	return out, nil
}

func (in *installation) precreateClusterOperator(ctx context.Context) {
	if err := framework.PrecreateClusterOperator(ctx, in.config, in.expectedClusterOperator()); err != nil {
		in.t.Fatal(err)
	}
}

// createNodeOperator creates NodeOperator cluster from the manifest, as the
// CVO does for a create-only manifest.
func (in *installation) createNodeOperator(ctx context.Context) {
	obj := in.rel.Find("NodeOperator", "cluster").DeepCopy()
	var last error
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = in.dyn.Resource(nodeOperatorsResource).Create(ctx, obj, metav1.CreateOptions{})
		return last == nil || apierrors.IsAlreadyExists(last), nil
	}); err != nil {
		in.t.Fatalf("creating NodeOperator cluster: %v (%v)", err, last)
	}
}

// outcome returns nil when the scenario's outcome is the failure (failed
// true) or the success (failed false) it should be.
func (in *installation) outcome(t *testing.T, sc rbacScenario, c ruleCase, failed bool) error {
	ctx := framework.Context(t, time.Minute)
	want := func(failure bool, what string) error {
		if failure == failed {
			return nil
		}
		if failed {
			return fmt.Errorf("want the failure (%s), but it does not show", what)
		}
		return fmt.Errorf("want no failure, but %s", what)
	}
	co, coErr := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
	switch sc {
	case scenarioNoClusterOperator:
		return want(apierrors.IsNotFound(coErr), "the ClusterOperator is missing")
	case scenarioNoNodeOperator:
		return want(coErr == nil, "the ClusterOperator is still there although NodeOperator cluster is gone")
	case scenarioEvents, scenarioEventOwner:
		events, err := in.kube.CoreV1().Events(operatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		ours, aboutDeployment := 0, 0
		for _, ev := range events.Items {
			if ev.CreationTimestamp.Time.Before(in.started.Add(-time.Second)) {
				continue
			}
			if !strings.HasPrefix(ev.Source.Component, nodeOperatorName) && !strings.HasPrefix(ev.ReportingController, nodeOperatorName) {
				continue
			}
			ours++
			if ev.InvolvedObject.Kind == "Deployment" && ev.InvolvedObject.Name == nodeOperatorName {
				aboutDeployment++
			}
		}
		if sc == scenarioEvents {
			return want(ours == 0, fmt.Sprintf("the operator recorded %d events", ours))
		}
		if ours == 0 {
			return errors.New("no events yet")
		}
		return want(aboutDeployment == 0, fmt.Sprintf("%d of %d events are not about the Deployment", ours-aboutDeployment, ours))
	case scenarioRemoval:
		left, err := in.ruleObjects(ctx, c)
		if err != nil {
			return err
		}
		return want(len(left) > 0, fmt.Sprintf("%v are left after the opt-out", left))
	}

	// The CVO's view.
	if coErr != nil {
		return want(true, coErr.Error())
	}
	if err := framework.ClusterOperatorHealth(in.expectedClusterOperator(), co); err != nil {
		return want(true, err.Error())
	}
	for _, cond := range co.Status.Conditions {
		if strings.Contains(cond.Message, "forbidden") || strings.Contains(cond.Message, "not currently held") {
			return want(true, fmt.Sprintf("clusteroperator/%s %s reports %.200s", nodeClusterOperator, cond.Type, cond.Message))
		}
	}
	return want(false, "the ClusterOperator is healthy")
}
