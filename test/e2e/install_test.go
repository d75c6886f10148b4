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
	"github.com/stretchr/testify/require"
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
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	// operatorNamespace is also used by the other tests of this package.
	operatorNamespace         = "openshift-cluster-node-operator"
	crioMetricsNamespace      = "openshift-crio-metrics"
	nodeOperatorName          = "cluster-node-operator"
	nodeClusterOperator       = "node"
	operatorMetricsServerName = "metrics." + operatorNamespace + ".svc"
	operatorLeaseName         = "cluster-node-operator-lock"
	// The Deployment's --listen, and its kube-rbac-proxy's listen address and upstream.
	deploymentListen        = "127.0.0.1:8080"
	deploymentProxyListen   = "0.0.0.0:8443"
	deploymentProxyUpstream = "http://" + deploymentListen + "/"
	proxyContainer          = "kube-rbac-proxy"
	installTimeout          = 4 * time.Minute
	nodeOperatorBinary      = "cluster-node-operator"
)

// TestInstallAsCVO: docs/test-behaviours.md. The real CVO installs the release; the Deployment's pod runs as the pod would (podRunner).
func TestInstallAsCVO(t *testing.T) {
	in := newInstallation(t, "")
	cvo, cv := in.installWithCVO(func() { t.Run("MustGatherBeforeTheOperatorRuns", in.testMustGatherBeforeTheOperatorRuns) })
	in.startProxy()

	t.Run("HistoryHasOneCompletedEntry", func(t *testing.T) {
		if len(cv.Status.History) != 1 || cv.Status.Desired.Version != in.rel.Options.Version || cv.Status.Desired.Image != cvo.Payload.Image {
			t.Errorf("want one history entry and desired %s %s:\n%s", in.rel.Options.Version, cvo.Payload.Image, framework.DescribeClusterVersion(cv))
		}
		// An install's only gate is Available (docs/release-payload.md): the
		// version follows once every operand rolled out.
		framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			return framework.OperatorVersion(framework.LiveClusterOperator(t, in.cfg, nodeClusterOperator)) == cv.Status.Desired.Version, nil
		}, "versions[operator] to be the installed release's "+cv.Status.Desired.Version)
	})
	t.Run("HostedDeploymentIsExcludedByProfile", func(t *testing.T) { in.testHostedExcluded(t, cvo) })
	t.Run("PodIsPlacedOnTheControlPlane", in.testPlacement)
	t.Run("PodSecurityAdmitsEachPodAtItsNamespacesLevel", in.testPodSecurity)
	t.Run("NoRequestWasForbidden", in.testNothingForbidden)
	t.Run("OperandsUseTheReleaseImages", in.testOperandImages)
	t.Run("RelatedObjectsResolve", in.testRelatedObjects)
	t.Run("MetricsAreServedWithAuthnAndAuthz", in.testMetrics)
	t.Run("WritesAreConfinedToOwnNamespaces", in.testConfinement)
	t.Run("MustGatherWithBothStacks", in.testMustGatherWithBothStacks)
	// The sweep deletes and recreates what the CVO would restore.
	cvo.Stop()
	t.Run("EachRuleIsNeeded", in.testEachRuleIsNeeded)
	t.Run("ADeniedWriteTurnsTheClusterOperatorDegraded", in.testDeniedWriteDegrades)
}

// TestInstallAsCVOHostedProfile: docs/test-behaviours.md.
func TestInstallAsCVOHostedProfile(t *testing.T) {
	in := newInstallation(t, "hypershift")
	in.installWithCVO(nil)
	pod, node := in.operatorNode(t)
	if _, ok := node.Labels["node-role.kubernetes.io/master"]; ok {
		t.Errorf("the hosted variant's pod runs on control-plane node %s", node.Name)
	}
	in.testNothingForbidden(t)
	t.Logf("pod %s on worker %s", pod.Name, node.Name)
}

// installation is the operator installed on the cluster under test.
type installation struct {
	t         *testing.T
	cfg       *rest.Config
	kube      kubernetes.Interface
	dyn       dynamic.Interface
	config    configclient.Interface
	rel       *framework.Release
	applier   *framework.Applier
	servingCA *crypto.CA             // the service CA's, for the metrics Service
	pki       *framework.PlatformPKI // CMO's: its client CA is the API server's

	operator, proxy *framework.Process // the pod's two containers, when running
	runner          *podRunner         // plays the kubelet for the operator's pods, once installed
	operatorListen  string             // the operator's --listen, moved to this machine
	listenPort      int                // the proxy's, which scrapes go to
	started         time.Time
}

