package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree is every file under dir with its content, to check that a
// refused report wrote nothing.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		b, err := os.ReadFile(p)
		m[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// copyFixture copies the committed results directory name to dir/as.
func copyFixture(t *testing.T, name, dir, as string) string {
	t.Helper()
	dst := filepath.Join(dir, as)
	if err := os.CopyFS(dst, os.DirFS(fixtures+name)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// An --output inside an input directory (through a symlink too), that is
// a directory, or whose directory is missing, is refused before anything
// is read or written: exit 2, naming --output and where to write instead.
func TestReportRefusesBadOutput(t *testing.T) {
	d := t.TempDir()
	ov2, ov3 := copyFixture(t, "sysbench-2vm", d, "ov2"), copyFixture(t, "sysbench-2vm-faster", d, "ov3")
	link := filepath.Join(d, "link")
	if err := os.Symlink(ov2, link); err != nil {
		t.Fatal(err)
	}
	before := tree(t, d)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"its merged.json", []string{ov2, "-o", filepath.Join(ov2, "merged.json"), "--format", "json"},
			"--output " + filepath.Join(ov2, "merged.json") + " is inside the input directory " + ov2 + ", whose files it would replace: write it outside the inputs (e.g. " + filepath.Join(d, "merged.json") + ")"},
		{"a VM's result", []string{ov3, "-o", filepath.Join(ov3, "vms", "sysbench-01.json"), "--format", "json"}, "is inside the input directory " + ov3},
		{"a compared input's report.md", []string{ov2, ov3, "-o", filepath.Join(ov3, "report.md")}, "is inside the input directory " + ov3},
		{"through a symlink", []string{ov3, link, "-o", filepath.Join(ov2, "cmp.html")}, "is inside the input directory " + link},
		{"into a symlinked input", []string{ov2, "-o", filepath.Join(link, "x.html")}, "is inside the input directory " + ov2},
		{"a directory", []string{ov2, ov3, "-o", d, "--format", "html"}, "--output " + d + " is a directory: give a file name (e.g. " + filepath.Join(d, "report.html") + ")"},
		{"a directory, no format", []string{ov2, ov3, "-o", d}, "--output " + d + " is a directory: give a file name"},
		{"a missing directory", []string{ov2, "-o", filepath.Join(d, "nope", "x.html")}, "--output " + filepath.Join(d, "nope", "x.html") + ": its directory " + filepath.Join(d, "nope") + " cannot be used: no such file or directory"},
	} {
		code, _, stderr := runCLI(t, nil, append([]string{"report"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", tc.name, code, tc.want, stderr)
		}
		if after := tree(t, d); len(after) != len(before) {
			t.Fatalf("%s: files written: %d, were %d", tc.name, len(after), len(before))
		} else {
			for p, b := range before {
				if after[p] != b {
					t.Errorf("%s: %s rewritten", tc.name, p)
				}
			}
		}
	}
	// Beside the inputs, it is written.
	out := filepath.Join(d, "cmp.html")
	if code, _, stderr := runCLI(t, nil, "report", ov2, ov3, "-o", out); code != 0 {
		t.Errorf("--output beside the inputs: exit %d\n%s", code, stderr)
	}
}

// TestOutputError: a write to --output that fails names --output and
// what went wrong, never the temporary file it wrote first.
func TestOutputError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&os.LinkError{Op: "rename", Old: ".res.tmp1635099985", New: "res", Err: syscall.EEXIST}, "--output res: cannot write it: file exists"},
		{&fs.PathError{Op: "open", Path: "out/.res.tmp*", Err: syscall.EACCES}, "--output res: cannot write it: permission denied"},
		{syscall.ENOSPC, "--output res: cannot write it: no space left on device"},
	} {
		if got := outputError("res", tc.err).Error(); got != tc.want || strings.Contains(got, "tmp") {
			t.Errorf("%v: %q, want %q", tc.err, got, tc.want)
		}
		if exitCode(outputError("res", tc.err)) != 2 {
			t.Errorf("%v: not a usage error", tc.err)
		}
	}
}

// A directory given twice (through a symlink), or a review directory
// with one of its own campaigns, is refused naming both; two inputs
// with nothing in common exit 2 saying why nothing was compared.
func TestReportInputsRefused(t *testing.T) {
	d := t.TempDir()
	review := filepath.Join(d, "r3-review")
	sb := copyFixture(t, "sysbench-2vm", review, "r3-sb")
	copyFixture(t, "sysbench-2vm-faster", review, "r3-sb-faster")
	link := filepath.Join(d, "link")
	if err := os.Symlink(sb, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a symlink to the same directory", []string{sb, link}, sb + " and " + link + " are the same directory: give each directory once"},
		{"a review and its campaign", []string{review, sb}, review + " and " + sb + " both hold the results directory " + sb +
			" (a review directory holds its campaigns' directories): give the review directory or its campaigns, not both"},
		{"nothing in common", []string{fixtures + "sysbench-2vm", fixtures + "sysbench-2vm-16threads", "--format", "md"},
			"nothing to compare:\n  sysbench-2vm-16threads's sysbench oltp_read_write was left out of the comparison with sysbench-2vm: it ran another protocol (threads 16, not 32).\n" +
				"  No test ran in two inputs with the same protocol: nothing was compared."},
	} {
		code, stdout, stderr := runCLI(t, nil, append([]string{"report"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s%s", tc.name, code, tc.want, stderr, stdout)
		}
	}
}
