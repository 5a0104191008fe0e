package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
)

// TestCompareShowsEachInputsWarnings: a comparison of a review directory
// (simulated, one campaign failed) with a results directory (a VM
// interrupted, a client-bound client) says every one of those at the top,
// each labelled with its input, before the first table.
func TestCompareShowsEachInputsWarnings(t *testing.T) {
	root := t.TempDir()
	rev := filepath.Join(root, "rev-a")
	writeFixture(t, fixtureCampaigns[0], filepath.Join(rev, "sysbench-2vm"))
	editFile(t, filepath.Join(rev, "sysbench-2vm", rundir.RunFile), `"completed": true`, `"completed": true, "simulated": true`)
	rec, err := json.Marshal(Outcome{Name: "rev-a", Campaigns: []CampaignOutcome{
		{File: "sysbench-4vm.yaml", Dir: "sysbench-2vm"}, {File: "sqlserver-4vm.yaml", Error: "vcenter unreachable"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rev, RecordFile), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "run-b")
	writeFixture(t, fixtureCampaigns[1], other) // client-bound
	editFile(t, filepath.Join(other, "vms", "sysbench-02.json"), `"phase": "measure",`, `"phase": "measure", "interrupted": true,`)
	ins := readDirs(t, rev, other)
	d, err := BuildDocument(ins, DocumentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(d.Warnings, "\n")
	for _, want := range []string{
		"rev-a: Campaign sqlserver-4vm.yaml failed: vcenter unreachable.",
		"rev-a, sysbench-2vm: Simulated: ",
		"run-b: Client-bound: ",
		"run-b: sysbench-02's run was interrupted",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	if len(d.Sections) == 0 {
		t.Fatalf("nothing compared; warnings:\n%s", all)
	}
}
