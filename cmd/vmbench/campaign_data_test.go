package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/scenarios/rundir"
)

// TestCampaignPrebuiltData: with data: {source: prebuilt} a run without
// its data set exits 2 and creates nothing; prepare-data makes it once
// (a second call keeps it); the run then restores and checks it in every
// VM instead of loading and says so in the review; a data set of another
// shape is refused, naming the difference. On SQLite, on MariaDB and on
// PostgreSQL (each VM's database made with CREATE DATABASE ... TEMPLATE).
func TestCampaignPrebuiltData(t *testing.T) {
	t.Parallel()
	eachCampaignDatabase(t, func(t *testing.T, dsn string) {
		dataDir, res := t.TempDir(), t.TempDir()
		campaign := tinyCampaign + "data: {source: prebuilt, dir: " + dataDir + "}\n"
		file := writeFile(t, "tiny.yaml", campaign)
		run := func(file string) (int, string, string) {
			return runCLI(t, nil, append([]string{"campaign", "run", file, "--simulate", "--results-dir", res}, dsnArgs(dsn)...)...)
		}
		code, _, stderr := run(file)
		if code != 2 || !strings.Contains(stderr, "no pre-built data set for sysbench") || !strings.Contains(stderr, "vmbench campaign prepare-data") {
			t.Fatalf("run before prepare-data: exit %d\n%s", code, stderr)
		}
		if left, _ := os.ReadDir(res); len(left) != 0 {
			t.Fatalf("a refused run left %v in %s", left, res)
		}

		prepare := append([]string{"campaign", "prepare-data", file, "--simulate"}, dsnArgs(dsn)...)
		code, stdout, stderr := runCLI(t, nil, prepare...)
		id := strings.TrimSpace(stdout)
		if code != 0 || !strings.HasPrefix(id, "sysbench-") || !strings.Contains(stderr, "sbtest2: want 500 rows, ids 1..500: ok") {
			t.Fatalf("prepare-data: exit %d, id %q\n%s", code, id, stderr)
		}
		if dsn != "" {
			t.Cleanup(func() {
				cfg, _ := dialect.ParseDSN(dsn)
				_ = dialect.DropDatabase(context.Background(), cfg.WithDatabase("vmbench_data_"+strings.ReplaceAll(id, "-", "_")))
			})
		} else if _, err := os.Stat(filepath.Join(dataDir, id+".db")); err != nil {
			t.Fatalf("no SQLite data set file: %v", err)
		}
		// The vSphere half: the loader VM's data disk saved to both
		// simulated datastores, kept for later simulators, the loader gone.
		for _, ds := range []string{"LocalDS_0", "LocalDS_1"} {
			if !strings.Contains(stderr, "db-test saved to ["+ds+"] vmbench-data/"+id+".vmdk") {
				t.Errorf("prepare-data did not save the vDisk to %s:\n%s", ds, stderr)
			}
			for _, f := range []string{id + ".vmdk", id + ".json"} {
				if _, err := os.Stat(filepath.Join(dataDir, "simulated", ds, f)); err != nil {
					t.Errorf("kept for later simulators: %v", err)
				}
			}
		}
		if !strings.Contains(stderr, "destroyed 1 VM") {
			t.Errorf("the loader VM was not destroyed:\n%s", stderr)
		}
		if work, _ := filepath.Glob(filepath.Join(dataDir, "data-*")); len(work) != 0 {
			t.Errorf("prepare-data left its work directory: %v", work)
		}
		if code, _, stderr := runCLI(t, nil, prepare...); code != 0 || !strings.Contains(stderr, "exists already") {
			t.Fatalf("prepare-data again: exit %d\n%s", code, stderr)
		}

		code, _, stderr = run(file)
		if code != 0 || !strings.Contains(stderr, "restore "+id+" into 2 VMs") || strings.Contains(stderr, "Creating 2 table(s)") ||
			strings.Count(stderr, "sbtest2: want 500 rows, ids 1..500: ok") != 2 {
			t.Fatalf("run with the data set: exit %d\n%s", code, stderr)
		}
		for _, vm := range []string{"sysbench-01", "sysbench-02"} {
			if !strings.Contains(stderr, vm+": db-test restored from [LocalDS_") {
				t.Errorf("%s's vDisk was not restored before it powered on:\n%s", vm, stderr)
			}
		}
		if m := mergedResult(t, res, "tiny"); m.Parts != 2 || m.Ops[0].Latency.Count == 0 {
			t.Errorf("merged: %d parts, %d transactions", m.Parts, m.Ops[0].Latency.Count)
		}
		dirs, _ := filepath.Glob(filepath.Join(res, "tiny-*"))
		md, _ := os.ReadFile(filepath.Join(dirs[0], "report.md"))
		if !strings.Contains(string(md), "pre-built data set "+id) {
			t.Errorf("report.md does not say the data was restored:\n%s", md)
		}

		// The data gone, its key file left: the run refuses before it
		// creates anything, prepare-data makes it again.
		if dsn == "" {
			if err := os.Remove(filepath.Join(dataDir, id+".db")); err != nil {
				t.Fatal(err)
			}
		} else {
			cfg, _ := dialect.ParseDSN(dsn)
			if err := dialect.DropDatabase(context.Background(), cfg.WithDatabase("vmbench_data_"+strings.ReplaceAll(id, "-", "_"))); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := os.ReadDir(res)
		if code, _, stderr := run(file); code != 2 || !strings.Contains(stderr, "data set "+id+": its data") {
			t.Fatalf("run with the data gone: exit %d\n%s", code, stderr)
		}
		if after, _ := os.ReadDir(res); len(after) != len(before) {
			t.Errorf("a refused run left a results directory: %v", after)
		}
		if code, _, stderr := runCLI(t, nil, prepare...); code != 0 || !strings.Contains(stderr, "making it again") || !strings.Contains(stderr, "ready") {
			t.Fatalf("prepare-data with the data gone: exit %d\n%s", code, stderr)
		}

		if dsn == "" { // the vSphere half is the same whatever the database
			datastoresLackingTheDataSet(t, file, dataDir, id, res, run, prepare)
		}
		// Damaged data fails the checks: made again; --force makes it again.
		if dsn == "" {
			if err := os.Truncate(filepath.Join(dataDir, id+".db"), 4096); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := runCLI(t, nil, prepare...); code != 0 || !strings.Contains(stderr, "its data fails the checks") || !strings.Contains(stderr, "ready") {
				t.Fatalf("prepare-data with damaged data: exit %d\n%s", code, stderr)
			}
		}
		if code, _, stderr := runCLI(t, nil, append(prepare, "--force")...); code != 0 || !strings.Contains(stderr, "--force: making it again") || !strings.Contains(stderr, "ready") {
			t.Fatalf("prepare-data --force: exit %d\n%s", code, stderr)
		}

		other := writeFile(t, "other.yaml", strings.Replace(campaign, "table-size: 500", "table-size: 600", 1))
		code, _, stderr = run(other)
		if code != 2 || !strings.Contains(stderr, `table-size "500" (wanted "600")`) || !strings.Contains(stderr, "refused, not used") {
			t.Fatalf("run with another table size: exit %d\n%s", code, stderr)
		}
	})
}

// TestPrepareDataAfterKill: a prepare-data killed (SIGKILL) while it
// loads leaves its work directory in data.dir, listing what it made; the
// next prepare-data removes those (the simulator's directory here) and
// the directory, then makes the data set.
func TestPrepareDataAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts prepare-data in a child process")
	}
	dataDir := t.TempDir()
	file := writeFile(t, "tiny.yaml", tinyCampaign+"data: {source: prebuilt, dir: "+dataDir+"}\n")
	killAt(t, "loading data set", "campaign", "prepare-data", file, "--simulate")
	work, _ := filepath.Glob(filepath.Join(dataDir, "data-*"))
	if len(work) != 1 {
		t.Fatalf("the killed prepare-data left %v, want its work directory", work)
	}
	left := manifestNames(t, work[0])
	if len(left[rundir.KindSimDir]) != 1 {
		t.Fatalf("the work directory lists %v, want the simulator's directory", left)
	}
	code, stdout, stderr := runCLI(t, nil, "campaign", "prepare-data", file, "--simulate")
	if code != 0 || !strings.Contains(stderr, "a stopped prepare-data left "+work[0]) || !strings.HasPrefix(stdout, "sysbench-") {
		t.Fatalf("prepare-data after the kill: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(work[0]); !os.IsNotExist(err) {
		t.Errorf("the stale work directory is still there (%v)", err)
	}
	for _, name := range left[rundir.KindSimDir] {
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("%s, made by the killed prepare-data, is still there", name)
		}
	}
}

