package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"vmbench/internal/golden"
	"vmbench/internal/testdb"
	"vmbench/scenarios"
	"vmbench/scenarios/review"
	"vmbench/scenarios/spec"
)

// TestReviewFullSimulateSQLite runs scenarios/review-full.yaml with
// --simulate end to end, its sizes scaled down further (2 VMs, 2 s
// measured; one block profile of two short points): every campaign in the
// review directory, review.json, and the review's report with a section
// per campaign.
func TestReviewFullSimulateSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes per warehouse; make test runs the SQLite tests without -race")
	}
	t.Setenv("TMPDIR", t.TempDir()) // the block suite's simulated targets
	rf, err := spec.LoadReview("../../scenarios/review-full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	oltp := map[string]any{"simulate": map[string]any{"vms": map[string]any{"count": 2},
		"workload": map[string]any{"flags": map[string]any{"warmup-time": "1s", "time": "2s", "report-interval": "1s"}}}}
	block := map[string]any{"simulate": map[string]any{"profiles": []string{"4k-random-read"}, "size": "16m", "elapsed": 2, "curve": []int{50}}}
	for i, c := range rf.Campaigns {
		over := oltp
		if strings.HasPrefix(c.File, "vdbench") {
			over = block
		}
		var n yaml.Node
		if err := n.Encode(over); err != nil {
			t.Fatal(err)
		}
		rf.Campaigns[i].Override = n
	}
	res := t.TempDir()
	checked, err := scenarios.CheckReview(t.Context(), rf, scenarios.Options{Simulate: true, ResultsDir: res, Out: io.Discard, Log: io.Discard,
		Getenv: func(string) string { return "" }, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := scenarios.RunReview(t.Context(), checked)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(out.Dir) != res || strings.HasSuffix(out.Dir, ".incomplete") {
		t.Errorf("review directory %s, want a complete one in %s", out.Dir, res)
	}
	var rec review.Outcome
	b, err := os.ReadFile(filepath.Join(out.Dir, review.RecordFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || len(rec.Campaigns) != 6 {
		t.Fatalf("review.json: %v\n%s", err, b)
	}
	for _, c := range rec.Campaigns {
		if c.Error != "" || c.Dir == "" {
			t.Errorf("%s: dir %q, error %q", c.File, c.Dir, c.Error)
		}
	}
	md, err := os.ReadFile(filepath.Join(out.Dir, review.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## sysbench-4vm: oltp_read_write, 2 VMs", "## sysbench-16vm: oltp_read_write, 2 VMs", "## sqlserver-8vm: tpcc, 2 VMs",
		"## Block suite vdbench-suite", "tpmC", "4K random read"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the review's report.md lacks %q", want)
		}
	}
	if strings.Index(string(md), "sysbench-4vm") > strings.Index(string(md), "sqlserver-4vm") {
		t.Error("the review's report does not follow the order the campaigns ran")
	}
	// vmbench report renders the review directory again: a section per
	// campaign, and each VM campaign's harness overhead in one of its own.
	if code, page, stderr := runCLI(t, nil, "report", out.Dir, "--format", "html"); code != 0 || strings.Count(page, "<section") != 6+5 ||
		strings.Count(page, ": harness overhead</h2>") != 5 {
		t.Errorf("report of the review directory: exit %d %s, %d sections, %d of them a harness overhead", code, stderr,
			strings.Count(page, "<section"), strings.Count(page, ": harness overhead</h2>"))
	}
}

func TestReviewRunRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ text, want string }{
		{"kind: review\nname: r\ncampaigns: [{file: nosuch.yaml}]\n", "nosuch.yaml"},
		{"kind: review\nname: r\ncampaigns: [{file: ../../scenarios/sysbench-4vm.yaml, overide: {}}]\n", `unknown key "overide" in a campaigns: entry`},
		{"kind: review\nname: r\non-failure: maybe\ncampaigns: [{file: ../../scenarios/sysbench-4vm.yaml}]\n", `on-failure: "maybe" is not stop or continue`},
		{"name: r\ncampaigns: [{file: ../../scenarios/sysbench-4vm.yaml}]\n", `kind: "", want "review"`},
		{"kind: review\nname: r\ncampaigns: [{file: ../../scenarios/sysbench-4vm.yaml, override: {vms: {cuont: 2}}}]\n", "cuont"},
		// A bad flag in the second campaign: refused before the first runs.
		{"kind: review\nname: r\ncampaigns: [{file: ../../scenarios/sysbench-4vm.yaml}, {file: ../../scenarios/sysbench-8vm.yaml, override: {workload: {flags: {threads: -3}}}}]\n",
			"campaign 2 (" + mustAbs(t, "../../scenarios") + "/sysbench-8vm.yaml)"},
	} {
		f := write("r.yaml", strings.ReplaceAll(c.text, "../../scenarios/", mustAbs(t, "../../scenarios")+"/"))
		res := t.TempDir()
		if code, _, stderr := runCLI(t, nil, "review", "run", f, "--simulate", "--results-dir", res); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", c.text, code, stderr, c.want)
		}
		if left, _ := os.ReadDir(res); len(left) != 0 {
			t.Errorf("%s: a refused review made %v", c.text, left)
		}
	}
	if code, _, stderr := runCLI(t, nil, "review", "run", filepath.Join(dir, "none.yaml")); code != 2 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("missing file: exit %d %q", code, stderr)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReviewRunDBDSN: review run --db-dsn is refused without --simulate
// and with a DSN that is no server's (exit 2, nothing made); with
// --simulate each OLTP campaign's VMs get their databases on that server,
// as campaign run --db-dsn gives them (its campaign.yaml records the
// server).
func TestReviewRunDBDSN(t *testing.T) {
	camp := writeFile(t, "tiny.yaml", tinyCampaign)
	rf := writeFile(t, "r.yaml", "kind: review\nname: r\ncampaigns: [{file: "+camp+"}]\n")
	pw := writeFile(t, "pw", "secret\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--db-dsn", "mysql://root@127.0.0.1:3306/"}, "--db-dsn: only with --simulate"},
		{[]string{"--simulate", "--db-dsn", "sqlite:///tmp/x.db"}, "--db-dsn"},
		{[]string{"--simulate", "--db-password-file", pw}, "--db-password-file: only with --db-dsn"},
	} {
		res := t.TempDir()
		if code, _, stderr := runCLI(t, nil, append([]string{"review", "run", rf, "--results-dir", res}, c.args...)...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
		if left, _ := os.ReadDir(res); len(left) != 0 {
			t.Errorf("%q: a refused review made %v", c.args, left)
		}
	}
	if testing.Short() {
		t.Skip("runs a campaign on a MariaDB server")
	}
	srv := testdb.Shared(t)
	res := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "review", "run", rf, "--simulate", "--results-dir", res, "--db-dsn", serverDSN(t, srv)); code != 0 {
		t.Fatalf("review run --db-dsn: exit %d\n%s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(resultsDir(t, res), "tiny-*"))
	if len(dirs) != 1 {
		t.Fatalf("the review directory holds %v, want one tiny-* results directory", dirs)
	}
	spec, err := os.ReadFile(filepath.Join(dirs[0], "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%s:%d", srv.Host(), srv.Port()); !strings.Contains(string(spec), want) {
		t.Errorf("the campaign's campaign.yaml does not name the --db-dsn server %s:\n%s", want, spec)
	}
}
