package scenarios

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/report"
	"vmbench/scenarios/spec"
)

// oneProfileSuite simulates one profile of two 2 s points (the max run
// and 50%, 1 s intervals) on two 8 MiB files.
const oneProfileSuite = `kind: block-suite
name: one-profile
description: one corner
targets: [/dev/nvme0n1, /dev/nvme1n1]
profiles: [4k-random-read, 4k-random-write]
simulate: {targets: 2, size: 8m, threads: 1, elapsed: 2, interval: 1, warmup: 0, curve: [50], profiles: [4k-random-read]}
`

func TestRenderSuiteByteForByte(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the simulated targets
	s, err := spec.ParseSuite("one.yaml", []byte(oneProfileSuite))
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	out, err := RunSuite(t.Context(), s, Options{Simulate: true, ResultsDir: t.TempDir(), Out: &text, Log: io.Discard, Version: "test-1"})
	if err != nil {
		t.Fatal(err)
	}
	md := reportBytes(t, out.Dir)
	for _, w := range []string{"# Block suite one-profile", "Simulated: 2 temporary files of 8m each", ", vmbench test-1. I/O engine psync (vdbench's model)", "| 4K random read |",
		"[latency vs IOPS](4k-random-read.svg), [per target](4k-random-read-targets.svg), [data](4k-random-read.json)"} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md lacks %q:\n%s", w, md)
		}
	}
	if bytes.Contains(md, []byte("Incomplete")) {
		t.Errorf("a complete suite's report says it is incomplete:\n%s", md)
	}
	// The table the suite printed at the end is the rendered one.
	rep, err := Render(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := rep.WriteText(&again); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text.String(), "\n"+again.String()) || !strings.Contains(again.String(), "start latency (µs)") {
		t.Errorf("printed table:\n%s\nrendered:\n%s", text.String(), again.String())
	}
	// The review table is the same in every form, and its numbers are the
	// JSON's figures.
	_, js, inPage := checkFormatsAgree(t, rep)
	checkSuiteFigures(t, rep, js, inPage)
	checkSuiteComparison(t, out.Dir)

	// A suite whose (only) profile was interrupted is incomplete too,
	// though its first point is complete.
	rec := filepath.Join(out.Dir, "4k-random-read.json")
	editFile(t, rec, `"version": 2,`, `"version": 2, "interrupted": true, "error": "run interrupted",`)
	if _, err := WriteReports(out.Dir); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(out.Dir, ReportFile))
	if !bytes.Contains(md, []byte("**Incomplete: 1 of 1 profiles measured (1 of them interrupted, with the figures measured until then)")) ||
		!bytes.Contains(md, []byte("| 4K random read (interrupted) |")) {
		t.Errorf("report.md of a suite whose profile was interrupted:\n%s", md)
	}
	editFile(t, rec, `"version": 2, "interrupted": true, "error": "run interrupted",`, `"version": 2,`)

	// A suite stopped before its second profile: rendered, and said so.
	editFile(t, filepath.Join(out.Dir, "suite.yaml"), "- 4k-random-read\n", "- 4k-random-read\n    - 4k-random-write\n")
	if _, err := WriteReports(out.Dir); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(out.Dir, ReportFile))
	if !bytes.Contains(md, []byte("**Incomplete: 1 of 2 profiles measured; the suite stopped before the end (or is still running).**")) {
		t.Errorf("report.md of an incomplete suite:\n%s", md)
	}

	// A record of a newer version is refused, naming it and the versions read.
	editFile(t, rec, `"version": 2`, `"version": 3`)
	if _, err := Render(out.Dir); err == nil || !strings.Contains(err.Error(), rec+`: kind "vdbench-curve" version 3 is not a vdbench-curve record of version 1 to 2`) {
		t.Errorf("a newer record: %v", err)
	}
	editFile(t, rec, `"version": 3`, `"version": 2`)

	// A suite that measured nothing (its only record removed) is refused,
	// and its reports are left as they were.
	if err := os.Remove(rec); err != nil {
		t.Fatal(err)
	}
	keep, _ := os.ReadFile(filepath.Join(out.Dir, ReportFile))
	if _, err := WriteReports(out.Dir); err == nil || !strings.Contains(err.Error(), out.Dir+" measured nothing: none of its 2 profile(s) has its results") {
		t.Errorf("a suite that measured nothing: %v", err)
	}
	if md, _ := os.ReadFile(filepath.Join(out.Dir, ReportFile)); !bytes.Equal(md, keep) {
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