// newInstallation readies a profile's install ("" for self-managed-high-availability), uninstalled when the test ends.
func newInstallation(t *testing.T, profile string) *installation {
	t.Helper()
	cluster := framework.NewCluster(t)
	ca, err := crypto.MakeSelfSignedCAConfigForDuration("openshift-service-serving-signer@e2e", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	in := &installation{
		t: t, cfg: cluster.Config, kube: kubernetes.NewForConfigOrDie(cluster.Config), dyn: cluster.Dynamic, config: cluster.Config1,
		applier:   framework.NewApplier(t, cluster.Config),
		servingCA: &crypto.CA{Config: ca, SerialGenerator: &crypto.RandomSerialGenerator{}},
		rel: framework.ReadRelease(t, framework.ReleaseOptions{Profile: profile, Version: fmt.Sprintf("4.99.0-0.e2e-%d", time.Now().Unix()),
			FeatureSet: framework.ClusterFeatureSet(t, cluster.Config)}),
	}
	// MCO's node disruption policy status, as framework.StartOperator has it.
	framework.StartMCOPolicyStatus(t, in.cfg)
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

// publishMetricsClientCA plays CMO 4.19+, which publishes openshift-monitoring/metrics-client-ca.
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

// startCVO starts the real CVO on a payload of repo ("" for this checkout) at version; later: update targets.
func (in *installation) startCVO(repo, version string, later ...string) *framework.RealCVO {
	t := in.t
	framework.PrepareCVOCluster(t, in.cfg, append([]string{version}, later...)...)
	// Registered before the CVO starts, so that it runs once it stopped.
	t.Cleanup(func() { framework.ResetClusterVersion(t, in.config) })
	payload := framework.WritePayload(t, t.TempDir(), framework.PayloadOptions{Repo: repo, Version: version})
	return framework.StartRealCVO(t, in.cfg, payload, in.rel.Options.Profile)
}

// installWithCVO installs with the real CVO until ClusterVersion is Completed; beforeOperator
// runs once the CVO created the ClusterOperator and what it names, before the operator runs.
func (in *installation) installWithCVO(beforeOperator func()) (*framework.RealCVO, *configv1.ClusterVersion) {
	t := in.t
	version := in.rel.Options.Version
	in.started = time.Now()
	cvo := in.startCVO("", version)
	if beforeOperator != nil {
		ctx := framework.Context(t, 3*time.Minute)
		framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			co, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
			if err != nil || len(co.Status.RelatedObjects) == 0 {
				return false, err
			}
			for _, ref := range co.Status.RelatedObjects {
				if _, err := in.getReference(ctx, ref); err != nil {
					return false, err
				}
			}
			return true, nil
		}, "the CVO to create clusteroperator/"+nodeClusterOperator+" and what its relatedObjects name")
		beforeOperator()
	}
	runner := newPodRunner(in, map[string]string{version: operatorBinary(t)})
	in.runner = runner
	cv := runner.waitForClusterVersion(cvo, 10*time.Minute, framework.ClusterVersionCompleted(version))
	for _, pp := range runner.running {
		in.operator, in.operatorListen = pp.proc, pp.listen
	}
	t.Logf("the CVO installed the release in %s", time.Since(in.started).Round(time.Second))
	return cvo, cv
}

// expectedClusterOperator is the release's ClusterOperator manifest.
func (in *installation) expectedClusterOperator() *configv1.ClusterOperator {
	co := &configv1.ClusterOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in.rel.Find("ClusterOperator", nodeClusterOperator).Object, co); err != nil {
		in.t.Fatal(err)
	}
	return co
}

// startOperator runs the running pod's operator container, as serviceAccount when set.
func (in *installation) startOperator(ctx context.Context, serviceAccount string) {
	in.operator, in.operatorListen = startOperatorContainer(in.t, in.cfg, in.operatorPod(ctx), serviceAccount, operatorBinary(in.t))
}

// startProxy runs the pod's kube-rbac-proxy container, only its port and upstream moved.
func (in *installation) startProxy() {
	t := in.t
	ctx := framework.Context(t, 2*time.Minute)
	if err := framework.EnsureTool(t, "kube-rbac-proxy"); err != nil {
		t.Fatal(err)
	}
	in.issueServingCert(ctx, in.rel.Find("Service", "metrics"))
	// The kubelet restarts kube-rbac-proxy until any replica copied the CA.
	framework.Eventually(t, time.Minute, 100*time.Millisecond, func() (bool, error) {
		_, err := in.kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, metricsclientca.Name, metav1.GetOptions{})
		return err == nil, nil
	}, "the operator to copy the client CA")
	in.listenPort = framework.FreePort(t)
	in.proxy = framework.StartPodProcess(t, in.cfg, framework.PodProcessOptions{
		Pod:       in.operatorPod(ctx),
		Container: proxyContainer,
		Binaries:  map[string]string{"kube-rbac-proxy": filepath.Join(framework.RepoRoot(t), "_output", "bin", "kube-rbac-proxy")},
		RewriteArgs: func(args []string) []string {
			return rewriteArgs(t, args, map[string]string{
				"--secure-listen-address=" + deploymentProxyListen: "--secure-listen-address=127.0.0.1:" + strconv.Itoa(in.listenPort),
				"--upstream=" + deploymentProxyUpstream:            "--upstream=http://" + in.operatorListen + "/",
			})
		},
	})
}

// startOperatorContainer runs a pod's operator container with binary, returning its moved --listen.
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

// rewriteArgs replaces each argument of replace, all of which must be there.
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

// stopOperator stops the operator (releasing its lease) and its kube-rbac-proxy.
func (in *installation) stopOperator() {
	for _, p := range []**framework.Process{&in.proxy, &in.operator} {
		if *p != nil {
			(*p).Stop()
			*p = nil
		}
	}
}

func (in *installation) logTail(lines int) string {
	if in.operator == nil {
		return "(the operator is not running)"
	}
	return "operator " + in.operator.LogTail(lines)
}

// issueServingCert plays the service CA operator for the Service.
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

// testPlacement: the pod lands on a (NoSchedule-tainted) control-plane node.
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

// podSecurityLevels are the Pod Security levels our namespaces enforce (and audit and warn).
var podSecurityLevels = map[string]string{operatorNamespace: "restricted", crioMetricsNamespace: "privileged", "openshift-nmstate": "privileged"}

