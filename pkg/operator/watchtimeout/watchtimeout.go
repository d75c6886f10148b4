// Package watchtimeout lengthens the watches of every informer the operator
// runs. client-go re-opens each watch every 5 to 10 minutes and offers no
// option to change that for shared informers; with a dozen informers that
// alone exceeds our budget of 40 watch requests an hour. The API server
// honours the timeoutSeconds a client asks for, so we ask for longer ones.
package watchtimeout

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
)

// Min is the shortest watch the operator asks for; the actual timeout is
// random in [Min, 2*Min) so that informers do not reconnect in step.
const Min = 30 * time.Minute

// Wrap returns a copy of config whose watch requests last at least min.
func Wrap(config *rest.Config, min time.Duration) *rest.Config {
	out := rest.CopyConfig(config)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &roundTripper{next: rt, min: min}
	})
	return out
}

type roundTripper struct {
	next http.RoundTripper
	min  time.Duration
}

func (r *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if req.Method != http.MethodGet || q.Get("watch") != "true" {
		return r.next.RoundTrip(req)
	}
	current, _ := strconv.Atoi(q.Get("timeoutSeconds"))
	if time.Duration(current)*time.Second >= r.min {
		return r.next.RoundTrip(req)
	}
	timeout := r.min + time.Duration(rand.Int64N(int64(r.min)))
	q.Set("timeoutSeconds", strconv.Itoa(int(timeout.Seconds())))
	req = req.Clone(req.Context())
	req.URL.RawQuery = q.Encode()
	return r.next.RoundTrip(req)
}
