package criometrics

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// ShareLookFor is how long one look at the own TLS stack's parts answers
// the other controllers that ask.
const ShareLookFor = 100 * time.Millisecond

// TLSObserver shares ObserveTLSStack between the four controllers that take
// the steps of the own TLS stack's removal (static resources, node config,
// DaemonSet, certificates). Every NodeOperator write of a removal wakes all
// four; with a look each, that is about a hundred GETs per removal, which
// drain the client's rate limit and queue the steps' own requests behind
// them.
//
// A shared look can only be late to see a part go, never early: a part
// gone from a look is created again only while building, and a look is not
// shared across a change of intent. A controller that deleted a part calls
// Forget, so that the controller taking the next step looks again.
type TLSObserver struct {
	dynamic dynamic.Interface
	clock   clock.PassiveClock
	window  time.Duration

	mu   sync.Mutex
	last look
}

type look struct {
	at       time.Time
	served   platform.ServedAPIs
	intent   Intent
	withRest bool
	stack    TLSStack
}

// NewTLSObserver shares each look for window (ShareLookFor; 0 never shares).
func NewTLSObserver(dyn dynamic.Interface, clk clock.PassiveClock, window time.Duration) *TLSObserver {
	return &TLSObserver{dynamic: dyn, clock: clk, window: window}
}

// Observe is ObserveTLSStack, answered by a look taken less than the window
// ago for the same intent and served APIs (and withRest, if asked). Callers
// that ask while a look is under way wait for it.
func (o *TLSObserver) Observe(ctx context.Context, served platform.ServedAPIs, intent Intent, withRest bool) TLSStack {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.last
	if !l.at.IsZero() && o.clock.Since(l.at) < o.window && l.served == served && l.intent == intent && (l.withRest || !withRest) {
		return l.stack
	}
	at := o.clock.Now()
	o.last = look{at: at, served: served, intent: intent, withRest: withRest,
		stack: ObserveTLSStack(ctx, o.dynamic, served, withRest)}
	return o.last.stack
}

// Forget drops the shared look: the caller has just deleted a part.
func (o *TLSObserver) Forget() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.last = look{}
}
