package review

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"vmbench/report"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// oneProfileSuite simulates one profile of two 2 s points (the max run
// and 50%, 1 s intervals) on two 8 MiB files.
var oneProfileSuite = filepath.Join("testdata", "one-profile-suite.yaml")

// writeSuiteDir runs the block suite in file simulated (its simulate:
// block, on temporary files) through the suite's tool, profile by
// profile, and writes its results directory into a new temporary
// directory as the campaign engine's RunSuite writes one: suite.yaml (the
// suite as run), run.json, each profile's files (the tool's
// workload.ResultWriter) and the reports (WriteReports). It returns the
// directory.
func writeSuiteDir(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.ParseSuite(filepath.Base(file), b)
	if err != nil {
		t.Fatal(err)
	}
	run := s.Simulated(t.TempDir())
	plans, err := run.Configs()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), run.Name)
	resolved, err := yaml.Marshal(run)
	if err == nil {
		err = os.Mkdir(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "suite.yaml"), resolved, 0o644)
	}
	if err == nil {
		err = rundir.WriteRunInfo(dir, rundir.RunInfo{Kind: rundir.SuiteRunKind, VMBench: "test-1", Started: time.Now(), Simulated: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Labels: map[string]string{"suite": run.Name}}
	for _, p := range plans {
		if err := p.Config.Prepare(t.Context(), env); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range plans {
		o, err := p.Config.Run(t.Context(), env)
		if err != nil {
			t.Fatalf("%s: %v", p.Profile, err)
		}
		if _, err := p.Config.(workload.ResultWriter).WriteResults(dir, p.Profile, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := WriteReports(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRenderSuite: a block suite's review table is the same in every form
// and its numbers are the JSON's figures; a suite whose profile was
// interrupted, or that stopped before a profile, is rendered and said to
// be incomplete; a record of a newer version, or a suite that measured
// nothing, is refused.
func TestRenderSuite(t *testing.T) {
	dir := writeSuiteDir(t, oneProfileSuite)
	rep, err := Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	var md []byte
	// The review table is the same in every form, and its numbers are the
	// JSON's figures.
	_, js, inPage := checkFormatsAgree(t, rep)
	checkSuiteFigures(t, rep, js, inPage)
	checkSuiteComparison(t, dir)

	// A suite whose (only) profile was interrupted is incomplete too,
	// though its first point is complete.
	rec := filepath.Join(dir, "4k-random-read.json")
	editFile(t, rec, `"version": 2,`, `"version": 2, "interrupted": true, "error": "run interrupted",`)
	if _, err := WriteReports(dir); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir, ReportFile))
	if !bytes.Contains(md, []byte("**Incomplete: 1 of 1 profiles measured (1 of them interrupted, with the figures measured until then)")) ||
		!bytes.Contains(md, []byte("| 4K random read (interrupted) |")) {
		t.Errorf("report.md of a suite whose profile was interrupted:\n%s", md)
	}
	editFile(t, rec, `"version": 2, "interrupted": true, "error": "run interrupted",`, `"version": 2,`)

	// A suite stopped before its second profile: rendered, and said so.
	editFile(t, filepath.Join(dir, "suite.yaml"), "- 4k-random-read\n", "- 4k-random-read\n    - 4k-random-write\n")
	if _, err := WriteReports(dir); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir, ReportFile))
	if !bytes.Contains(md, []byte("**Incomplete: 1 of 2 profiles measured; the suite stopped before the end (or is still running).**")) {
		t.Errorf("report.md of an incomplete suite:\n%s", md)
	}

	// A record of a newer version is refused, naming it and the versions read.
	editFile(t, rec, `"version": 2`, `"version": 3`)
	if _, err := Render(dir); err == nil || !strings.Contains(err.Error(), rec+`: kind "vdbench-curve" version 3 is not a vdbench-curve record of version 1 to 2`) {
		t.Errorf("a newer record: %v", err)
	}
	editFile(t, rec, `"version": 3`, `"version": 2`)

	// A suite that measured nothing (its only record removed) is refused,
	// and its reports are left as they were.
	if err := os.Remove(rec); err != nil {
		t.Fatal(err)
	}
	keep, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if _, err := WriteReports(dir); err == nil || !strings.Contains(err.Error(), dir+" measured nothing: none of its 2 profile(s) has its results") {
		t.Errorf("a suite that measured nothing: %v", err)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, ReportFile)); !bytes.Equal(md, keep) {
		t.Errorf("report.md was rewritten from a suite that measured nothing:\n%s", md)
	}
}

// checkSuiteFigures checks that each number of a block suite's review
// table (the page's, header row first) is the JSON's figure of its
// profile and column, to the digits shown, and that a cell without a
// figure is not a number (a crossing in words, "–").
func checkSuiteFigures(t *testing.T, rep *Report, js []byte, rows [][]string) {
	t.Helper()
	figs := firstFigures(t, js)
	if len(rows) != len(rep.suite.rows)+1 || len(figs) == 0 {
		t.Fatalf("%d rows for %d profiles, %d figures", len(rows)-1, len(rep.suite.rows), len(figs))
	}
	for i, r := range rep.suite.rows {
		for j, cell := range rows[i+1][1:] {
			f, ok := figs[r.profile+": "+rows[0][j+1]]
			_, frac, _ := strings.Cut(cell, ".")
			_, err := strconv.ParseFloat(strings.ReplaceAll(cell, ",", ""), 64)
			if ok != (err == nil) || ok && report.Grouped(f, len(frac)) != cell {
				t.Errorf("%s %s: cell %q, JSON figure %v (present: %v)", r.profile, rows[0][j+1], cell, f, ok)
			}
		}
	}
}

// checkSuiteComparison compares the block suite in dir with a copy whose
// points achieved 25% more IOPS (its record edited, the latencies kept):
// the comparison's IOPS figures change by +25.0, its latencies by 0.0,
// computed from the figures' values, and the CSV has them as plain
// numbers.
func checkSuiteComparison(t *testing.T, dir string) {
	t.Helper()
	faster := filepath.Join(t.TempDir(), "faster")
	if err := os.CopyFS(faster, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(faster, "4k-random-read.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, p := range rec["points"].([]any) {
		p.(map[string]any)["achieved_iops"] = p.(map[string]any)["achieved_iops"].(float64) * 1.25
	}
	if b, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ins := readDirs(t, dir, faster)
	for _, plain := range []bool{false, true} {
		d, err := BuildDocument(ins, DocumentOptions{Plain: plain})
		if err != nil {
			t.Fatal(err)
		}
		tbl := comparisonTable(t, d)
		for fig, want := range map[string]string{"start IOPS": "+25.0", "peak IOPS": "+25.0", "start latency (µs)": "0.0", "peak latency (µs)": "0.0"} {
			if r := tbl[fig]; len(r) != 3 || r[2] != want {
				t.Errorf("%s (plain %v): %q, want a change of %s", fig, plain, r, want)
			}
		}
		if r := tbl["peak IOPS"]; plain && len(r) == 3 && strings.Contains(r[0]+r[1], ",") {
			t.Errorf("plain peak IOPS %q", r)
		}
	}
}
