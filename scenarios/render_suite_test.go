package scenarios

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/report"
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
	s, err := ParseSuite("one.yaml", []byte(oneProfileSuite))
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
