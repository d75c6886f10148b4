package platform

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Discover asks discovery which optional APIs the cluster serves (the type
// is in decide.go). A failed lookup counts as not served; the next resync
// looks again.
func Discover(d discovery.DiscoveryInterface) ServedAPIs {
	return ServedAPIs{
		Monitoring:           serves(d, ServiceMonitorGVR, PrometheusRuleGVR),
		MachineConfig:        serves(d, MachineConfigGVR),
		MachineConfiguration: serves(d, MachineConfigurationGVR),
	}
}

// serves: every resource is served; they share a group version.
func serves(d discovery.DiscoveryInterface, resources ...schema.GroupVersionResource) bool {
	list, err := d.ServerResourcesForGroupVersion(resources[0].GroupVersion().String())
	if err != nil {
		return false
	}
	found := map[string]bool{}
	for _, r := range list.APIResources {
		found[r.Name] = true
	}
	for _, r := range resources {
		if !found[r.Resource] {
			return false
		}
	}
	return true
}

// ServedCache caches which optional APIs are served for a short while, so
// that controllers asking on every sync cost at most one discovery request
// per group version and TTL.
type ServedCache struct {
	discovery discovery.DiscoveryInterface
	ttl       time.Duration

	mu      sync.Mutex
	checked time.Time
	served  ServedAPIs
}

// ServedTTL is how long the operator's controllers go on with what
// discovery last said: an API that appears or goes away is seen at the
// first resync after it.
const ServedTTL = 30 * time.Second

// NewServedCache returns a cache in front of discovery.
func NewServedCache(d discovery.DiscoveryInterface, ttl time.Duration) *ServedCache {
	return &ServedCache{discovery: d, ttl: ttl}
}

// Get returns which optional APIs are served.
func (s *ServedCache) Get() ServedAPIs {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.checked) > s.ttl {
		s.served = Discover(s.discovery)
		s.checked = time.Now()
	}
	return s.served
}

// FixedServed answers always the same, for tests of controllers.
func FixedServed(served ServedAPIs) *ServedCache {
	return &ServedCache{ttl: time.Duration(1<<63 - 1), checked: time.Now(), served: served}
}
