//go:build e2e

package bench

import (
	"bufio"
	"bytes"
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
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
}

func (e *auditEvent) resource() string {
	if e.ObjectRef == nil {
		return e.RequestURI
	}
	r := e.ObjectRef.Resource
	if e.ObjectRef.APIGroup != "" {
		r += "." + e.ObjectRef.APIGroup
	}
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	if e.ObjectRef.Namespace != "" {
		r = e.ObjectRef.Namespace + "/" + r
	}
	return r
}

// watchTimeout is the timeoutSeconds the client asked for, 0 if none.
func (e *auditEvent) watchTimeout() time.Duration {
	u, err := url.Parse(e.RequestURI)
	if err != nil {
		return 0
	}
	s, _ := strconv.Atoi(u.Query().Get("timeoutSeconds"))
	return time.Duration(s) * time.Second
}

var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

// readOperatorEvents returns the operator's requests from the audit log,
// one event per request (stage ResponseStarted for watches, whose
// ResponseComplete comes when the watch ends, ResponseComplete or Panic
// otherwise), identified by the user agent prefix.
func readOperatorEvents(path, uaPrefix string) ([]auditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	needle := []byte(`"userAgent":"` + uaPrefix)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, needle) {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			continue
		}
		if !strings.HasPrefix(e.UserAgent, uaPrefix) || seen[e.AuditID] {
			continue
		}
		if e.Stage != "ResponseStarted" && e.Stage != "ResponseComplete" && e.Stage != "Panic" {
			continue
		}
		seen[e.AuditID] = true
		out = append(out, e)
	}
	return out, sc.Err()
}

// windowStats summarises the operator's requests received in [from, to).
type windowStats struct {
	Window        time.Duration
	Writes        int            // create/update/patch/delete(collection), leases excluded
	WritesBy      map[string]int // "verb resource" -> count
	LeaseWrites   int
	Reads         int            // get/list, leases excluded
	ReadsBy       map[string]int // "verb resource name" -> count
	LeaseReads    int
	Watches       int
	WatchesBy     map[string]int
	AllRequests   int
	PredictedWPH  float64 // sum over the watches open at the end of 3600s/timeout
	ExpectedWPH   float64 // the same, with each timeout's expectation (see below)
	OpenWatches   int
	NoTimeoutWats int
}

func isLease(e *auditEvent) bool {
	return e.ObjectRef != nil && e.ObjectRef.Resource == "leases" && e.ObjectRef.APIGroup == "coordination.k8s.io"
}

func summarise(events []auditEvent, from, to time.Time) windowStats {
	s := windowStats{Window: to.Sub(from), WritesBy: map[string]int{}, ReadsBy: map[string]int{}, WatchesBy: map[string]int{}}
	for i := range events {
		e := &events[i]
		// a watch still open at the end (by its timeoutSeconds) will be
		// re-opened once per timeout: that is the rate it implies.
		if e.Verb == "watch" && e.RequestReceivedTimestamp.Before(to) {
			d := e.watchTimeout()
			if d <= 0 {
				// the API server picks [min-request-timeout, 2x) = 30 to 60 min
				d = 45 * time.Minute
				if e.RequestReceivedTimestamp.Add(d).After(to) {
					s.NoTimeoutWats++
				}
			}
			if e.RequestReceivedTimestamp.Add(d).After(to) {
				s.OpenWatches++
				s.PredictedWPH += float64(time.Hour) / float64(d)
				// Clients draw each timeout uniformly from [lo, 2lo):
				// client-go's reflector lo = 5 min, pkg/operator/watchtimeout
				// and the API server's default lo = 30 min. Re-opens per
				// hour then average ln(2) h/lo.
				lo := 5 * time.Minute
				if d >= 30*time.Minute {
					lo = 30 * time.Minute
				}
				s.ExpectedWPH += math.Ln2 * float64(time.Hour) / float64(lo)
			}
		}
		if e.RequestReceivedTimestamp.Before(from) || !e.RequestReceivedTimestamp.Before(to) {
			continue
		}
		s.AllRequests++
		switch {
		case e.Verb == "watch":
			s.Watches++
			s.WatchesBy[e.resource()]++
		case writeVerbs[e.Verb] && isLease(e):
			s.LeaseWrites++
		case (e.Verb == "get" || e.Verb == "list") && isLease(e):
			s.LeaseReads++
		case e.Verb == "get" || e.Verb == "list":
			s.Reads++
			s.ReadsBy[e.Verb+" "+e.resource()+" "+nameOf(e)]++
		case writeVerbs[e.Verb]:
			s.Writes++
			s.WritesBy[e.Verb+" "+e.resource()+" "+nameOf(e)]++
		}
	}
	return s
}

func nameOf(e *auditEvent) string {
	if e.ObjectRef == nil {
		return ""
	}
	return e.ObjectRef.Name
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || (m[keys[i]] == m[keys[j]] && keys[i] < keys[j]) })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "    %4d  %s\n", m[k], k)
	}
	return b.String()
}