// testPodSecurity: each namespace enforces its level, and the API server's PodSecurity admission
// admits each pod of ours there: a dry-run create of its template as a Pod; the CRI-O metrics pod is
// refused in the operator's namespace, which proves the admission on.
func (in *installation) testPodSecurity(t *testing.T) {
	ctx := framework.Context(t, 3*time.Minute)
	for ns, level := range podSecurityLevels {
		live, err := in.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		require.NoError(t, err)
		for _, mode := range []string{"enforce", "audit", "warn"} {
			if got := live.Labels["pod-security.kubernetes.io/"+mode]; got != level {
				t.Errorf("namespace %s: pod-security.kubernetes.io/%s=%q, want %q", ns, mode, got, level)
			}
		}
	}
	var warnings bytes.Buffer
	cfg := rest.CopyConfig(in.cfg)
	cfg.WarningHandler = rest.NewWarningWriter(&warnings, rest.WarningWriterOptions{})
	client := kubernetes.NewForConfigOrDie(cfg)
	admit := func(ns, name string, spec corev1.PodSpec, labels map[string]string) error {
		spec.PriorityClassName, spec.Priority = "", nil // what Pod Security does not look at
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "e2e-pod-security-" + name, Namespace: ns, Labels: labels}, Spec: spec}
		_, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	var crio corev1.PodTemplateSpec
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		ds, err := in.kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(ctx, criometrics.DaemonSetName, metav1.GetOptions{})
		if err == nil {
			crio = ds.Spec.Template
		}
		return err == nil, err
	}, "the CRI-O metrics DaemonSet")
	deployments := map[string]string{operatorNamespace: nodeOperatorName, "openshift-nmstate": "nmstate-operator"}
	for ns, name := range deployments {
		d, err := in.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		if err := admit(ns, name, d.Spec.Template.Spec, d.Spec.Template.Labels); err != nil {
			t.Errorf("PodSecurity %q of namespace %s refuses Deployment %s's pod: %v", podSecurityLevels[ns], ns, name, err)
		}
	}
	if err := admit(crioMetricsNamespace, criometrics.DaemonSetName, crio.Spec, crio.Labels); err != nil {
		t.Errorf("PodSecurity %q of namespace %s refuses the CRI-O metrics pod: %v", podSecurityLevels[crioMetricsNamespace], crioMetricsNamespace, err)
	}
	// Other warnings (deprecated labels) are the API server's, not PodSecurity's.
	if strings.Contains(warnings.String(), "PodSecurity") {
		t.Errorf("PodSecurity warnings: %s", warnings.String())
	}
	// (as a ServiceAccount of that namespace: the ServiceAccount admission comes first)
	misplaced := *crio.Spec.DeepCopy()
	misplaced.ServiceAccountName = "default"
	err := admit(operatorNamespace, criometrics.DaemonSetName, misplaced, crio.Labels)
	if err == nil || !strings.Contains(err.Error(), `violates PodSecurity "restricted`) {
		t.Errorf("the CRI-O metrics pod in %s: %v, want refused by PodSecurity restricted", operatorNamespace, err)
	}
}

var forbiddenLines = regexp.MustCompile(`(?i)[^\n]*forbidden[^\n]*`)

// testNothingForbidden: with its RBAC, the operator was never denied.
func (in *installation) testNothingForbidden(t *testing.T) {
	if lines := forbiddenLines.FindAllString(in.operator.Log(), 10); len(lines) > 0 {
		t.Errorf("the operator was denied requests its RBAC should allow:\n%s", strings.Join(lines, "\n"))
	}
}

// testOperandImages: the operands run the release's images, not the placeholders.
func (in *installation) testOperandImages(t *testing.T) {
	released, found := map[string]bool{}, 0
	for _, spec := range in.rel.Images {
		released[spec] = true
	}
	for _, obj := range in.liveOperands(framework.Context(t, time.Minute)) {
		containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			found++
			if image, _ := c.(map[string]any)["image"].(string); !released[image] {
				t.Errorf("%s %s/%s runs image %q, which is not one of the release's %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), image, in.rel.Images)
			}
		}
	}
	if found == 0 {
		t.Error("found no operand containers")
	}
}

// testRelatedObjects: the operator keeps the manifest's relatedObjects, and each exists.
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
	if err != nil { // a CRD may have been created since discovery was read
		in.applier.Mapper.Reset()
		if gvr, err = in.applier.Mapper.ResourceFor(partial); err != nil {
			return nil, err
		}
	}
	return in.dyn.Resource(gvr).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
}

// testMetrics: docs/test-behaviours.md (MetricsAreServedWithAuthnAndAuthz).
func (in *installation) testMetrics(t *testing.T) {
	ctx := framework.Context(t, 2*time.Minute)
	if in.proxy == nil || in.proxy.Exited() {
		t.Fatalf("the pod's kube-rbac-proxy is not running\n%s", in.logTail(30))
	}
	caFile := filepath.Join(in.pki.Dir, "service-ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: in.servingCA.Config.Certs[0].Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(in.listenPort)
	scrapeCheckAuthentication(t, ctx, in.kube, in.pki, addr, caFile, operatorMetricsServerName)
	// What is served: the operator's metrics, no other path.
	token, err := framework.ServiceAccountToken(ctx, in.kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(in.servingCA.Config.Certs[0])
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: operatorMetricsServerName, MinVersion: tls.VersionTLS12},
	}}
	for path, want := range map[string]int{"/metrics": http.StatusOK, "/healthz": http.StatusNotFound} {
		code, body, err := framework.HTTPGet(client, "https://"+addr+path, token)
		if err != nil || code != want || (want == http.StatusOK && !bytes.Contains(body, []byte("openshift_cluster_node_operator_build_info"))) {
			t.Errorf("GET %s: HTTP %d (want %d, with the operator's build_info), %v: %.300s\n%s", path, code, want, err, body, in.proxy.LogTail(20))
		}
	}
}

