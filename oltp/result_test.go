package oltp

import (
	"strings"
	"testing"
	"time"
)

// TestValidateElapsed: a Result's elapsed time is its measured window,
// End-Start within elapsedSlack for a single run and at most End-Start
// for a merge; another value (0, negative, edited) is refused, since
// every rate is divided by it.
func TestValidateElapsed(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name    string
		elapsed time.Duration
		span    time.Duration
		parts   int
		want    string
	}{
		{"a run", 3 * s, 3 * s, 1, ""},
		{"a run, version 1 parts unset", 3 * s, 3 * s, 0, ""},
		{"wall clock slewed", 600*s + 500*time.Millisecond, 600 * s, 1, ""},
		{"wall clock stepped 1 s", 4 * s, 3 * s, 1, ""},
		{"zero", 0, 3 * s, 1, "elapsed_ns 0 is not a measured time: it must be positive"},
		{"negative", -3 * s, 3 * s, 1, "elapsed_ns -3000000000 is not a measured time"},
		{"halved", 300 * s, 600 * s, 1, "does not agree with end - start (10m0s): a run's elapsed is its measured window, end - start within 1.6s"},
		{"doubled", 6 * s, 3 * s, 1, "does not agree with end - start (3s)"},
		{"end before start", 3 * s, -3 * s, 1, "is before start"},
		{"a merge: the mean of drifted parts", 10 * s, 11 * s, 2, ""},
		{"a merge longer than its span", 20 * s, 11 * s, 2, "is longer than end - start (11s): a merged result's elapsed"},
	} {
		r := result("w", t0, 1)
		r.Elapsed, r.End, r.Parts = tc.elapsed, t0.Add(tc.span), tc.parts
		err := r.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// The precondition is checked too, and named.
	r := result("w", t0, 1)
	r.Precondition = result("w", t0, 1)
	r.Precondition.Elapsed = 0
	if err := r.Validate(); err == nil || !strings.HasPrefix(err.Error(), "precondition: elapsed_ns 0") {
		t.Errorf("a precondition of elapsed 0: %v", err)
	}
}
