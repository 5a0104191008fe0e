package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
)

// TestCampaignChecksAfterRun: the workload's checks run on every VM once
// the run has ended; one VM failing them does not fail the campaign, but
// its verdict, in run.json, the log, checks/<vm>.txt and the review, says
// so.
func TestCampaignChecksAfterRun(t *testing.T) {
	sim := startSim(t)
	d := &stubDriver{failCheckOn: "sysbench-02"}
	out, _, log, err := runStubSpec(t, t.Context(), d, sim, stubSpec)
	if err != nil {
		t.Fatal(err)
	}
	var ri rundir.RunInfo
	if b, err := os.ReadFile(filepath.Join(out.Dir, rundir.RunFile)); err != nil || json.Unmarshal(b, &ri) != nil {
		t.Fatalf("run.json: %s %v", b, err)
	}
	want := []rundir.CheckVerdict{{VM: "sysbench-01", Passed: true}, {VM: "sysbench-02", Error: "a consistency check failed: 3 rows missing"}, {VM: "sysbench-03", Passed: true}}
	if !slices.Equal(ri.Checks, want) {
		t.Errorf("run.json checks %+v, want %+v", ri.Checks, want)
	}
	if !strings.Contains(log, "passed on 2 of 3 VMs; FAILED on sysbench-02") {
		t.Errorf("log:\n%s", log)
	}
	b, err := os.ReadFile(filepath.Join(out.Dir, rundir.ChecksDir, "sysbench-02.txt"))
	if err != nil || !strings.Contains(string(b), "stub: 3 rows missing") || !strings.Contains(string(b), "# FAILED: a consistency check failed") {
		t.Errorf("checks/sysbench-02.txt: %q %v", b, err)
	}
	md, err := os.ReadFile(filepath.Join(out.Dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "Checks: consistency checks after the run passed on 2 of 3 VMs; FAILED on sysbench-02") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
}