// testConfinement: the manifests' admission policies confine the operator's broad RBAC to its namespaces and its operands' role names.
func (in *installation) testConfinement(t *testing.T) {
	ctx := framework.Context(t, time.Minute)
	asOperator := kubernetes.NewForConfigOrDie(framework.ServiceAccountConfig(t, in.cfg, operatorNamespace, nodeOperatorName))
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	deployment := func(ns string) error {
		labels := map[string]string{"app": "e2e-confinement"}
		_, err := asOperator.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-confinement", Namespace: ns},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.e2e.invalid/pause"}}},
			}},
		}, dryRun)
		return err
	}
	clusterRole := func(name string) error {
		_, err := asOperator.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}}, dryRun)
		return err
	}
	for _, c := range []struct {
		what   string
		err    error
		policy string // the policy that must deny it; "" for allowed
	}{
		{"a Deployment in default", deployment("default"), "cluster-node-operator-namespaces"},
		{"a Deployment in its namespace", deployment(operatorNamespace), ""},
		{"ClusterRole e2e-not-an-operand", clusterRole("e2e-not-an-operand"), "cluster-node-operator-rbac-names"},
		{"its operand's ClusterRole crio-metrics-client", clusterRole("crio-metrics-client"), ""},
	} {
		switch {
		case c.policy != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.policy)):
			t.Errorf("creating %s as the operator: got %v, want a denial by the policy %s", c.what, c.err, c.policy)
		case c.policy == "" && c.err != nil && !apierrors.IsAlreadyExists(c.err):
			t.Errorf("creating %s as the operator: %v", c.what, c.err)
		}
	}
}

// --- removal ----------------------------------------------------------------

// uninstall removes what the manifests and the operator created.
func (in *installation) uninstall() {
	t := in.t
	in.stopOperator()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var victims []*unstructured.Unstructured
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
	for i := len(in.rel.Manifests) - 1; i >= 0; i-- {
		victims = append(victims, in.rel.Manifests[i].Object)
	}
	if err := in.deleteObjects(ctx, victims); err != nil {
		t.Logf("uninstall: %v", err)
	}
	// The next test starts fresh.
	for _, v := range victims {
		if v.GetKind() == "Namespace" && wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
			_, err := in.kube.CoreV1().Namespaces().Get(ctx, v.GetName(), metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}) != nil {
			t.Errorf("uninstall: namespace %s is still there", v.GetName())
		}
	}
}

// deleteObjects deletes objects, skipping those gone or no longer served.
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

// bindataOperand is an object of bindata/; its name may hold ${VARIABLES}.
type bindataOperand struct {
	gvk       schema.GroupVersionKind
	namespace string
	name      *regexp.Regexp
}

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

// --- each rule is needed ------------------------------------------------------

const (
	// reduced: the sweep's ServiceAccount and its roles, less one rule.
	reduced = "cluster-node-operator-e2e-reduced"
	// degradedInertia: MetricsDegraded's entry in pkg/operator/starter.go.
	degradedInertia = 30 * time.Minute
)

var nodeOperatorsResource = schema.GroupVersionResource{Group: "nodeoperator.openshift.io", Version: "v1alpha1", Resource: "nodeoperators"}

// ruleCase is a rule of the release's ClusterRole (namespace "") or Role.
type ruleCase struct {
	namespace string
	index     int
	rule      rbacv1.PolicyRule
}

func (c ruleCase) String() string {
	role, r := "ClusterRole", c.rule
	if c.namespace != "" {
		role = "Role in " + c.namespace
	}
	what := strings.Join(r.Resources, ",")
	if g := strings.Join(r.APIGroups, ","); g != "" {
		what += "." + g
	}
	return strings.TrimSpace(fmt.Sprintf("%s rule %d: %s %s %s", role, c.index, strings.Join(r.Verbs, ","), what, strings.Join(r.ResourceNames, ",")))
}

// has: the rule grants resource, with one of verbs (any verb if none).
func (c ruleCase) has(resource string, verbs ...string) bool {
	return slices.Contains(c.rule.Resources, resource) && (len(verbs) == 0 || slices.ContainsFunc(verbs, func(v string) bool { return slices.Contains(c.rule.Verbs, v) }))
}

// cannotReport: the denial keeps the operator from starting or reporting: only its log shows it.
func (c ruleCase) cannotReport() bool {
	return c.has("leases") || c.has("clusteroperators/status") || c.has("nodeoperators/status") ||
		slices.Contains(c.rule.Verbs, "list") || slices.Contains(c.rule.Verbs, "watch")
}

// unshown says why no run of the release can show the denial, or "".
func (c ruleCase) unshown() string {
	switch {
	case slices.Equal(c.rule.ResourceNames, []string{"monitoring"}),
		c.namespace == "openshift-monitoring" && slices.Equal(c.rule.ResourceNames, []string{"metrics-client-ca"}):
		return "a failed read keeps ScrapeAuthLookup's last decision"
	case c.has("clusterversions"):
		return "only a build whose version is the placeholder reads ClusterVersion"
	case c.has("nodes", "list"):
		return "only the node settings rollout's health gate lists nodes, once the MCO updated a pool"
	case c.has("nodes", "patch"):
		return "only a node settings rollout step guards nodes from the cluster autoscaler (TestNodeSettingsAutoscaler)"
	case c.has("machines"):
		return "only a node that fails the health gate mid-rollout has its Machine read (TestControllerGuardsNodes)"
	case c.namespace == "openshift-machine-config-operator":
		return "the mirror pod cache starts only where MCO's MachineConfigs render kube-rbac-proxy-crio"
	}
	return ""
}

// releaseRules are the rules of the release's ClusterRole and Roles.
func (in *installation) releaseRules(t *testing.T) []ruleCase {
	var out []ruleCase
	for _, m := range in.rel.Manifests {
		if kind := m.Object.GetKind(); (kind == "ClusterRole" || kind == "Role") && m.Object.GetName() == nodeOperatorName {
			role := &rbacv1.ClusterRole{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object.Object, role); err != nil {
				t.Fatal(err)
			}
			for i, r := range role.Rules {
				out = append(out, ruleCase{namespace: m.Object.GetNamespace(), index: i, rule: r})
			}
		}
	}
	return out
}

