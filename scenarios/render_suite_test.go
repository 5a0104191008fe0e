package scenarios

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/review"
	"vmbench/scenarios/spec"
)

// oneProfileSuite simulates one profile of two 2 s points (the max run
// and 50%, 1 s intervals) on two 8 MiB files: package review's test file,
// whose tests render it too.
var oneProfileSuite = fixtureText(filepath.Join("review", "testdata", "one-profile-suite.yaml"))

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
	rep, err := review.Render(out.Dir)
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
}
