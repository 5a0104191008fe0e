package scenarios

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/oltp"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
)

// A Ctrl-C during the precondition measured nothing: the results
// directory goes, and the error claims no results.
func TestCampaignCancelledInPreconditionLeavesNothing(t *testing.T) {
	sim := startSim(t)
	ctx, cancel := context.WithCancel(t.Context())
	d := &stubDriver{blockRun: make(chan struct{}), inPrecondition: true}
	go func() {
		<-d.blockRun
		cancel()
	}()
	_, dir, err := runStub(t, ctx, d, sim)
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "measured until then") {
		t.Fatalf("err = %v, want context.Canceled, claiming no results", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a campaign stopped in its precondition left %v", entries)
	}
}

// setResult rewrites the Result file path with edit applied.
func setResult(t *testing.T, path string, edit func(*oltp.Result)) {
	t.Helper()
	r, err := oltp.ReadResultFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the results directory src (two levels) into a new one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestRenderRefusesDamagedVMCampaign(t *testing.T) {
	out, _, err := runStub(t, t.Context(), &stubDriver{}, startSim(t))
	if err != nil {
		t.Fatal(err)
	}
	vm := func(dir, name string) string { return filepath.Join(dir, "vms", name+".json") }
	for _, tc := range []struct {
		name   string
		damage func(dir string)
		want   func(dir string) string
	}{
		{"a VM result removed", func(dir string) { os.Remove(vm(dir, "sysbench-02")) },
			func(dir string) string {
				return filepath.Join(dir, "merged.json") + ": merges 3 run(s), but vms/ holds 2 VM result(s)"
			}},
		{"a VM result copied under another name", func(dir string) {
			b, err := os.ReadFile(vm(dir, "sysbench-01"))
			if err == nil {
				err = os.WriteFile(vm(dir, "sysbench-04"), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}, func(dir string) string {
			return vm(dir, "sysbench-04") + `: labels.vm is "sysbench-01", not "sysbench-04" as the file is named`
		}},
		{"vms.count changed", func(dir string) {
			editFile(t, filepath.Join(dir, "campaign.yaml"), "count: 3", "count: 4")
		}, func(dir string) string {
			return filepath.Join(dir, "campaign.yaml") + ": vms.count is 4, but vms/ holds 3 VM result(s)"
		}},
		{"merged.json removed", func(dir string) { os.Remove(filepath.Join(dir, "merged.json")) },
			func(dir string) string {
				return filepath.Join(dir, "merged.json") + " is missing, but " + filepath.Join(dir, rundir.RunFile) + " records that the campaign completed"
			}},
		{"precondition results", func(dir string) {
			os.Remove(filepath.Join(dir, "merged.json"))
			if err := rundir.WriteRunInfo(dir, rundir.RunInfo{Kind: rundir.VMCampaignKind}); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"sysbench-01", "sysbench-02", "sysbench-03"} {
				setResult(t, vm(dir, n), func(r *oltp.Result) { r.Phase = oltp.PhasePrecondition })
			}
		}, func(dir string) string {
			return dir + ` measured nothing: its VM results (vms/<vm>.json) are of phase "precondition"`
		}},
	} {
		dir := copyDir(t, out.Dir)
		md, _ := os.ReadFile(filepath.Join(dir, review.ReportFile))
		tc.damage(dir)
		_, err := review.WriteReports(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want(dir)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want(dir))
		}
		if got, _ := os.ReadFile(filepath.Join(dir, review.ReportFile)); string(got) != string(md) {
			t.Errorf("%s: report.md was rewritten", tc.name)
		}
	}
}
