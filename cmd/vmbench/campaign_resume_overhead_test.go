//go:build linux

package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/testdb"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
)

// readRunInfo reads a results directory's run.json.
func readRunInfo(t *testing.T, dir string) *rundir.RunInfo {
	t.Helper()
	var ri rundir.RunInfo
	b, err := os.ReadFile(filepath.Join(dir, rundir.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ri); err != nil {
		t.Fatalf("%s: %v", rundir.RunFile, err)
	}
	return &ri
}

// processWall is the wall time process n (1-based) of a resumed
// campaign's record spent in step, with whether it recorded it.
func processWall(o *rundir.Overhead, n int, step rundir.Step) (float64, bool) {
	var d float64
	found := false
	for _, s := range o.Steps {
		if s.Process == n && s.Step == step {
			d += s.Wall.Seconds()
			found = true
		}
	}
	return d, found
}

// holdDatabase opens a transaction that reads a table of database db on
// srv and keeps it open: its metadata lock makes a DROP DATABASE wait
// until release is called.
func holdDatabase(t *testing.T, srv *testdb.Server, db string) (release func()) {
	t.Helper()
	pool, err := sql.Open("mysql", srv.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return func() {
		_ = tx.Rollback()
		pool.Close()
	}
}

// A campaign killed (SIGKILL) after it rendered its review and before its
// teardown (which writes its reports) resumes into a report that keeps the consistency checks'
// line and an overhead table of both processes: the killed one's
// provisioning and measured window, and the resume's own steps. The
// campaign's teardown is held at its first step (dropping the VMs'
// databases on the test's MariaDB, which waits for a transaction the test
// keeps open on one of them), so that the kill comes before it whatever
// the machine's load.
func TestResumeAfterKillBeforeTeardownKeepsTheReport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	srv := testdb.Shared(t)
	sim := startSimulator(t, 2)
	res := t.TempDir()
	release := func() {}
	defer func() { release() }()
	killWhen(t, func(line string) bool {
		if strings.Contains(line, "] run ") { // the databases are made and loaded
			dbs := manifestNames(t, resultsDir(t, res))[rundir.KindDatabase]
			if len(dbs) == 0 {
				t.Fatalf("the campaign runs and its manifest lists no database")
			}
			release = holdDatabase(t, srv, dbs[0])
		}
		return strings.Contains(line, "VM results and merged.json")
	}, append(vcsimCampaign(t, sim, res), "--db-dsn", serverDSN(t, srv))...)
	release()
	dir := resultsDir(t, res)
	if !strings.HasSuffix(dir, ".incomplete") || len(manifestNames(t, dir)[rundir.KindVM]) != 2 {
		t.Fatalf("the kill did not come before the teardown: %s, manifest %v", dir, manifestNames(t, dir))
	}

	code, stdout, stderr := runCLI(t, nil, "campaign", "resume", dir, "--url", sim.Config().URL, "-k")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	final := strings.TrimSuffix(dir, ".incomplete")
	md, err := os.ReadFile(filepath.Join(final, review.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Checks: consistency checks after the run passed on 2 of 2 VMs.",
		"| process 1: campaign run, stopped after its ", "| process 2: campaign resume |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	o := readRunInfo(t, final).Overhead
	if o == nil || !o.Completed || len(o.Processes) != 2 {
		t.Fatalf("run.json's overhead: %+v", o)
	}
	t.Logf("overhead after the resume: %s outside a window of %s, of %s (the killed process %s, the resume %s)",
		o.Harness(), o.Workload(), o.Total, o.Processes[0].Total, o.Processes[1].Total)
	if d, ok := processWall(o, 1, rundir.StepProvision); !ok || d <= 0 {
		t.Errorf("the killed process's provisioning is not in the record (%v, %.3f s): %+v", ok, d, o.Steps)
	}
	if d, _ := processWall(o, 1, rundir.StepMeasure); d <= 0 || o.Workload().Seconds() < d {
		t.Errorf("the killed process's measured window is not in the record (measure %.3f s, window %s): %+v", d, o.Workload(), o.Steps)
	}
	if _, ok := processWall(o, 2, rundir.StepTeardown); !ok {
		t.Errorf("the resume's teardown is not in the record: %+v", o.Steps)
	}
	if o.Total <= o.Workload() || o.Total != o.Processes[0].Total+o.Processes[1].Total {
		t.Errorf("total %s: the processes' %s + %s, the window %s", o.Total, o.Processes[0].Total, o.Processes[1].Total, o.Workload())
	}
}
