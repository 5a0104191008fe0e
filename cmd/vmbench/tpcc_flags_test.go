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
