// Package golden holds what the packages' golden-file tests share: the
// -update flag, the compare-or-rewrite helper, and whether the test binary
// runs under the race detector. Only tests import it; it imports nothing
// from vmbench.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// Update is the -update flag of every golden-file test: go test ./PKG/
// -run NAME -update rewrites the golden files the test checks.
var Update = flag.Bool("update", false, "rewrite golden files")

// Check compares got with the golden file at path, or, with -update,
// writes got there (creating its directory).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// RaceEnabled reports whether the test binary was built with -race.
func RaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// SkipUnderRace skips t when the test binary runs under the race
// detector, saying why. Such a test's name must contain "NoRace" (or
// "SQLite"): make test's second step runs those names without -race.
// For tests whose cost under -race is out of proportion and whose
// concurrent code other tests cover with -race.
func SkipUnderRace(t testing.TB, why string) {
	t.Helper()
	if RaceEnabled() {
		t.Skipf("%s; make test runs it without -race (go test -run 'SQLite|NoRace')", why)
	}
}

// AddSeedFiles adds every file matching pattern (filepath.Glob, relative
// to the package) to f's seed corpus, and fails when none matches: a fuzz
// test seeded from the project's own inputs (campaign files, vdbench
// profiles) must not quietly lose them.
func AddSeedFiles(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files match %s: %v", pattern, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}
