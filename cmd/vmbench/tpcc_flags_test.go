package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTPCCSubcommandFlags: each subcommand's help lists only the options
// it uses, and an option of another subcommand is refused with exit 2.
func TestTPCCSubcommandFlags(t *testing.T) {
	runOnly := []string{"--terminals", "--conns", "--wait-scale", "--wait ", "--time", "--warmup-time", "--report-interval", "--events", "--retries"}
	for _, tc := range []struct {
		sub       string
		want, not []string
	}{
		{"prepare", []string{"--warehouses", "--seed", "--threads", "--host", "--sqlite-path"}, runOnly},
		{"run", append([]string{"--warehouses", "--seed", "--threads", "--host"}, runOnly...), nil},
		{"check", []string{"--host", "--db-driver", "--sqlite-path"}, append([]string{"--warehouses", "--seed", "--threads"}, runOnly...)},
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
	}
	// On a file that does not exist: a refusal must not get as far as
	// creating it.
	db := filepath.Join(t.TempDir(), "tpcc.db")
	for _, args := range [][]string{{"prepare", "--time", "5"}, {"check", "--warehouses", "2"}, {"cleanup", "--wait-scale", "0"}} {
		code, _, stderr := runCLI(t, nil, append([]string{"tpcc"}, append(args, "--db-driver", "sqlite", "--sqlite-path", db)...)...)
		want := args[1] + ": not an option of vmbench tpcc " + args[0]
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("tpcc %v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("tpcc %v created %s", args, db)
		}
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
