package review

import (
	"testing"

	"vmbench/scenarios/rundir"
)

// TestCheckSummary: the verdicts' summary counts the VMs that passed and
// names those that failed.
func TestCheckSummary(t *testing.T) {
	for _, c := range []struct {
		in   []rundir.CheckVerdict
		want string
	}{
		{[]rundir.CheckVerdict{{VM: "a", Passed: true}, {VM: "b", Passed: true}}, "consistency checks after the run passed on 2 of 2 VMs"},
		{[]rundir.CheckVerdict{{VM: "a", Passed: true}, {VM: "b", Error: "x"}, {VM: "c", Error: "y"}},
			"consistency checks after the run passed on 1 of 3 VMs; FAILED on b, c (see checks/<vm>.txt)"},
	} {
		if got := CheckSummary(c.in); got != c.want {
			t.Errorf("CheckSummary(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