// testEachRuleIsNeeded: docs/release-payload.md (E2E_RBAC_SWEEP=none skips).
func (in *installation) testEachRuleIsNeeded(t *testing.T) {
	if os.Getenv("E2E_RBAC_SWEEP") == "none" {
		t.Skip("E2E_RBAC_SWEEP=none")
	}
	framework.ExpectDisruption(t, "the operator runs once per rule, without that rule")
	in.stopOperator()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: reduced}}
	if _, err := in.kube.CoreV1().ServiceAccounts(operatorNamespace).Create(framework.Context(t, time.Minute), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	start, rules := time.Now(), in.releaseRules(t)
	for _, c := range rules {
		t.Run(c.String(), func(t *testing.T) { in.checkRuleIsNeeded(t, rules, c) })
	}
	t.Logf("%d rules swept in %s", len(rules), time.Since(start).Round(time.Second))
}

func (in *installation) checkRuleIsNeeded(t *testing.T, rules []ruleCase, c ruleCase) {
	if why := c.unshown(); why != "" {
		t.Skip(why)
	}
	sc := scenarioFor(c)
	t.Logf("scenario: %s", sc.name)
	defer func(parent *testing.T) { in.t = parent }(in.t)
	in.t = t
	if sc.controlFirst {
		in.run(t, sc, c, "", nil)
		in.awaitEvidence(t, sc, c, false)
		in.stopOperator()
	}
	in.applyReducedRBAC(t, rules, c)
	in.run(t, sc, c, reduced, nil)
	defer in.stopOperator()
	// A state, or what only the log shows, must last: retried and denied again
	// (three lines are two attempts; the leader election logs one per attempt).
	want, deny := 1, deniedPattern(c)
	switch {
	case c.has("leases"):
		want = 2
	case (sc.failed != nil && !sc.once) || c.cannotReport():
		want = 3
	}
	var denials []string
	framework.Eventually(t, 90*time.Second, 100*time.Millisecond, func() (bool, error) {
		denials = deny.FindAllString(in.operator.Log(), want)
		if len(denials) < want && in.operator.Exited() {
			return false, fmt.Errorf("the operator exited:\n%s", in.logTail(20))
		}
		return len(denials) >= want, nil
	}, fmt.Sprintf("%d denial(s) of what the rule allows (%s); log %s", want, deny, in.operator.LogPath))
	t.Logf("denied %d time(s) after %s: %.300s", len(denials), time.Since(in.started).Round(100*time.Millisecond), denials[0])
	in.awaitEvidence(t, sc, c, true)
	if sc.controlAfter {
		in.stopOperator()
		in.started = time.Now()
		in.startOperator(framework.Context(t, time.Minute), "")
		in.awaitEvidence(t, sc, c, false)
	}
}

// awaitEvidence: reduced, the evidence of the denial; with the full RBAC, no failure.
func (in *installation) awaitEvidence(t *testing.T, sc scenario, c ruleCase, reduced bool) {
	ctx := framework.Context(t, time.Minute)
	framework.Eventually(t, 30*time.Second, 200*time.Millisecond, func() (bool, error) {
		if sc.failed != nil {
			failed, err := sc.failed(in, ctx, c)
			if err == nil && failed != reduced {
				err = fmt.Errorf("%s: failure %v, want %v", sc.name, failed, reduced)
			}
			return err == nil, err
		}
		if c.cannotReport() {
			return true, nil
		}
		co, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range co.Status.Conditions {
			if reportsDenial(cond, c) {
				t.Logf("clusteroperator/%s %s=%s: %.400s", nodeClusterOperator, cond.Type, cond.Status, cond.Message)
				return true, nil
			}
		}
		return false, fmt.Errorf("no Degraded or Available=False condition reports the denial:\n%s", framework.DescribeClusterOperator(co))
	}, fmt.Sprintf("%s (full RBAC: %v): the evidence; log %s", sc.name, !reduced, in.operator.LogPath))
}

// reportsDenial: a Degraded or Available=False condition carries the rule's denial.
func reportsDenial(cond configv1.ClusterOperatorStatusCondition, c ruleCase) bool {
	return (cond.Type == configv1.OperatorDegraded || cond.Type == configv1.OperatorAvailable && cond.Status == configv1.ConditionFalse) &&
		deniedPattern(c).MatchString(strings.ReplaceAll(cond.Message, "\n", " "))
}

// scenario is where a rule is needed: prepare (after reset) sets its start; failed, where the
// evidence is a state, says whether it shows. Those also run with the full RBAC, which must not
// fail: from the same start (controlFirst) or from the reduced run's end (controlAfter).
type scenario struct {
	name                       string
	prepare                    func(in *installation, t *testing.T, ctx context.Context)
	failed                     func(in *installation, ctx context.Context, c ruleCase) (bool, error)
	controlFirst, controlAfter bool
	once                       bool // the request is made once, at start
}

