package testsext

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// T is what a running test gets: the cluster, its deadline and a log that
// becomes the result's output.
type T struct {
	Ctx     context.Context
	Cluster *Cluster

	mu  sync.Mutex
	log bytes.Buffer
}

// Logf adds a line to the test's output.
func (t *T) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(&t.log, "%s %s\n", time.Now().UTC().Format(time.TimeOnly), fmt.Sprintf(format, args...))
}

func (t *T) output() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log.String()
}

// skip is returned by a test that does not apply to the cluster it found.
type skip struct{ why string }

func (s skip) Error() string { return "skipped: " + s.why }

// Skip returns the error that skips a test, saying why.
func Skip(format string, args ...any) error { return skip{fmt.Sprintf(format, args...)} }

// Eventually polls cond every two seconds until it answers "" (satisfied),
// fails with an error, or timeout (or the test's deadline) passes; the
// error then says what was awaited and the last answer.
func (t *T) Eventually(timeout time.Duration, what string, cond func() (string, error)) error {
	ctx, cancel := context.WithTimeout(t.Ctx, timeout)
	defer cancel()
	why := "not checked yet"
	for {
		w, err := cond()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if w == "" {
			return nil
		}
		why = w
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not within %s: %s", what, timeout, why)
		case <-time.After(2 * time.Second):
		}
	}
}

// Run runs one test against the cluster with a deadline; the result is
// failed when ctx ends first (SIGINT, a timeout), even if the test function
// is still waiting on the API.
func Run(ctx context.Context, test Test, connect func() (*Cluster, error), timeout time.Duration) Result {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, test.Timeout(timeout))
	defer cancel()
	t := &T{Ctx: ctx}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		c, err := connect()
		if err != nil {
			done <- fmt.Errorf("connecting to the cluster: %w", err)
			return
		}
		t.Cluster = c
		done <- test.Run(t)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	end := time.Now()
	lifecycle := test.Spec().Lifecycle
	r := Result{Name: test.Name, Lifecycle: lifecycle, Duration: end.Sub(start).Milliseconds(),
		StartTime: Timestamp(start), EndTime: Timestamp(end), Result: Passed, Output: t.output()}
	var s skip
	switch {
	case errors.As(err, &s):
		r.Result = Skipped
		r.Details = []Detail{{Name: "skipped", Value: s.why}}
	case err != nil:
		r.Result, r.Error = Failed, err.Error()
	}
	return r
}

// junitSuite is the JUnit XML that CI renders; one testcase per result.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes results as one JUnit test suite.
func WriteJUnit(w io.Writer, suite string, results []Result) error {
	js := junitSuite{Name: suite, Tests: len(results)}
	for _, r := range results {
		c := junitCase{Name: r.Name, Time: float64(r.Duration) / 1000, SystemOut: r.Output}
		js.Time += c.Time
		switch r.Result {
		case Failed:
			js.Failures++
			c.Failure = &junitMessage{Message: r.Error, Text: r.Output}
		case Skipped:
			js.Skipped++
			c.Skipped = &junitMessage{Message: r.Details[0].Value}
		}
		js.Cases = append(js.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	return enc.Encode(js)
}
