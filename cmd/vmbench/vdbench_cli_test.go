package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"vmbench/vdbench"
)

// tinyParm is a parameter file of one 2 s max run per loop value, on a
// new 8 MiB file in dir.
func tinyParm(t *testing.T, dir, loop string) string {
	return writeFile(t, "tiny.vdb", "sd=sd1,lun="+filepath.Join(dir, "a.img")+",size=8m,threads=1\n"+
		"wd=wd1,sd=sd1,xfersize=4k,rdpct=100\nrd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1"+loop+"\n")
}

// vdbench -f parmfile -o output works as vdbench's; a repeated loop value
// gives runs whose files are all distinct.
func TestVdbenchRunDashFAndRepeatedRuns(t *testing.T) {
	dir := t.TempDir()
	parm := tinyParm(t, dir, ",forthreads=(1,1)")
	out := filepath.Join(dir, "output")
	code, _, stderr := runCLI(t, nil, "vdbench", "run", "-f", parm, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var names []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, want := range []string{"rd1_threads=1.json", "rd1_threads=1.svg", "rd1_threads=1_rep2.json", "rd1_threads=1_rep2.svg", "summary.txt", "parmfile.vdb"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s lacks %s: %v", out, want, names)
		}
	}
	rec, err := vdbench.ReadRunRecord(filepath.Join(out, "rd1_threads=1_rep2.json"))
	if err != nil || rec.Run != "rd1_threads=1_rep2" {
		t.Errorf("the second run's record: %v, %+v", err, rec)
	}
	summary, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
	if strings.Count(string(summary), "\n=== ") != 2 {
		t.Errorf("summary.txt holds %d runs, want 2", strings.Count(string(summary), "\n=== "))
	}
}

func TestVdbenchFileTwice(t *testing.T) {
	dir := t.TempDir()
	parm := tinyParm(t, dir, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"vdbench", "run", parm, "-f", parm}, "the parameter file is given twice, as " + parm + " and with -f " + parm},
		{[]string{"vdbench", "run", "-f", parm, "-f", parm}, "-f given 2 times"},
		{[]string{"vdbench", "parse", "-f", parm, parm}, "given twice"},
		{[]string{"vdbench", "run", "-f", parm, "--profile", "sql"}, "not both"},
		{[]string{"vdbench", "run", "-f", filepath.Join(dir, "nope.vdb")}, "nope.vdb does not exist"},
	} {
		code, _, stderr := runCLI(t, nil, append(tc.args, "-o", filepath.Join(dir, "out"))...)
		if tc.args[1] == "parse" {
			code, _, stderr = runCLI(t, nil, tc.args...)
		}
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input created %d entries in %s", len(entries), dir)
	}
	code, out, _ := runCLI(t, nil, "vdbench", "parse", "-f", parm)
	if code != 0 || !strings.Contains(out, "rd1") {
		t.Errorf("parse -f: exit %d\n%s", code, out)
	}
}

// The help of the vdbench commands cites only files the repository has,
// and states the size rule.
func TestVdbenchHelpCitesWhatExists(t *testing.T) {
	// Documents: README.md, docs/<page>.md (report.md is an output
	// file).
	mdFile := regexp.MustCompile(`\b(docs/[A-Za-z0-9_.-]+|[A-Z][A-Z0-9_-]+)\.md\b`)
	for _, args := range [][]string{{"vdbench"}, {"vdbench", "run"}, {"vdbench", "parse"}, {"vdbench", "profiles"}, {"campaign", "run"}} {
		_, out, _ := runCLI(t, nil, append(args, "--help")...)
		for _, f := range mdFile.FindAllString(out, -1) {
			if _, err := os.Stat(filepath.Join("..", "..", f)); err != nil {
				t.Errorf("%q --help cites %s, which the repository does not have", args, f)
			}
		}
		if args[0] == "vdbench" && len(args) == 1 {
			for _, w := range []string{"4k = 4KiB = 4096", "KiB, MiB, GiB, TiB", "kB, MB, GB, TB are refused", "The block"} {
				if !strings.Contains(out, w) {
					t.Errorf("vdbench --help lacks %q", w)
				}
			}
		}
	}
}