func scenarioFor(c ruleCase) scenario {
	install := scenario{name: "install", prepare: (*installation).installed}
	switch {
	case c.has("leases", "create"):
		return scenario{name: "install without a Lease", prepare: func(in *installation, t *testing.T, ctx context.Context) {
			_ = in.kube.CoordinationV1().Leases(operatorNamespace).Delete(ctx, operatorLeaseName, metav1.DeleteOptions{})
			in.installed(t, ctx)
		}}
	case c.has("clusteroperators", "create"):
		// Failed: still missing and library-go's StatusCreateFailed event (emitted after reset, so only by this run) carries
		// the denial; the control with the full RBAC creates it from the reduced run's end.
		return scenario{name: "ClusterOperator missing", prepare: func(in *installation, t *testing.T, ctx context.Context) { in.createNodeOperator(ctx) },
			failed: func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
				gone, err := in.clusterOperatorGone(ctx)
				if err != nil || !gone {
					return false, err
				}
				return in.eventSince(ctx, "StatusCreateFailed", deniedPattern(c))
			}, controlAfter: true}
	case c.has("clusteroperators", "delete"):
		return scenario{name: "NodeOperator missing", prepare: func(in *installation, t *testing.T, ctx context.Context) { in.precreateClusterOperator(ctx) },
			failed: func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
				gone, err := in.clusterOperatorGone(ctx)
				return !gone, err
			}, controlAfter: true}
	case c.has("events", "create"):
		install.name, install.controlFirst = "events", true
		install.failed = func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
			ours, _, err := in.events(ctx)
			return ours == 0, err
		}
	case c.has("pods", "get") && len(c.rule.Resources) == 1, c.has("replicasets", "get"):
		install.name, install.controlFirst, install.once = "events about the Deployment", true, true
		install.failed = func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
			ours, aboutDeployment, err := in.events(ctx)
			if err == nil && ours == 0 {
				err = errors.New("no events yet")
			}
			return aboutDeployment == 0, err
		}
	case c.has("opentelemetrycollectors"), c.has("machineconfigpools"):
		return scenario{name: "node tracing through the collector", prepare: func(in *installation, t *testing.T, ctx context.Context) {
			in.installed(t, ctx)
			framework.ServeOpenTelemetryCollectors(t)
			in.patchNodeOperator(t, ctx, `{"spec":{"nodeSettings":{"tracing":{"endpoint":"otel.example.com:4317","crio":{"samplingRatePerMillion":1000}}}}}`)
		}}
	case c.has("nodenetworkconfigurationpolicies", "list"):
		return scenario{name: "NMState opted out", prepare: func(in *installation, t *testing.T, ctx context.Context) {
			in.installed(t, ctx)
			in.patchNodeOperator(t, ctx, `{"spec":{"nmstate":{"state":"Disabled"}}}`)
		}}
	case c.has("nodeoperators", "patch"):
		// A failed conversion shows as the spelling left unconverted.
		return scenario{name: "NodeOperator in the previous release's spelling", prepare: func(in *installation, t *testing.T, ctx context.Context) {
			in.installed(t, ctx)
			in.patchNodeOperator(t, ctx, `{"spec":{"metrics":{"managementState":"Managed"}}}`)
		}, failed: func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
			no, err := in.dyn.Resource(nodeOperatorsResource).Get(ctx, "cluster", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			_, converted, err := unstructured.NestedString(no.Object, "spec", "metrics", "state")
			return !converted, err
		}, controlAfter: true}
	case c.namespace == operatorNamespace && slices.ContainsFunc(c.rule.ResourceNames, func(n string) bool { return strings.HasPrefix(n, "crio-metrics") || n == "prometheus-k8s" }):
		return scenario{name: "update from a release that ran the CRI-O metrics operands in the operator's namespace", prepare: leftByEarlierRelease(c),
			failed: func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
				left, err := in.ruleObjectsLeft(ctx, c)
				return len(left) > 0, err
			}, controlAfter: true}
	case !slices.ContainsFunc(c.rule.Verbs, func(v string) bool { return v != "update" && v != "delete" }) && slices.Contains(c.rule.Verbs, "delete"):
		return scenario{name: "stacks removed", prepare: func(in *installation, t *testing.T, ctx context.Context) { in.optedOut(t, ctx, c) },
			failed: func(in *installation, ctx context.Context, c ruleCase) (bool, error) {
				left, err := in.ruleObjectsLeft(ctx, c)
				return len(left) > 0, err
			}, controlAfter: true}
	}
	return install
}

// run resets to the scenario's start and starts the operator alone as serviceAccount ("": its own).
func (in *installation) run(t *testing.T, sc scenario, c ruleCase, serviceAccount string, before func(context.Context)) {
	ctx := framework.Context(t, 5*time.Minute)
	in.reset(t, ctx, !c.has("namespaces"))
	sc.prepare(in, t, ctx)
	if before != nil {
		before(ctx)
	}
	in.started = time.Now()
	in.startOperator(ctx, serviceAccount)
}

// leftByEarlierRelease: an install, and the rule's objects in the operator's namespace as a release
// before openshift-crio-metrics left them (pkg/operator/criometrics/legacy.go).
func leftByEarlierRelease(c ruleCase) func(in *installation, t *testing.T, ctx context.Context) {
	return func(in *installation, t *testing.T, ctx context.Context) {
		in.installed(t, ctx)
		files, _ := filepath.Glob(filepath.Join(framework.RepoRoot(t), "bindata", "metrics", "*.yaml"))
		shipped := framework.ReadManifests(t, files...)
		ds, err := criometrics.RenderDaemonSet(stack.Images{KubeRBACProxy: "registry.e2e.invalid/proxy", CertSyncer: "registry.e2e.invalid/syncer"}, nil, "", false)
		require.NoError(t, err)
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
		require.NoError(t, err)
		shipped = append(shipped, &unstructured.Unstructured{Object: raw})
		for _, res := range c.rule.Resources {
			for _, name := range c.rule.ResourceNames {
				// The certificates have no manifest.
				obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": map[string]string{"secrets": "Secret", "configmaps": "ConfigMap"}[res]}}
				for _, o := range shipped {
					if o.GetName() == name && strings.EqualFold(o.GetKind()+"s", res) && !strings.Contains(o.GetKind(), "Cluster") {
						obj = o.DeepCopy()
					}
				}
				obj.SetName(name)
				obj.SetNamespace(operatorNamespace)
				require.NoError(t, in.applier.Apply(ctx, obj, "e2e-earlier-release"), "%s %s", res, name)
			}
		}
	}
}

// installed is the CVO's part: the ClusterOperator and NodeOperator cluster.
func (in *installation) installed(t *testing.T, ctx context.Context) {
	in.precreateClusterOperator(ctx)
	in.createNodeOperator(ctx)
}

