package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/testdb"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// childArgs, when set in the environment, makes TestCampaignChild run the
// CLI with these arguments (a JSON list) and exit with its status: the
// campaign under test runs in a process of its own, so it can be killed.
const childArgs = "VMBENCH_TEST_CHILD_ARGS"

func TestCampaignChild(t *testing.T) {
	raw := os.Getenv(childArgs)
	if raw == "" {
		t.Skip("runs only as the child process of TestTeardownAfterKill")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	a := &app{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	err := run(context.Background(), a, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vmbench:", err)
	}
	os.Exit(exitCode(err))
}

// killAtPrepare runs `campaign run` with args in a child process and
// SIGKILLs it as soon as it starts to prepare the data: the VMs and
// databases exist, nothing has been removed.
func killAtPrepare(t *testing.T, args ...string) {
	t.Helper()
	killAt(t, "] prepare ", args...)
}

// killAt runs vmbench with args in a child process and SIGKILLs it as
// soon as a line of its log contains marker; it fails the test when the
// child ends before that. It returns the child's log up to the marker.
func killAt(t *testing.T, marker string, args ...string) []string {
	t.Helper()
	return killWhen(t, func(line string) bool { return strings.Contains(line, marker) }, args...)
}

// killWhen runs vmbench with args in a child process, passes each line
// of its log to kill, and SIGKILLs it as soon as kill returns true; it
// fails the test when the child ends before that. It returns the child's
// log up to that line.
func killWhen(t *testing.T, kill func(line string) bool, args ...string) []string {
	t.Helper()
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCampaignChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childArgs+"="+string(b), vsphere.EnvHome+"="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var log []string
	for sc.Scan() {
		log = append(log, sc.Text())
		if kill(sc.Text()) {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // killed: its exit status says so and nothing more
			return log
		}
	}
	_ = cmd.Wait() // it ended early; the log says how
	t.Fatalf("the campaign ended before it was to be killed:\n%s", strings.Join(log, "\n"))
	return nil
}

// manifestNames returns the names the results directory's manifest
// records as created, by kind.
func manifestNames(t *testing.T, dir string) map[rundir.ObjectKind][]string {
	t.Helper()
	left, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[rundir.ObjectKind][]string{}
	for _, e := range left {
		out[e.Kind] = append(out[e.Kind], e.Name)
	}
	return out
}

// kill -9 of a campaign leaves its databases or its SQLite directory;
// its results directory lists them, `campaign teardown DIR` removes
// exactly those, and a second teardown is a no-op.
func TestTeardownAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	t.Run("databases on a MariaDB server", func(t *testing.T) {
		srv := testdb.Shared(t)
		db, err := sql.Open("mysql", srv.DSN(""))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		other := srv.NewDatabase(t) // not the campaign's: must survive
		res := t.TempDir()
		killAtPrepare(t, "campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--results-dir", res,
			"--db-dsn", serverDSN(t, srv))
		dir := resultsDir(t, res)
		names := manifestNames(t, dir)
		if len(names["database"]) != 2 || len(names["vm"]) != 2 {
			t.Fatalf("the manifest lists %v, want 2 databases and 2 VMs", names)
		}
		exists := func(name string) bool {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n == 1
		}
		for _, n := range names["database"] {
			if !exists(n) {
				t.Fatalf("database %s is not there after the kill: nothing to test", n)
			}
		}
		teardownTwice(t, dir)
		for _, n := range names["database"] {
			if exists(n) {
				t.Errorf("database %s is still there after teardown", n)
			}
		}
		if !exists(other) {
			t.Errorf("teardown dropped %s, which the campaign did not create", other)
		}
	})
	t.Run("embedded sqlite", func(t *testing.T) {
		res := t.TempDir()
		killAtPrepare(t, "campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--results-dir", res)
		dir := resultsDir(t, res)
		names := manifestNames(t, dir)
		tmp := append(names["tempdir"], names["simdir"]...)
		if len(tmp) != 2 {
			t.Fatalf("the manifest lists %v, want the SQLite directory and the simulator's", names)
		}
		for _, d := range tmp {
			if _, err := os.Stat(d); err != nil {
				t.Fatalf("%s is not there after the kill: %v", d, err)
			}
		}
		teardownTwice(t, dir)
		for _, d := range tmp {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s is still there after teardown (%v)", d, err)
			}
		}
	})
}

