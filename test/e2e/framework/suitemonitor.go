package framework

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// The suite monitor: docs/testing.md, "Every e2e test is held to origin's ClusterOperator invariants".

// suiteClusterOperator is the ClusterOperator every test is judged on.
const suiteClusterOperator = "node"

type suiteState struct {
	mu         sync.Mutex
	mon        *ClusterOperatorMonitor
	cfg        *rest.Config
	registered map[testing.TB]bool
	reportedBy map[string]bool // condition type + From of each reported interval
	disrupted  map[string]bool // top-level tests that declared a window
	// version is the OPERATOR_IMAGE_VERSION of the operator last started.
	version string
}

var suite = &suiteState{registered: map[testing.TB]bool{}, reportedBy: map[string]bool{}, disrupted: map[string]bool{}}

// suiteMonitor is the suite's monitor, nil outside RunMonitored.
func suiteMonitor() *ClusterOperatorMonitor {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	return suite.mon
}

// RunMonitored runs the tests under the suite monitor (without $KUBECONFIG, unmonitored).
func RunMonitored(m *testing.M) int {
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		return m.Run()
	}
	cfg, err := loadKubeConfig(resolve(path))
	if err != nil {
		fmt.Fprintf(os.Stderr, "suite monitor: %v\n", err)
		return 1
	}
	mon, err := startMonitor(cfg, suiteClusterOperator, 2*time.Minute)
	if err != nil {
		fmt.Fprintf(os.Stderr, "suite monitor: %v\n", err)
		return 1
	}
	suite.mu.Lock()
	suite.mon, suite.cfg = mon, cfg
	suite.mu.Unlock()

	code := m.Run()

	if err := mon.catchUp(cfg, 30*time.Second); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: suite monitor: %v\n", err)
		code = 1
	}
	mon.Stop()
	left := suite.unreported(time.Now())
	for _, iv := range left {
		fmt.Fprintf(os.Stderr, "FAIL: origin invariant broken after the last test's check: %s outside any window declared with framework.ExpectDisruption\n", mon.describe(iv))
	}
	if len(left) > 0 {
		fmt.Fprintf(os.Stderr, "clusteroperator/%s over the whole run (seconds from its start):\n%s", suiteClusterOperator, mon.Timeline())
		if code == 0 {
			code = 1
		}
	}
	return code
}

// watchTest registers the end-of-test check once per test.
func watchTest(t testing.TB) {
	suite.mu.Lock()
	if suite.mon == nil || suite.registered[t] {
		suite.mu.Unlock()
		return
	}
	suite.registered[t] = true
	suite.mu.Unlock()
	t.Cleanup(func() { suite.check(t) })
}

// ExpectDisruption allows ClusterOperator node Available=False and Degraded=True from now until end or the test's end (docs/testing.md).
func ExpectDisruption(t testing.TB, why string) (end func()) {
	t.Helper()
	return expect(t, why, true, []allowance{
		{typ: configv1.OperatorAvailable, status: configv1.ConditionFalse},
		{typ: configv1.OperatorDegraded, status: configv1.ConditionTrue},
	})
}

// ExpectCondition is ExpectDisruption for one condition and status, e.g. Available=False while an install starts the operator.
func ExpectCondition(t testing.TB, typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, why string) (end func()) {
	t.Helper()
	return expect(t, why, false, []allowance{{typ: typ, status: status}})
}

// expect opens the windows; disrupts: the test may end before its operator reports its version.
func expect(t testing.TB, why string, disrupts bool, windows []allowance) (end func()) {
	t.Helper()
	s := suiteMonitor()
	if s == nil {
		return func() {}
	}
	owner := topLevel(t)
	if disrupts {
		suite.mu.Lock()
		suite.disrupted[owner] = true
		suite.mu.Unlock()
	}
	var ends []func(explicit bool)
	var what []string
	for _, a := range windows {
		a.why, a.owner = t.Name()+": "+why, owner
		ends = append(ends, s.allow(a))
		what = append(what, fmt.Sprintf("%s=%s", a.typ, a.status))
	}
	t.Logf("clusteroperator/%s may be %s from now: %s", suiteClusterOperator, strings.Join(what, " or "), why)
	var once sync.Once
	closeWindow := func(explicit bool) {
		once.Do(func() {
			for _, e := range ends {
				e(explicit)
			}
		})
	}
	t.Cleanup(func() { closeWindow(false) })
	return func() { closeWindow(true) }
}

// expectVersion records the version of an operator a test starts.
func expectVersion(version string) {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	suite.version = version
}

func topLevel(t testing.TB) string {
	return strings.SplitN(t.Name(), "/", 2)[0]
}

// unreported returns the intervals that break the invariant, not reported yet, and marks them reported.
func (s *suiteState) unreported(now time.Time) []ConditionInterval {
	s.mu.Lock()
	mon := s.mon
	s.mu.Unlock()
	if mon == nil {
		return nil
	}
	bad := uncovered(mon.Intervals(), mon.allowances(), now)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ConditionInterval
	for _, iv := range bad {
		key := string(iv.Type) + "@" + iv.From.Format(time.RFC3339Nano)
		if !s.reportedBy[key] {
			s.reportedBy[key] = true
			out = append(out, iv)
		}
	}
	return out
}

func undeclared(mon *ClusterOperatorMonitor, iv ConditionInterval) string {
	return fmt.Sprintf("origin invariant: %s outside any window declared with framework.ExpectDisruption", mon.describe(iv))
}

// check judges what the ClusterOperator did up to the end of a test.
func (s *suiteState) check(t testing.TB) {
	t.Helper()
	if err := s.mon.catchUp(s.cfg, 30*time.Second); err != nil {
		t.Errorf("suite monitor: %v", err)
	}
	for _, iv := range s.unreported(time.Now()) {
		t.Error(undeclared(s.mon, iv))
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	co, err := configclient.NewForConfigOrDie(s.cfg).ConfigV1().ClusterOperators().Get(ctx, suiteClusterOperator, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return // uninstalled
	}
	if err != nil {
		t.Logf("suite monitor: reading clusteroperator/%s: %v (not checked)", suiteClusterOperator, err)
		return
	}
	if len(co.Status.Conditions) == 0 {
		return // created by the CVO, no operator has run yet
	}
	dc, err := discovery.NewDiscoveryClientForConfig(s.cfg)
	if err != nil {
		t.Logf("suite monitor: %v", err)
		return
	}
	applier := &Applier{Dynamic: dynamic.NewForConfigOrDie(s.cfg), Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
	// A test may just have put back an API it took away (a CRD): discovery serves it again within seconds.
	var problems []string
	_ = wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		applier.Mapper.Reset()
		problems = relatedObjectProblems(ctx, applier, co, false)
		return len(problems) == 0, nil
	})
	for _, p := range problems {
		t.Errorf("origin invariant: %s", p)
	}

	s.mu.Lock()
	want, disrupted := s.version, s.disrupted[topLevel(t)]
	s.mu.Unlock()
	if problem := versionProblem(co, want); problem != "" && !disrupted {
		t.Errorf("origin invariant: %s", problem)
	}
}

// versionProblem: versions[operator], once reported, must be want ("": unknown).
func versionProblem(co *configv1.ClusterOperator, want string) string {
	got := ""
	for _, v := range co.Status.Versions {
		if v.Name == "operator" {
			got = v.Version
		}
	}
	if got == "" || want == "" || got == want {
		return ""
	}
	return fmt.Sprintf("clusteroperator/%s reports version operator %q; the operator that runs is %q", co.Name, got, want)
}