// optedOut: an install that created the rule's objects, then both stacks opted out.
func (in *installation) optedOut(t *testing.T, ctx context.Context, c ruleCase) {
	in.installed(t, ctx)
	in.startOperator(ctx, "")
	framework.Eventually(t, installTimeout, 250*time.Millisecond, func() (bool, error) {
		left, err := in.ruleObjectsLeft(ctx, c)
		return len(left) == len(c.rule.Resources)*len(c.rule.ResourceNames), err
	}, fmt.Sprintf("the operator with its full RBAC to create %v %v", c.rule.Resources, c.rule.ResourceNames))
	in.stopOperator()
	in.patchNodeOperator(t, ctx, `{"spec":{"metrics":{"state":"Disabled","managementState":null},"nmstate":{"state":"Disabled","managementState":null}}}`)
}

func (in *installation) patchNodeOperator(t *testing.T, ctx context.Context, patch string) {
	if _, err := in.dyn.Resource(nodeOperatorsResource).Patch(ctx, "cluster", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (in *installation) clusterOperatorGone(ctx context.Context) (bool, error) {
	_, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// events counts the operator's events since it started, and those about its Deployment.
func (in *installation) events(ctx context.Context) (ours, aboutDeployment int, err error) {
	events, err := in.kube.CoreV1().Events(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, err
	}
	for _, ev := range events.Items {
		if ev.CreationTimestamp.Time.Before(in.started.Add(-time.Second)) ||
			!strings.HasPrefix(ev.Source.Component, nodeOperatorName) && !strings.HasPrefix(ev.ReportingController, nodeOperatorName) {
			continue
		}
		ours++
		if ev.InvolvedObject.Kind == "Deployment" && ev.InvolvedObject.Name == nodeOperatorName {
			aboutDeployment++
		}
	}
	return ours, aboutDeployment, nil
}

// eventSince: an event of reason whose message matches, in the operator's namespace, since the operator started.
func (in *installation) eventSince(ctx context.Context, reason string, message *regexp.Regexp) (bool, error) {
	events, err := in.kube.CoreV1().Events(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, ev := range events.Items {
		if ev.Reason == reason && message.MatchString(ev.Message) && !ev.CreationTimestamp.Time.Before(in.started.Add(-time.Second)) {
			return true, nil
		}
	}
	return false, nil
}

// ruleObjectsLeft: the removal rule's objects that exist and are not being deleted.
func (in *installation) ruleObjectsLeft(ctx context.Context, c ruleCase) ([]string, error) {
	var out []string
	for _, res := range c.rule.Resources {
		gvr, err := in.applier.Mapper.ResourceFor(schema.GroupVersionResource{Group: c.rule.APIGroups[0], Resource: res})
		if err != nil {
			return nil, err
		}
		for _, name := range c.rule.ResourceNames {
			obj, err := in.dyn.Resource(gvr).Namespace(c.namespace).Get(ctx, name, metav1.GetOptions{})
			if err == nil && obj.GetDeletionTimestamp() == nil {
				out = append(out, res+"/"+name)
			} else if err != nil && !apierrors.IsNotFound(err) {
				return nil, err
			}
		}
	}
	return out, nil
}

// deniedPattern matches the API server's denial of what the rule allows: "cannot <verb> resource",
// or the escalation check's refusal (escalate, bind, and rules held to be granted).
func deniedPattern(c ruleCase) *regexp.Regexp {
	// Quotes may be escaped (a message within a message).
	q := func(s string) string { return `\\?"` + regexp.QuoteMeta(s) + `\\?"` }
	var alts []string
	for _, v := range c.rule.Verbs {
		for _, r := range c.rule.Resources {
			for _, g := range c.rule.APIGroups {
				alts = append(alts, `cannot `+regexp.QuoteMeta(v)+` resource `+q(r)+` in API group `+q(g),
					`attempting to grant RBAC permissions not currently held[^\n]*Resources:\[`+q(r)+`\][^\n]*`+q(v))
			}
			if kinds := r; v == "escalate" || v == "bind" {
				if v == "bind" {
					kinds = strings.TrimSuffix(r, "s") + "bindings"
				}
				alts = append(alts, regexp.QuoteMeta(kinds+".rbac.authorization.k8s.io")+`[^\n]*is forbidden[^\n]*attempting to grant RBAC permissions not currently held`)
			}
		}
	}
	return regexp.MustCompile(`[^\n]*(` + strings.Join(alts, "|") + `)[^\n]*`)
}

// applyReducedRBAC binds the reduced ServiceAccount to the operator's roles less the rule.
func (in *installation) applyReducedRBAC(t *testing.T, rules []ruleCase, without ruleCase) {
	ctx := framework.Context(t, time.Minute)
	in.deleteReducedRBAC(ctx)
	roles := map[string][]rbacv1.PolicyRule{}
	for _, r := range rules {
		if roles[r.namespace] = roles[r.namespace]; r.namespace != without.namespace || r.index != without.index {
			roles[r.namespace] = append(roles[r.namespace], r.rule)
		}
	}
	meta := metav1.ObjectMeta{Name: reduced}
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: operatorNamespace, Name: reduced}}
	ref := func(kind string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: reduced}
	}
	var errs []error
	for ns, rs := range roles {
		var err1, err2 error
		if meta.Namespace = ns; ns == "" {
			_, err1 = in.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: rs}, metav1.CreateOptions{})
			_, err2 = in.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta, Subjects: subjects, RoleRef: ref("ClusterRole")}, metav1.CreateOptions{})
		} else {
			_, err1 = in.kube.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: rs}, metav1.CreateOptions{})
			_, err2 = in.kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, Subjects: subjects, RoleRef: ref("Role")}, metav1.CreateOptions{})
		}
		errs = append(errs, err1, err2)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// deleteReducedRBAC removes the reduced ServiceAccount's roles and bindings.