// teardownTwice runs `campaign teardown dir` twice: the first removes
// everything, the second finds nothing left.
func teardownTwice(t *testing.T, dir string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, nil, "campaign", "teardown", dir)
	if code != 0 {
		t.Fatalf("teardown: exit %d\n%s%s", code, stdout, stderr)
	}
	if left := manifestNames(t, dir); len(left) != 0 {
		t.Errorf("after teardown the manifest still lists %v", left)
	}
	code, stdout, stderr = runCLI(t, nil, "campaign", "teardown", dir)
	if code != 0 || !strings.Contains(stderr, "nothing left to remove") || !strings.Contains(stdout, "removed 0 object(s)") {
		t.Errorf("second teardown: exit %d, %q %q; want 0 and nothing left to remove", code, stdout, stderr)
	}
}

func TestTeardownRefusesADirectoryWithoutManifest(t *testing.T) {
	code, _, stderr := runCLI(t, nil, "campaign", "teardown", t.TempDir())
	if code != 2 || !strings.Contains(stderr, rundir.ManifestFile) {
		t.Errorf("exit %d, %q; want 2 naming %s", code, stderr, rundir.ManifestFile)
	}
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	code, _, stderr = runCLI(t, nil, "campaign", "teardown", missing)
	if code != 2 || !strings.Contains(stderr, missing+" is not a directory") {
		t.Errorf("missing dir: exit %d, %q; want 2 saying it is not a directory", code, stderr)
	}
}

// ls and destroy with --simulate would each see a fresh, empty simulator.
func TestVSphereLsDestroyRefuseSimulate(t *testing.T) {
	for _, args := range [][]string{{"vsphere", "ls", "--simulate"}, {"vsphere", "destroy", "--simulate", "--campaign", "x"}} {
		code, _, stderr := runCLI(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "empty") || !strings.Contains(stderr, "--url") {
			t.Errorf("%v: exit %d, %q; want 2 saying why and to give --url", args, code, stderr)
		}
	}
}

// Each vsphere subcommand lists only the flags that apply to it.
func TestVSphereHelpShowsOnlyItsFlags(t *testing.T) {
	for _, tc := range []struct {
		cmd       string
		want, not []string
	}{
		{"provision", []string{"--ds", "--pool", "--folder", "--net", "--template", "--simulate", "--url", "--role"}, nil},
		{"ls", []string{"--url", "--dc", "--campaign"}, []string{"--ds", "--pool", "--folder", "--net", "--template", "--simulate", "--role"}},
		{"destroy", []string{"--url", "--dc", "--campaign"}, []string{"--ds", "--pool", "--folder", "--net", "--template", "--simulate", "--role"}},
	} {
		code, stdout, _ := runCLI(t, nil, "vsphere", tc.cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", tc.cmd, code)
		}
		for _, f := range tc.want {
			if !strings.Contains(stdout, f+" ") {
				t.Errorf("vsphere %s --help lacks %s", tc.cmd, f)
			}
		}
		for _, f := range tc.not {
			if strings.Contains(stdout, f+" ") {
				t.Errorf("vsphere %s --help lists %s, which does not apply", tc.cmd, f)
			}
		}
	}
}

// In simulation without --url there is no placement to choose: --net is
// refused as the other placement flags are, instead of being ignored.
func TestCampaignSimulateRefusesNetWithoutURL(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--net", "VM Network", "--results-dir", dir)
	if code != 2 || !strings.Contains(stderr, "--net need --url") {
		t.Errorf("exit %d, %q; want 2 naming --net", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused campaign created %v", entries)
	}
}
