package platform

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

// A failed discovery request is no answer: the last answer stands, and an
// API never answered is Unknown, never "not served" (docs/architecture.md,
// "When a request fails").
func TestServedCacheKeepsTheLastAnswer(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	var fail error
	requests := 0
	d.AddReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		requests++
		return fail != nil, nil, fail
	})
	allUnknown := []string{"monitoring.coreos.com/v1", "machineconfiguration.openshift.io/v1", "operator.openshift.io/v1"}
	mcoOnly := ServedAPIs{MachineConfig: true, MachineConfiguration: true}
	cache := NewServedCache(d, clk, ServedTTL)
	for _, step := range []struct {
		name      string
		fail      error
		resources []*metav1.APIResourceList
		advance   time.Duration
		want      ServedAPIs
		requests  int
	}{
		{"429 at start: nothing known", apierrors.NewTooManyRequests("slow down", 1), nil, 0, ServedAPIs{Unknown: allUnknown}, 3},
		{"within the TTL: no request", nil, nil, time.Second, ServedAPIs{Unknown: allUnknown}, 0},
		{"answered: MCO's APIs served, monitoring's not (404)", nil, []*metav1.APIResourceList{
			{GroupVersion: "machineconfiguration.openshift.io/v1", APIResources: []metav1.APIResource{{Name: "machineconfigs"}}},
			{GroupVersion: "operator.openshift.io/v1", APIResources: []metav1.APIResource{{Name: "machineconfigurations"}}},
		}, ServedTTL + time.Second, mcoOnly, 3},
		{"503: the last answer stands", apierrors.NewGenericServerResponse(http.StatusServiceUnavailable, "get", MachineConfigGVR.GroupResource(), "", "", 0, true), nil, ServedTTL + time.Second, mcoOnly, 3},
		{"403 from a proxy: the last answer stands", apierrors.NewForbidden(ServiceMonitorGVR.GroupResource(), "", nil), nil, ServedTTL + time.Second, mcoOnly, 3},
		{"a resource goes: answered", nil, []*metav1.APIResourceList{
			{GroupVersion: "machineconfiguration.openshift.io/v1", APIResources: []metav1.APIResource{{Name: "machineconfigs"}}},
		}, ServedTTL + time.Second, ServedAPIs{MachineConfig: true}, 3},
	} {
		fail, requests = step.fail, 0
		if step.resources != nil {
			d.Resources = step.resources
		}
		clk.Step(step.advance)
		got := cache.Get()
		assert.Equal(t, step.want, got, step.name)
		assert.Equal(t, step.requests, requests, step.name)
		assert.Equal(t, step.want.MachineConfig || !got.Known(MachineConfigGVR), got.MaybeServed(MachineConfigGVR), step.name)
	}
}