func (in *installation) deleteReducedRBAC(ctx context.Context) {
	_ = in.kube.RbacV1().ClusterRoleBindings().Delete(ctx, reduced, metav1.DeleteOptions{})
	_ = in.kube.RbacV1().ClusterRoles().Delete(ctx, reduced, metav1.DeleteOptions{})
	for _, m := range in.rel.Manifests {
		if ns := m.Object.GetNamespace(); m.Object.GetKind() == "Role" && m.Object.GetName() == nodeOperatorName {
			_ = in.kube.RbacV1().RoleBindings(ns).Delete(ctx, reduced, metav1.DeleteOptions{})
			_ = in.kube.RbacV1().Roles(ns).Delete(ctx, reduced, metav1.DeleteOptions{})
		}
	}
}

// reset stops the operator and removes what it created, its events, ClusterOperator and
// NodeOperator; its namespaces stay, emptied, when keepNamespaces (finalizing one takes seconds).
func (in *installation) reset(t *testing.T, ctx context.Context, keepNamespaces bool) {
	in.stopOperator()
	var victims []*unstructured.Unstructured
	for _, obj := range in.liveOperands(ctx) {
		if !keepNamespaces || obj.GetKind() != "Namespace" || obj.GetAPIVersion() != "v1" {
			victims = append(victims, obj)
		}
	}
	for name, kind := range map[string]string{"crio-metrics-ca-bundle": "ConfigMap", metricsclientca.Name: "ConfigMap", "crio-metrics-signer": "Secret", "crio-metrics-serving-cert": "Secret"} {
		ns := crioMetricsNamespace
		if name == metricsclientca.Name {
			ns = operatorNamespace
		}
		victims = append(victims, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"namespace": ns, "name": name}}})
	}
	victims = append(victims, in.rel.Find("NodeOperator", "cluster"), in.rel.Find("ClusterOperator", nodeClusterOperator))
	err := errors.Join(in.kube.CoreV1().Events(operatorNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}), in.deleteObjects(ctx, victims))
	if err != nil {
		t.Fatalf("reset: %v", err)
	}
	framework.Eventually(t, 3*time.Minute, 250*time.Millisecond, func() (bool, error) {
		for _, obj := range victims {
			if ri, err := in.applier.Resource(obj); err == nil {
				if _, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return false, nil
				}
			}
		}
		return true, nil
	}, "the operator's objects to be gone")
}

// precreateClusterOperator creates a missing ClusterOperator with the manifest's relatedObjects, as the CVO does.
func (in *installation) precreateClusterOperator(ctx context.Context) {
	manifest := in.expectedClusterOperator()
	cos := in.config.ConfigV1().ClusterOperators()
	created, err := cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: manifest.Name, Annotations: manifest.Annotations}}, metav1.CreateOptions{})
	if err == nil {
		created.Status.RelatedObjects = manifest.Status.RelatedObjects
		_, err = cos.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsConflict(err) {
		in.t.Fatal(err)
	}
}

// createNodeOperator creates NodeOperator cluster as the CVO does (its CRD may be new).
func (in *installation) createNodeOperator(ctx context.Context) {
	framework.Eventually(in.t, 30*time.Second, time.Second, func() (bool, error) {
		_, err := in.dyn.Resource(nodeOperatorsResource).Create(ctx, in.rel.Find("NodeOperator", "cluster").DeepCopy(), metav1.CreateOptions{})
		return err == nil || apierrors.IsAlreadyExists(err), err
	}, "creating NodeOperator cluster")
}

// testDeniedWriteDegrades: docs/release-payload.md (Tests, ADeniedWriteTurnsTheClusterOperatorDegraded).
func (in *installation) testDeniedWriteDegrades(t *testing.T) {
	if os.Getenv("E2E_RBAC_SWEEP") == "none" {
		t.Skip("E2E_RBAC_SWEEP=none")
	}
	rules := in.releaseRules(t)
	i := slices.IndexFunc(rules, func(c ruleCase) bool { return c.has("securitycontextconstraints", "create") })
	if i < 0 {
		t.Fatal("the ClusterRole has no rule to create SecurityContextConstraints")
	}
	defer func(parent *testing.T) { in.t = parent }(in.t)
	in.t = t
	framework.ExpectDisruption(t, "the operator is denied creating its SecurityContextConstraints, past the inertia")
	in.applyReducedRBAC(t, rules, rules[i])
	since := time.Now().Add(-degradedInertia - 5*time.Second).UTC().Truncate(time.Second)
	in.run(t, scenarioFor(rules[i]), rules[i], reduced, func(ctx context.Context) {
		if err := framework.ReportedSince(ctx, in.dyn, "CRIOMetrics", "MetricsDegraded", "e2e: reported by an earlier process of the operator", since); err != nil {
			t.Fatalf("writing the earlier process's condition: %v", err)
		}
	})
	defer in.stopOperator()
	ctx := framework.Context(t, 2*time.Minute)
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		co, err := in.config.ConfigV1().ClusterOperators().Get(ctx, nodeClusterOperator, metav1.GetOptions{})
		return err == nil && slices.ContainsFunc(co.Status.Conditions, func(c configv1.ClusterOperatorStatusCondition) bool {
			return c.Type == configv1.OperatorDegraded && c.Status == configv1.ConditionTrue && reportsDenial(c, rules[i])
		}), err
	}, "clusteroperator/node to turn Degraded=True for the denied SecurityContextConstraints")
	no, err := in.dyn.Resource(nodeOperatorsResource).Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(no.Object, "status", "conditions")
	for _, raw := range conds {
		if cond, _ := raw.(map[string]any); cond["type"] == "MetricsDegraded" && cond["lastTransitionTime"] != since.Format(time.RFC3339) {
			t.Errorf("MetricsDegraded's transition time is %v, want the earlier process's %s", cond["lastTransitionTime"], since.Format(time.RFC3339))
		}
	}
}
