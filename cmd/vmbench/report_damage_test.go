package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory that is damaged or cannot take the reports: exit 2, naming
// the file and what is wrong, and the reports left as they are; --format
// prints without writing.
func TestReportRefusesDamageAndUnwritableDirectory(t *testing.T) {
	res := t.TempDir()
	if code, _, stderr := runCLI(t, nil, "campaign", "run", writeFile(t, "tiny.yaml", tinyCampaign), "--simulate", "--results-dir", res); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dir := resultsDir(t, res)
	md, csv := filepath.Join(dir, "report.md"), filepath.Join(dir, "report.csv")
	wantCSV, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}

	// report.md taken by a directory: no report is written.
	if err := os.Remove(md); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(md, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, nil, "report", dir)
	if want := "cannot write the reports: " + md + " is not a regular file"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("report.md a directory: exit %d, want 2 and %q:\n%s", code, want, stderr)
	}
	if b, _ := os.ReadFile(csv); string(b) != "old\n" {
		t.Errorf("report.csv was rewritten though report.md could not be:\n%s", b)
	}
	if code, out, stderr := runCLI(t, nil, "report", dir, "--format", "csv"); code != 0 || out != string(wantCSV) {
		t.Errorf("--format csv where the reports cannot be written: exit %d %s\n%s", code, stderr, out)
	}
	if err := os.Remove(md); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "report", dir); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}

	// A read-only directory (root writes anyway).
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		code, _, stderr = runCLI(t, nil, "report", dir)
		if want := "cannot write the reports into " + dir + ": it is not writable"; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("read-only: exit %d, want 2 and %q:\n%s", code, want, stderr)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// A VM's result removed from a complete directory.
	keep, _ := os.ReadFile(md)
	if err := os.Remove(filepath.Join(dir, "vms", "sysbench-02.json")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, nil, "report", dir)
	if want := filepath.Join(dir, "merged.json") + ": merges 2 run(s), but vms/ holds 1 VM result(s)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("a VM result removed: exit %d, want 2 and %q:\n%s", code, want, stderr)
	}
	if b, _ := os.ReadFile(md); string(b) != string(keep) {
		t.Errorf("report.md was rewritten from a damaged directory")
	}
}
