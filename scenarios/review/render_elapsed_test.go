package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A VM result whose elapsed time is not its measured window (0, negative,
// or not End-Start), or a merged.json whose elapsed time or counts are not
// the merge of the VMs', is refused with the file named: every rate is
// divided by the elapsed time.
func TestRenderRefusesImpossibleElapsed(t *testing.T) {
	const elapsed = `"elapsed_ns": 10000000000,`
	vm1 := filepath.Join("vms", "sysbench-01.json")
	for _, tc := range []struct {
		name, file, new, want string
	}{
		{"a VM's elapsed 0", vm1, `"elapsed_ns": 0,`, "elapsed_ns 0 is not a measured time: it must be positive (start 2026-11-30T09:00:10Z, end 2026-11-30T09:00:20Z: 10s)"},
		{"a VM's elapsed negative", vm1, `"elapsed_ns": -3000000000,`, "elapsed_ns -3000000000 is not a measured time"},
		{"a VM's elapsed halved", vm1, `"elapsed_ns": 5000000000,`, "elapsed_ns 5000000000 (5s) does not agree with end - start (10s)"},
		{"a VM's elapsed within the clocks' slack, merged.json not", vm1, `"elapsed_ns": 10500000000,`,
			"merged.json: elapsed_ns is 10000000000, but the VM results' elapsed times merge to 10250000000"},
		{"merged.json's elapsed edited", "merged.json", `"elapsed_ns": 9500000000,`,
			"merged.json: elapsed_ns is 9500000000, but the VM results' elapsed times merge to 10000000000"},
		{"merged.json's latency sum edited", "merged.json", `"sum_ns": 634912965651,`,
			"merged.json: transaction count is 73000, latency sum 634912965651 ns, but the VM results merge to 73000, latency sum 634912965650 ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sysbench-2vm")
			if err := os.CopyFS(dir, os.DirFS(fixtureDir("sysbench-2vm"))); err != nil {
				t.Fatal(err)
			}
			if _, err := Render(dir); err != nil {
				t.Fatalf("the fixture itself: %v", err)
			}
			old := elapsed
			if strings.HasPrefix(tc.new, `"sum_ns"`) {
				old = `"sum_ns": 634912965650,`
			}
			editFile(t, filepath.Join(dir, tc.file), old, tc.new)
			_, err := Render(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), dir) {
				t.Errorf("%v, want an error naming its file and %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 4 {
				t.Errorf("Render wrote into the directory: %v", entries)
			}
		})
	}
}
