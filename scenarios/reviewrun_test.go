package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/scenarios/review"
	"vmbench/scenarios/spec"
)

// runStubReview runs a review of the stub campaigns stub-a, stub-b and
// stub-c (a.yaml, b.yaml, c.yaml; on-failure: continue) in simulation,
// cancelling ctx (Ctrl-C) once every VM of the campaign d.blockCampaign
// names is running. It returns the review directory, its review.json as
// read back and its report.md.
func runStubReview(t *testing.T, d *stubDriver) (string, *review.Outcome, string) {
	t.Helper()
	sim := startSim(t)
	src := t.TempDir()
	file := "kind: review\nname: rv\non-failure: continue\ncampaigns:\n"
	for _, n := range []string{"a", "b", "c"} {
		text := strings.Replace(stubSpec, "name: stub-campaign", "name: stub-"+n, 1)
		if err := os.WriteFile(filepath.Join(src, n+".yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		file += "  - file: " + n + ".yaml\n"
	}
	if err := os.WriteFile(filepath.Join(src, "r.yaml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	rf, err := spec.LoadReview(filepath.Join(src, "r.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d.vms = 3 // stubSpec's simulate count
	stubNow.Store(d)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		<-d.blockRun
		cancel()
	}()
	var log bytes.Buffer
	checked, err := CheckReview(ctx, rf, Options{Simulate: true, VSphere: sim.Config(), ResultsDir: t.TempDir(),
		Out: io.Discard, Log: &log, Getenv: func(string) string { return "" }, StartDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunReview(ctx, checked)
	t.Log(log.String())
	if !errors.Is(err, context.Canceled) || out == nil {
		t.Fatalf("RunReview: %v, want context.Canceled (exit 130) and the review's outcome", err)
	}
	b, err := os.ReadFile(filepath.Join(out.Dir, review.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec review.Outcome
	if err := json.Unmarshal(b, &rec); err != nil || len(rec.Campaigns) != 3 {
		t.Fatalf("review.json: %v\n%s", err, b)
	}
	md, err := os.ReadFile(filepath.Join(out.Dir, review.ReportFile))
	if err != nil {
		t.Fatalf("the review's report: %v\n%s", err, log.String())
	}
	return out.Dir, &rec, string(md)
}

// TestReviewInterruptedKeepsWhatItMeasured: Ctrl-C in the second
// campaign's measure phase of an on-failure: continue review. review.json
// records that campaign's .incomplete directory and that it was
// interrupted, the third as not run because of the interrupt (not
// on-failure: stop), and the review's report (as review run and 'vmbench
// report' write it) shows what the second measured, incomplete.
func TestReviewInterruptedKeepsWhatItMeasured(t *testing.T) {
	dir, rec, md := runStubReview(t, &stubDriver{blockRun: make(chan struct{}), inMeasure: true, blockCampaign: "stub-b"})
	a, b, c := rec.Campaigns[0], rec.Campaigns[1], rec.Campaigns[2]
	if a.Error != "" || a.Dir == "" || strings.HasSuffix(a.Dir, ".incomplete") {
		t.Errorf("a.yaml: %+v, want completed", a)
	}
	if !b.Interrupted || !strings.HasPrefix(b.Error, "interrupted (Ctrl-C): ") || !strings.HasSuffix(b.Dir, ".incomplete") {
		t.Errorf("b.yaml: %+v, want interrupted with its .incomplete directory", b)
	}
	if vms, _ := filepath.Glob(filepath.Join(dir, b.Dir, "vms", "*.json")); len(vms) != 3 {
		t.Errorf("b.yaml's directory holds %d VM Results, want 3", len(vms))
	}
	if !c.NotRun || !rec.Interrupted {
		t.Errorf("c.yaml: %+v, review interrupted %v; want not run, interrupted", c, rec.Interrupted)
	}
	check := func(md string) {
		t.Helper()
		for _, want := range []string{"Campaign c.yaml did not run: the review was interrupted (Ctrl-C) during b.yaml.",
			"Campaign b.yaml was interrupted (Ctrl-C); its section shows what it measured until then, incomplete: campaign stub-b: ",
			"## stub-a", "## stub-b", "stub-b: Incomplete: the campaign stopped before it merged its results; 3 of 3 VMs' results, 3 interrupted"} {
			if !strings.Contains(md, want) {
				t.Errorf("the review's report.md lacks %q:\n%s", want, md)
			}
		}
		if strings.Contains(md, "on-failure is stop") {
			t.Errorf("the review's report.md blames on-failure: stop:\n%s", md)
		}
	}
	check(md)
	// vmbench report DIR writes it again the same.
	if err := os.Remove(filepath.Join(dir, review.ReportFile)); err != nil {
		t.Fatal(err)
	}
	if err := review.WriteReviewReports(dir); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, review.ReportFile))
	if err != nil || string(again) != md {
		t.Errorf("report of the review directory again: %v\n%s", err, again)
	}
}

// TestReviewInterruptedInItsFirstCampaign: Ctrl-C in the first campaign
// before it measured anything (its directory removed) leaves a review
// directory whose report says the review was interrupted and that no
// campaign measured anything, never that it is not a results directory.
func TestReviewInterruptedInItsFirstCampaign(t *testing.T) {
	dir, rec, md := runStubReview(t, &stubDriver{blockRun: make(chan struct{}), blockCampaign: "stub-a"})
	if !strings.HasSuffix(dir, ".incomplete") || !rec.Campaigns[0].Interrupted || rec.Campaigns[0].Dir != "" ||
		!rec.Campaigns[1].NotRun || !rec.Campaigns[2].NotRun {
		t.Errorf("review %s: %+v", dir, rec)
	}
	for _, want := range []string{"Campaign a.yaml was interrupted (Ctrl-C) before it measured anything: campaign stub-a: ",
		"Campaign b.yaml did not run: the review was interrupted (Ctrl-C) during a.yaml.",
		"No campaign of the review measured anything"} {
		if !strings.Contains(md, want) {
			t.Errorf("the review's report.md lacks %q:\n%s", want, md)
		}
	}
	if err := review.WriteReviewReports(dir); err != nil {
		t.Errorf("report of the review directory: %v", err)
	}
}

// TestReviewOverrideErrorsNameTheirLines: an error in a campaign's
// override names the review file and the override's own line, at load
// (an unknown key) and at the check (a bad flag); an error in the
// campaign file itself names that file's line.
func TestReviewOverrideErrorsNameTheirLines(t *testing.T) {
	dir := t.TempDir()
	camp, err := os.ReadFile("sysbench-4vm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("c.yaml", string(camp))
	review := write("r.yaml", "kind: review\nname: r\ncampaigns:\n  - file: c.yaml\n    override:\n      vms:\n        cuont: 2\n")
	if _, err := spec.LoadReview(review); err == nil || !strings.Contains(err.Error(), review+":7 (the override)") || !strings.Contains(err.Error(), `"cuont"`) {
		t.Errorf("unknown key in an override: %v, want %s:7", err, review)
	}
	review = write("r.yaml", "kind: review\nname: r\ncampaigns:\n  - file: c.yaml\n    override:\n      simulate:\n        workload:\n          flags:\n            threads: -3\n")
	rf, err := spec.LoadReview(review)
	if err != nil {
		t.Fatal(err)
	}
	_, err = CheckReview(t.Context(), rf, Options{Simulate: true, Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), review+":9 (the override)") {
		t.Errorf("bad flag in an override: %v, want %s:9", err, review)
	}
	bad := strings.Replace(string(camp), "  count: 4\n", "  count: 4\n  cuont: 4\n", 1)
	c := write("c.yaml", bad)
	line := strings.Count(bad[:strings.Index(bad, "  cuont")], "\n") + 1
	if _, err := spec.LoadReview(review); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d", c, line)) {
		t.Errorf("unknown key in the campaign file: %v, want %s:%d", err, c, line)
	}
}
