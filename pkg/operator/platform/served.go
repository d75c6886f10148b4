package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// optionalAPIs are the APIs the operator asks discovery about, each with
// the resources that must all be served (one group version each).
var optionalAPIs = []struct {
	resources []schema.GroupVersionResource
	field     func(*ServedAPIs) *bool
}{
	{[]schema.GroupVersionResource{ServiceMonitorGVR, PrometheusRuleGVR}, func(s *ServedAPIs) *bool { return &s.Monitoring }},
	{[]schema.GroupVersionResource{MachineConfigGVR}, func(s *ServedAPIs) *bool { return &s.MachineConfig }},
	{[]schema.GroupVersionResource{MachineConfigurationGVR}, func(s *ServedAPIs) *bool { return &s.MachineConfiguration }},
}

// serves asks discovery whether every resource is served. Only a 404 of
// the group version means "not served": any other error (a 403 from a
// proxy, 429 from priority and fairness, 503 while an API server restarts)
// says nothing about the cluster. The request is not retried: the next
// look, a TTL later, is the retry, and a sync waiting out client-go's ten
// Retry-After rounds would stall every controller that asks.
func serves(d discovery.DiscoveryInterface, resources []schema.GroupVersionResource) (bool, error) {
	gv := resources[0].GroupVersion()
	ctx, cancel := context.WithTimeout(context.Background(), discoveryTimeout)
	defer cancel()
	raw, err := d.RESTClient().Get().AbsPath("/apis", gv.Group, gv.Version).MaxRetries(0).Do(ctx).Raw()
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(raw, &list); err != nil {
		return false, fmt.Errorf("discovery of %s: %w", gv, err)
	}
	found := map[string]bool{}
	for _, r := range list.APIResources {
		found[r.Name] = true
	}
	for _, r := range resources {
		if !found[r.Resource] {
			return false, nil
		}
	}
	return true, nil
}

// discoveryTimeout bounds one discovery request.
const discoveryTimeout = 10 * time.Second

// ServedCache caches which optional APIs are served for a short while, so
// that controllers asking on every sync cost at most one discovery request
// per group version and TTL. A failed request keeps discovery's last
// answer; an API it never answered is Unknown.
type ServedCache struct {
	discovery discovery.DiscoveryInterface
	clock     clock.PassiveClock
	ttl       time.Duration

	mu      sync.Mutex
	checked time.Time
	answers map[string]bool // by group version
}

// ServedTTL is how long the operator's controllers go on with what
// discovery last said: an API that appears or goes away is seen at the
// first resync after it.
const ServedTTL = 30 * time.Second

// NewServedCache returns a cache in front of discovery.
func NewServedCache(d discovery.DiscoveryInterface, clk clock.PassiveClock, ttl time.Duration) *ServedCache {
	return &ServedCache{discovery: d, clock: clk, ttl: ttl, answers: map[string]bool{}}
}

// Get returns which optional APIs are served.
func (s *ServedCache) Get() ServedAPIs {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := s.clock.Now(); s.checked.IsZero() || now.Sub(s.checked) > s.ttl {
		for _, api := range optionalAPIs {
			gv := api.resources[0].GroupVersion().String()
			served, err := serves(s.discovery, api.resources)
			if err != nil {
				klog.Warningf("discovery of %s failed, keeping its last answer: %v", gv, err)
				continue
			}
			s.answers[gv] = served
		}
		s.checked = now
	}
	var out ServedAPIs
	for _, api := range optionalAPIs {
		gv := api.resources[0].GroupVersion().String()
		served, known := s.answers[gv]
		*api.field(&out) = served
		if !known {
			out.Unknown = append(out.Unknown, gv)
		}
	}
	return out
}

// FixedServed answers always the same, for tests of controllers.
func FixedServed(served ServedAPIs) *ServedCache {
	answers := map[string]bool{}
	for _, api := range optionalAPIs {
		if gv := api.resources[0].GroupVersion().String(); !slices.Contains(served.Unknown, gv) {
			answers[gv] = *api.field(&served)
		}
	}
	return &ServedCache{ttl: time.Duration(1<<63 - 1), clock: clock.RealClock{}, checked: time.Now(), answers: answers}
}
