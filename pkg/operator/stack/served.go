package stack

import (
	"sync"
	"time"

	"k8s.io/client-go/discovery"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stackdecision"
)

// ServedAPIs caches which optional APIs are served for a short while, so
// that controllers asking on every sync cost at most one discovery request
// per group version and TTL.
type ServedAPIs struct {
	discovery discovery.DiscoveryInterface
	ttl       time.Duration

	mu      sync.Mutex
	checked time.Time
	served  platform.ServedAPIs
}

// ServedAPIsTTL is how long the operator's controllers go on with what
// discovery last said: an API that appears or goes away is seen at the
// first resync after it.
const ServedAPIsTTL = 30 * time.Second

// NewServedAPIs returns a cache in front of discovery.
func NewServedAPIs(d discovery.DiscoveryInterface, ttl time.Duration) *ServedAPIs {
	return &ServedAPIs{discovery: d, ttl: ttl}
}

// Get returns which optional APIs are served.
func (s *ServedAPIs) Get() platform.ServedAPIs {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.checked) > s.ttl {
		s.served = stackdecision.ServedAPIs(s.discovery)
		s.checked = time.Now()
	}
	return s.served
}

// FixedServedAPIs answers always the same, for tests of controllers.
func FixedServedAPIs(served platform.ServedAPIs) *ServedAPIs {
	return &ServedAPIs{ttl: time.Duration(1<<63 - 1), checked: time.Now(), served: served}
}
