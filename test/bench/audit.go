//go:build e2e

package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the benchmark reads.
type auditEvent struct {
	AuditID, Stage, RequestURI, Verb, UserAgent string
	ObjectRef                                   *struct{ Resource, Namespace, Name, APIGroup, Subresource string }
	RequestReceivedTimestamp                    time.Time
}

// operatorRequests reads the requests of the user agent prefix from the
// audit log, one event per request: ResponseStarted for a watch (its
// ResponseComplete comes when it ends), ResponseComplete or Panic otherwise.
func operatorRequests(path, uaPrefix string) ([]auditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditEvent
		if !bytes.Contains(sc.Bytes(), []byte(`"userAgent":"`+uaPrefix)) || json.Unmarshal(sc.Bytes(), &e) != nil ||
			seen[e.AuditID] || (e.Stage != "ResponseStarted" && e.Stage != "ResponseComplete" && e.Stage != "Panic") {
			continue
		}
		seen[e.AuditID] = true
		out = append(out, e)
	}
	return out, sc.Err()
}

// window counts the requests received in [from, to) by "verb resource
// name", leader election's Lease apart.
type window struct {
	d                             time.Duration
	writes, reads, watches, lease map[string]int
	openWatches                   int
	expectedWatchesPerHour        float64
}

func summarise(events []auditEvent, from, to time.Time) window {
	w := window{d: to.Sub(from), writes: map[string]int{}, reads: map[string]int{}, watches: map[string]int{}, lease: map[string]int{}}
	for _, e := range events {
		at := e.RequestReceivedTimestamp
		what := e.Verb + " " + e.RequestURI
		if r := e.ObjectRef; r != nil {
			what = e.Verb + " " + strings.TrimLeft(r.Namespace+"/", "/") + strings.TrimRight(r.Resource+"."+r.APIGroup, ".") +
				strings.TrimRight("/"+r.Subresource, "/") + " " + r.Name
		}
		if e.Verb == "watch" && at.Before(to) {
			// A watch still open at the end is re-opened once per timeout:
			// clients draw it uniformly from [lo, 2lo) (client-go's
			// reflector 5 min, pkg/operator/watchtimeout and the API
			// server's default 30 min), ln(2) h/lo re-opens an hour.
			u, _ := url.Parse(e.RequestURI)
			s, _ := strconv.Atoi(u.Query().Get("timeoutSeconds"))
			d := cmp.Or(time.Duration(s)*time.Second, 45*time.Minute)
			lo := 5 * time.Minute
			if d >= 30*time.Minute {
				lo = 30 * time.Minute
			}
			if at.Add(d).After(to) {
				w.openWatches++
				w.expectedWatchesPerHour += math.Ln2 * float64(time.Hour) / float64(lo)
			}
		}
		switch {
		case at.Before(from) || !at.Before(to):
		case e.Verb == "watch":
			w.watches[what]++
		case e.ObjectRef != nil && e.ObjectRef.Resource == "leases":
			w.lease[e.Verb]++
		case e.Verb == "get" || e.Verb == "list":
			w.reads[what]++
		default:
			w.writes[what]++
		}
	}
	return w
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// counts lists m, the largest first.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || (m[keys[i]] == m[keys[j]] && keys[i] < keys[j]) })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n    %4d  %s", m[k], k)
	}
	return b.String()
}
