package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/scenarios/review"
)

// keepReports reads dir's report.md and report.csv and removes them.
func keepReports(t *testing.T, dir string) (md, csv string) {
	t.Helper()
	var got [2]string
	for i, f := range []string{"report.md", "report.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got[i] = string(b)
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	return got[0], got[1]
}

// checkRerender deletes dir's reports, runs 'vmbench report DIR' and
// checks that it writes them again byte for byte, that --format markdown
// and csv print them, and that the text table names want. It returns the
// text printed.
func checkRerender(t *testing.T, dir string, want ...string) string {
	t.Helper()
	md, csv := keepReports(t, dir)
	code, stdout, stderr := runCLI(t, nil, "report", dir)
	if code != 0 {
		t.Fatalf("report %s: exit %d\n%s", dir, code, stderr)
	}
	for f, w := range map[string]string{"report.md": md, "report.csv": csv} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != w {
			t.Errorf("%s rendered again differs (%v):\n--- campaign's\n%s\n--- rendered\n%s", f, err, w, b)
		}
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("the review table lacks %q:\n%s", w, stdout)
		}
	}
	for format, w := range map[string]string{"markdown": md, "csv": csv} {
		if code, out, stderr := runCLI(t, nil, "report", dir, "--format", format); code != 0 || out != w {
			t.Errorf("--format %s: exit %d %s\n%s", format, code, stderr, out)
		}
	}
	return stdout
}

func TestReportRerendersSysbenchCampaign(t *testing.T) {
	res := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--results-dir", res); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := resultsDir(t, res)
	checkRerender(t, dir, "sysbench-01", "sysbench-02", "aggregate, published", "Simulated: VMs in an in-process vSphere simulator")

	// A campaign stopped before the merge: rendered with what it holds.
	partial := dir + ".incomplete"
	if err := os.Rename(dir, partial); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(partial, "merged.json")); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(partial, "run.json") // as written before the run
	b, _ := os.ReadFile(run)
	if err := os.WriteFile(run, []byte(strings.Replace(string(b), `"completed": true`, `"completed": false`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, "report", partial)
	if code != 0 || !strings.Contains(stdout, "Incomplete: the campaign stopped before it merged its results; 2 of 2 VMs' results, all complete") {
		t.Errorf("report of an incomplete campaign: exit %d %s\n%s", code, stderr, stdout)
	}

	// A Result of a newer schema: exit 2, naming the file and the versions read.
	res1 := filepath.Join(partial, "vms", "sysbench-01.json")
	b, _ = os.ReadFile(res1)
	cur, next := fmt.Sprintf(`"version": %d`, oltp.ResultVersion), oltp.ResultVersion+1
	if err := os.WriteFile(res1, []byte(strings.Replace(string(b), cur, fmt.Sprintf(`"version": %d`, next), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, nil, "report", partial)
	if code != 2 || !strings.Contains(stderr, fmt.Sprintf("%s: result version %d is not supported (this vmbench reads versions 1 to %d)", res1, next, oltp.ResultVersion)) {
		t.Errorf("a newer Result: exit %d\n%s", code, stderr)
	}
}

// The tool's review columns (tpmC, NOPM) come back through the workload
// contract (workload.Reviewer of the Config parsed from campaign.yaml).
func TestReportRerendersTPCCCampaign(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes per warehouse; make test runs the SQLite tests without -race")
	}
	res := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "tiny-tpcc.yaml", tinyTPCCCampaign), "--simulate", "--results-dir", res); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	checkRerender(t, resultsDir(t, res), "sqlserver-01", "tpmC", "NOPM", "New-Orders per minute")
}

// oneProfileSuite is a block suite whose simulation runs one profile of
// two 2 s points (1 s intervals) on two 8 MiB files.
const oneProfileSuite = `kind: block-suite
name: one-block
targets: [/dev/nvme0n1, /dev/nvme1n1]
profiles: [64k-sequential-write]
simulate: {targets: 2, size: 8m, threads: 1, elapsed: 2, interval: 1, warmup: 0, curve: [50]}
`

func TestReportRerendersBlockSuite(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // where --simulate puts its temporary files
	res := t.TempDir()
	code, stdout, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "one-block.yaml", oneProfileSuite), "--simulate", "--results-dir", res)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	text := checkRerender(t, resultsDir(t, res), "start latency (µs)", "64K sequential write", "GB/s")
	if !strings.HasSuffix(stdout, "\n"+text) {
		t.Errorf("the table the suite printed:\n%s\nis not the one rendered again:\n%s", stdout, text)
	}
}

func TestReportBadDirectoryExitsTwo(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", empty}, empty + " is not a vmbench results directory: it has no run.json, campaign.yaml or suite.yaml"},
		{[]string{"report", filepath.Join(empty, "nope")}, "no such file or directory"},
		{[]string{"report", empty, "--format", "pdf"}, `--format: "pdf" is not a format (valid: html, md (or markdown), csv, json, text)`},
		{[]string{"report"}, "report: takes DIR"},
	} {
		code, _, stderr := runCLI(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("a refused report wrote %v", entries)
	}
}

