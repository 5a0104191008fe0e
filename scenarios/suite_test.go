package scenarios

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/spec"
	_ "vmbench/vdbench" // registers the suite's tool
	"vmbench/vdbench/blockio"
	"vmbench/workload"
)

// ioengine: is the tool's --ioengine for every profile: a wrong value
// names its line and the valid ones; io_uring runs the profiles through
// it (the records say so), where io_uring can be set up.
func TestSuiteIOEngine(t *testing.T) {
	_, err := spec.ParseSuite("suite.yaml", []byte(goodSuite+"ioengine: libaio\n"))
	if want := `suite.yaml:18: ioengine: "libaio": not an I/O engine (valid: psync, io_uring)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a wrong ioengine: %v\nwant %q", err, want)
	}
	s, err := spec.ParseSuite("suite.yaml", []byte(goodSuite+"ioengine: io_uring\n"))
	if err != nil {
		t.Fatal(err)
	}
	plans, err := s.Configs()
	if err != nil {
		t.Fatal(err)
	}
	if got := workload.RecordedFlags(plans[0].Config)["ioengine"]; got != "io_uring" {
		t.Errorf("profile flags carry ioengine %q, want io_uring (a guest's agent gets them)", got)
	}
	if err := blockio.ProbeURing(); err != nil {
		t.Skipf("running it skipped: %v", err)
	}
	t.Setenv("TMPDIR", t.TempDir()) // the simulated targets
	s, err = spec.ParseSuite("one.yaml", []byte(oneProfileSuite+"ioengine: io_uring\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunSuite(t.Context(), s, Options{Simulate: true, ResultsDir: t.TempDir(), Out: io.Discard, Log: io.Discard, Version: "test-1"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join(out.Dir, "4k-random-read.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rec, []byte("each I/O submitted to an io_uring")) {
		t.Errorf("the record does not say the I/O went through io_uring:\n%.2000s", rec)
	}
	if md := reportBytes(t, out.Dir); !bytes.Contains(md, []byte("I/O engine io_uring (ioengine:)")) {
		t.Errorf("report.md does not name the engine:\n%s", md)
	}
	txt, err := os.ReadFile(filepath.Join(out.Dir, "4k-random-read.txt"))
	if err != nil || !bytes.Contains(txt, []byte("ioengine=io_uring")) {
		t.Errorf("the profile's interval lines do not name the engine (%v):\n%.1500s", err, txt)
	}
}

var goodSuite = specFixture("suite.yaml")
