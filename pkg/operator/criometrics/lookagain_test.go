package criometrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLookAgain(t *testing.T) {
	waiting := observation{Waiting: "w"}
	persisting := observation{Waiting: "w", WaitPersists: true}
	for _, tc := range []struct {
		name     string
		tookStep bool
		o        observation
		failed   bool
		again    bool
		after    time.Duration
	}{
		{"settled: the resync", false, observation{}, false, false, 0},
		{"a removal step: the next at once", true, observation{}, false, true, 0},
		{"a removal step that failed elsewhere: the next at once", true, waiting, true, true, 0},
		{"waiting for MCO's policy, within the grace", false, waiting, false, true, waitRecheck},
		{"waiting past the grace", false, persisting, false, true, time.Minute},
		{"waiting, and a request failed: the backoff", false, waiting, true, false, 0},
	} {
		again, after := lookAgain(tc.tookStep, tc.o, tc.failed)
		assert.Equal(t, []any{tc.again, tc.after}, []any{again, after}, tc.name)
	}
}