// fixtures are the results directories committed for the report's tests.
const fixtures = "../../scenarios/review/testdata/results/"

func TestReportCompareCLI(t *testing.T) {
	code, out, stderr := runCLI(t, nil, "report", fixtures+"sysbench-2vm", fixtures+"sysbench-2vm-faster", "--format", "csv", "--reference", "R750")
	if code != 0 || !strings.Contains(out, "aggregate TPS,7300.0,9825.0,34.6") {
		t.Errorf("exit %d %s\n%s", code, stderr, out)
	}
	// Without --format or --output: Markdown on stdout, for a terminal.
	if code, out, stderr := runCLI(t, nil, "report", fixtures+"sysbench-2vm", fixtures+"sysbench-2vm-faster"); code != 0 ||
		!strings.HasPrefix(out, "# ") || strings.Contains(out, "<html") {
		t.Errorf("default form: exit %d %s\n%.300s", code, stderr, out)
	}
	html := filepath.Join(t.TempDir(), "cmp.html")
	if code, _, stderr := runCLI(t, nil, "report", fixtures+"sysbench-2vm", fixtures+"sysbench-2vm-faster", "-o", html); code != 0 {
		t.Fatalf("--output: exit %d %s", code, stderr)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<td class=\"num\">&#43;34.6</td>") {
		t.Errorf("--output %s: %v\n%.300s", html, err, b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", fixtures + "sysbench-2vm", "--reference", "R999"}, `--reference "R999": no published server match`},
		{[]string{"report", fixtures + "sysbench-2vm", fixtures + "sysbench-2vm-faster", "--format", "text"}, `--format: "text" is not a format for several DIRs`},
		{[]string{"report", fixtures + "sysbench-2vm", t.TempDir()}, "is not a vmbench results directory"},
		{[]string{"report", fixtures + "sysbench-2vm", fixtures + "../results/sysbench-2vm/"}, "are the same directory: give each directory once"},
	} {
		if code, _, stderr := runCLI(t, nil, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// Two directories of the same name are told apart by their paths: the
// table's columns and the JSON figures of each stay its own.
func TestReportSameNameInputs(t *testing.T) {
	other := filepath.Join(t.TempDir(), "sysbench-2vm")
	if err := os.CopyFS(other, os.DirFS(fixtures+"sysbench-2vm-faster")); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, nil, "report", fixtures+"sysbench-2vm", other, "--format", "csv")
	if code != 0 || !strings.Contains(out, filepath.Clean(fixtures+"sysbench-2vm")) || !strings.Contains(out, other) ||
		!strings.Contains(out, "aggregate TPS,7300.0,9825.0,34.6") {
		t.Errorf("exit %d %s\n%s", code, stderr, out)
	}
}

// A review directory: report DIR writes its reports again, with the
// warnings review.json holds (a failed campaign, results that are gone);
// a damaged review.json is refused, naming it.
func TestReportReviewDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "sysbench-2vm"), os.DirFS(fixtures+"sysbench-2vm")); err != nil {
		t.Fatal(err)
	}
	record := `{"name": "r", "campaigns": [{"file": "a.yaml", "dir": "sysbench-2vm"}, {"file": "b.yaml", "error": "disk full"}, {"file": "c.yaml", "dir": "gone"}]}`
	if err := os.WriteFile(filepath.Join(dir, review.RecordFile), []byte(record), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "report", dir); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "Campaign b.yaml failed: disk full.") || !strings.Contains(string(md), "The results of campaign c.yaml (gone), listed in review.json, are gone.") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	if err := os.WriteFile(filepath.Join(dir, review.RecordFile), []byte(record[:40]), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "report", dir, "--format", "md"); code != 2 || !strings.Contains(stderr, "review.json: not a vmbench review record (damaged?)") {
		t.Errorf("damaged review.json: exit %d\n%s", code, stderr)
	}
}

// A review directory interrupted in its first campaign, before it
// measured anything (review.json, no results directory): report DIR
// writes its report, which says so; it is not refused as "not a vmbench
// results directory".
func TestReportReviewInterruptedBeforeAnything(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rv-20260102T150405Z-a1b2.incomplete")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	record := `{"name": "rv", "interrupted": true, "campaigns": [{"file": "a.yaml", "error": "interrupted (Ctrl-C): campaign a: context canceled", "interrupted": true}, {"file": "b.yaml", "not_run": true}]}`
	if err := os.WriteFile(filepath.Join(dir, review.RecordFile), []byte(record), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "report", dir); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"Campaign a.yaml was interrupted (Ctrl-C) before it measured anything: campaign a: context canceled.",
		"Campaign b.yaml did not run: the review was interrupted (Ctrl-C) during a.yaml.", "No campaign of the review measured anything"} {
		if err != nil || !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q: %v\n%s", want, err, md)
		}
	}
}
