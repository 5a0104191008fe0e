package review

import (
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/spec"
)

// The report names each VM whose first phase began well after the
// earliest VM's, from the Results alone, and says so among its warnings.
func TestStartSpreadInTheReport(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	vm := func(name string, pre, measure time.Duration) *oltp.Result {
		r := &oltp.Result{Start: at.Add(measure), Labels: map[string]string{"vm": name}}
		if pre >= 0 {
			r.Precondition = &oltp.Result{Start: at.Add(pre)}
		}
		return r
	}
	slack := LateStartSlack + spec.DefaultMaxClockOffset
	for _, tc := range []struct {
		name    string
		results []*oltp.Result
		want    string
	}{
		{"together", []*oltp.Result{vm("a", 0, time.Minute), vm("b", slack, time.Minute)}, ""},
		{"one late", []*oltp.Result{vm("a", 0, time.Minute), vm("b", 870*time.Millisecond, time.Minute), vm("c", 10*time.Millisecond, time.Minute)}, "b 0.870 s"},
		{"without preconditions", []*oltp.Result{vm("a", -1, 2*time.Second), vm("b", -1, 0)}, "a 2.000 s"},
	} {
		got := strings.Join(startSpread(tc.results), ", ")
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		rv := &Review{perVM: tc.results}
		warned := strings.Contains(strings.Join(rv.warnings(), "\n"), "Late start: "+tc.want+" after the earliest VM began")
		if warned != (tc.want != "") {
			t.Errorf("%s: warnings %q", tc.name, rv.warnings())
		}
	}
}