// datastoresLackingTheDataSet: the plan counts the copy a restore makes
// beside the data disk; a datastore without the data set (its directory,
// or its vDisk alone) refuses the run and the plan before anything is
// created, and prepare-data puts it back.
func datastoresLackingTheDataSet(t *testing.T, file, dataDir, id, res string, run func(string) (int, string, string), prepare []string) {
	t.Helper()
	before, _ := os.ReadDir(res)
	// The plan counts the copy a restore makes beside the data disk.
	if code, stdout, stderr := runCLI(t, nil, "campaign", "plan", file, "--simulate"); code != 0 ||
		!strings.Contains(stdout, "restore copy (GB)") || !strings.Contains(stdout, "the copy a restore of the data disk makes") {
		t.Fatalf("plan: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A datastore without the data set's vDisk: refused before
	// anything is created (the plan says so too); prepare-data puts it back.
	if err := os.RemoveAll(filepath.Join(dataDir, "simulated", "LocalDS_1")); err != nil {
		t.Fatal(err)
	}
	// Exit 1, as a preflight that finds the campaign does not fit.
	if code, _, stderr := run(file); code != 1 || !strings.Contains(stderr, "is not on datastore(s) LocalDS_1: no <id>.json and .vmdk in "+filepath.Join(dataDir, "simulated", "LocalDS_1")) ||
		!strings.Contains(stderr, "put it there with: vmbench campaign prepare-data "+file+" --simulate") {
		t.Fatalf("run with a datastore lacking the data set: exit %d\n%s", code, stderr)
	}
	if after, _ := os.ReadDir(res); len(after) != len(before) {
		t.Errorf("a refused run left a results directory: %v", after)
	}
	if code, stdout, _ := runCLI(t, nil, "campaign", "plan", file, "--simulate"); code != 1 ||
		!strings.Contains(stdout, "is not on datastore(s) LocalDS_1") {
		t.Fatalf("plan with a datastore lacking the data set: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI(t, nil, prepare...); code != 0 || !strings.Contains(stderr, "data set "+id+" copied from LocalDS_0 to LocalDS_1") || !strings.Contains(stderr, "kept") {
		t.Fatalf("prepare-data with a datastore lacking it: exit %d\n%s", code, stderr)
	}
	// Its vDisk alone gone: the same.
	if err := os.Remove(filepath.Join(dataDir, "simulated", "LocalDS_1", id+".vmdk")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(file); code != 1 || !strings.Contains(stderr, "is not on datastore(s) LocalDS_1") {
		t.Fatalf("run with a datastore lacking the vDisk: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, nil, prepare...); code != 0 || !strings.Contains(stderr, "copied from LocalDS_0 to LocalDS_1") {
		t.Fatalf("prepare-data with a datastore lacking the vDisk: exit %d\n%s", code, stderr)
	}
}
