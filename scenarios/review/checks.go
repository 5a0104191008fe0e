package review

import (
	"fmt"
	"strings"

	"vmbench/scenarios/rundir"
)

// CheckSummary sums up the verdicts of the workload's consistency checks
// after a run (run.json's Checks) in a phrase: "consistency checks after
// the run passed on 8 of 8 VMs", naming the VMs that failed (their lines
// are in checks/<vm>.txt).
func CheckSummary(verdicts []rundir.CheckVerdict) string {
	var failed []string
	for _, v := range verdicts {
		if !v.Passed {
			failed = append(failed, v.VM)
		}
	}
	s := fmt.Sprintf("consistency checks after the run passed on %d of %d VMs", len(verdicts)-len(failed), len(verdicts))
	if len(failed) > 0 {
		s += "; FAILED on " + strings.Join(failed, ", ") + " (see checks/<vm>.txt)"
	}
	return s
}
