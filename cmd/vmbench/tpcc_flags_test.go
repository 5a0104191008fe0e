package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vmbench/internal/golden"
)

// tpccFlagSet is one set of options a user writes once for prepare, run,
// check and cleanup, as with go-tpc and sysbench.
var tpccFlagSet = []string{"--warehouses", "1", "--seed", "7", "--terminals", "10", "--conns", "2", "--wait-scale", "0",
	"--time", "2", "--warmup-time", "1", "--report-interval", "1", "--retries", "5"}

// TestTPCCSubcommandFlags: each subcommand's help lists only the options
// it uses and says that it accepts the others; each accepts the whole
// set of options (before: "--warehouses: not an option of vmbench tpcc
// check", exit 2) and ignores the ones it does not use.
func TestTPCCSubcommandFlags(t *testing.T) {
	runOnly := []string{"--terminals", "--conns", "--wait-scale", "--wait ", "--time", "--warmup-time", "--report-interval", "--events", "--retries"}
	for _, tc := range []struct {
		sub       string
		want, not []string
	}{
		{"prepare", []string{"--warehouses", "--seed", "--threads", "--host", "--sqlite-path"}, runOnly},
		{"run", append([]string{"--warehouses", "--seed", "--threads", "--host"}, runOnly...), nil},
		{"check", []string{"--warehouses", "--host", "--db-driver", "--sqlite-path"}, append([]string{"--seed", "--threads"}, runOnly...)},
		{"cleanup", []string{"--host", "--db-driver", "--sqlite-path"}, append([]string{"--warehouses", "--seed", "--threads"}, runOnly...)},
	} {
		code, stdout, stderr := runCLI(t, nil, "tpcc", tc.sub, "--help")
		if code != 0 {
			t.Fatalf("tpcc %s --help: exit %d\n%s", tc.sub, code, stderr)
		}
		flags := stdout[strings.Index(stdout, "Flags:"):]
		for _, f := range tc.want {
			if !strings.Contains(flags, f) {
				t.Errorf("tpcc %s --help lacks %s:\n%s", tc.sub, f, flags)
			}
		}
		for _, f := range tc.not {
			if strings.Contains(flags, f) {
				t.Errorf("tpcc %s --help lists %s, which it does not use:\n%s", tc.sub, f, flags)
			}
		}
		if says := strings.Contains(stdout, "also accepts, and ignores, the options of the other tpcc commands"); says != (tc.not != nil) {
			t.Errorf("tpcc %s --help says it accepts the other options: %v, want %v", tc.sub, says, tc.not != nil)
		}
	}
	// On a file that does not exist: check fails as it does without the
	// options (nothing to check), cleanup finds nothing to drop, and
	// neither creates the file.
	db := filepath.Join(t.TempDir(), "tpcc.db")
	sqlite := []string{"--db-driver", "sqlite", "--sqlite-path", db}
	for _, tc := range []struct {
		sub  string
		code int
		want string
	}{
		{"check", 1, "no complete TPC-C load"},
		{"cleanup", 0, "does not exist; nothing to drop"},
	} {
		code, stdout, stderr := runCLI(t, nil, append(append([]string{"tpcc", tc.sub}, tpccFlagSet...), sqlite...)...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) || strings.Contains(stderr, "not an option") {
			t.Errorf("tpcc %s with every option: exit %d\n%s%s; want %d and %q", tc.sub, code, stdout, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("tpcc %s created %s", tc.sub, db)
		}
	}
	// prepare takes them too: it gets as far as connecting (a port where
	// no server listens), not a usage error.
	code, _, stderr := runCLI(t, nil, append(append([]string{"tpcc", "prepare"}, tpccFlagSet...), "--host", "127.0.0.1", "--port", "1")...)
	if code == 2 || strings.Contains(stderr, "not an option") || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Errorf("tpcc prepare with every option: exit %d, %s; want it to try to connect", code, stderr)
	}
	// A set of options that is wrong is wrong for every command.
	code, _, stderr = runCLI(t, nil, append(append([]string{"tpcc", "cleanup"}, tpccFlagSet...), append(sqlite, "--threads", "4")...)...)
	if code != 2 || !strings.Contains(stderr, "--threads") {
		t.Errorf("tpcc cleanup --threads 4 --terminals 10: exit %d, %s; want 2 naming --threads", code, stderr)
	}
}

// TestTPCCThreadsHelpPerSubcommand: --threads is described as what it is
// in each subcommand: in run, go-tpc's shortcut whose default 0 is
// terminal mode; in prepare, the loaders with their default 4.
func TestTPCCThreadsHelpPerSubcommand(t *testing.T) {
	for _, tc := range []struct {
		sub       string
		want, not []string
	}{
		{"run", []string{"default 0 = terminal mode", "keying and think times"}, []string{"(default 4)", "loaded in parallel"}},
		{"prepare", []string{"warehouses loaded in parallel (default 4)"}, []string{"terminal", "closed loop"}},
	} {
		code, stdout, stderr := runCLI(t, nil, "tpcc", tc.sub, "--help")
		if code != 0 {
			t.Fatalf("tpcc %s --help: exit %d\n%s", tc.sub, code, stderr)
		}
		var line string
		for _, l := range strings.Split(stdout, "\n") {
			if strings.Contains(l, "--threads int") {
				line = l
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("tpcc %s --help: --threads %q lacks %q", tc.sub, line, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(line, n) {
				t.Errorf("tpcc %s --help: --threads %q says %q", tc.sub, line, n)
			}
		}
	}
	if code, stdout, _ := runCLI(t, nil, "tpcc", "run", "--help"); code != 0 || !strings.HasPrefix(stdout, "Without --threads the run is terminal mode") {
		t.Errorf("tpcc run --help does not start with the default mode:\n%s", stdout)
	}
}

// TestTPCCOneFlagSetSQLite: one set of options serves prepare, run, check
// and cleanup; check also verifies --warehouses against the load, and a
// mismatch is a failed check (exit 1) naming both numbers, before any
// condition is checked.
func TestTPCCOneFlagSetSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes per warehouse; make test runs the SQLite tests without -race")
	}
	flags := append(slices.Clone(tpccFlagSet), "--db-driver", "sqlite", "--sqlite-path", filepath.Join(t.TempDir(), "tpcc.db"))
	cmd := func(sub string, extra ...string) (int, string, string) {
		return runCLI(t, nil, append(append([]string{"tpcc", sub}, flags...), extra...)...)
	}
	if code, _, stderr := cmd("prepare"); code != 0 || !strings.Contains(stderr, "Loaded 1 warehouse: ") {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := cmd("run"); code != 0 || !strings.Contains(stdout, "tpmC: ") {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := cmd("check")
	if code != 0 || !strings.Contains(stdout, "--warehouses = warehouses loaded") || !strings.Contains(stdout, "3.3.2.12") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = cmd("check", "--warehouses", "2")
	if code != 1 || !strings.Contains(stdout, "FAIL  --warehouses 2, the database holds 1 warehouse") ||
		!strings.Contains(stderr, "--warehouses 2, but") || strings.Contains(stdout, "3.3.2.1 ") {
		t.Errorf("check --warehouses 2 on a load of 1: exit %d\n%s%s; want 1, a failed check naming 2 and 1, no condition checked", code, stdout, stderr)
	}
	if code, stdout, _ := cmd("cleanup"); code != 0 || !strings.Contains(stdout, "Dropped 11 table(s)") {
		t.Errorf("cleanup: exit %d\n%s", code, stdout)
	}
}
