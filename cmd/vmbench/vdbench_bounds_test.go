//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Counts beyond what this host can run and sizes beyond the free space of
// the file system are refused before anything is created, exit 2, naming
// the file, line and parameter.
func TestVdbenchRefusesWhatTheHostCannotDo(t *testing.T) {
	dir := t.TempDir()
	var sf unix.Statfs_t
	if err := unix.Statfs(dir, &sf); err != nil {
		t.Fatal(err)
	}
	tooBig := (int64(sf.Bavail)*int64(sf.Frsize) + 1<<30) &^ (1<<20 - 1)
	lun := filepath.Join(dir, "a.img")
	parm := func(name, sd, rd string) string {
		return writeFile(t, name, "sd=sd1,lun="+lun+",\n  "+sd+"\nwd=wd1,sd=sd1,rdpct=50\nrd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1"+rd+"\n")
	}
	suite := func(name, sim string) string {
		return writeFile(t, name, strings.Replace(tinySuite, "  size: 8m\n", sim, 1))
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"size beyond free space", []string{"vdbench", "run", parm("big.vdb", "size="+itoa64(tooBig), "")},
			[]string{"big.vdb: sd=sd1 (line 2), lun=" + lun, "size= does not fit", "nothing was created"}},
		{"threads beyond the host", []string{"vdbench", "run", parm("threads.vdb", "size=1m,threads=1000000", "")},
			[]string{"threads.vdb:2: threads: rd=rd1: run rd1 would start 1000000 I/O threads", "this host runs at most"}},
		{"forthreads beyond the host", []string{"vdbench", "run", parm("for.vdb", "size=1m", ",forthreads=(1,1000000)")},
			[]string{"for.vdb:4: forthreads: rd=rd1: run rd1_threads=1000000"}},
		{"iorate beyond the host", []string{"vdbench", "run", writeFile(t, "rate.vdb", "sd=sd1,lun="+lun+",size=1m\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=1e15\n")},
			[]string{"rate.vdb:3: iorate: rd=rd1: 1000000000000000 I/Os per second is more than this host can issue"}},
		{"profile threads beyond the host", []string{"vdbench", "run", "--profile", "4k-random-read", "--target", lun, "--threads", "1000000"},
			[]string{"--profile 4k-random-read: threads: rd=", "would start 1000000 I/O threads"}},
		{"SI size", []string{"vdbench", "run", parm("si.vdb", "size=8MB", "")},
			[]string{"si.vdb:2: size: size \"8MB\": SI units (kB, MB, GB, TB) are not accepted", "write 8m or 8MiB"}},
		{"suite: simulate size beyond free space", []string{"campaign", "run", suite("s.yaml", "  size: "+itoa64(tooBig)+"\n"), "--simulate"},
			[]string{"s.yaml:8: size: sd=sd1, lun=", "size= does not fit"}},
		{"suite: SI size", []string{"campaign", "run", suite("si.yaml", "  size: 8MB\n"), "--simulate"},
			[]string{"line 8", "SI units", "write 8m or 8MiB"}},
		{"suite: threads beyond the host", []string{"campaign", "run", writeFile(t, "t.yaml", strings.NewReplacer("  threads: 2\n", "  threads: 4096\n", "  targets: 2\n", "  targets: 16\n").Replace(tinySuite)), "--simulate"},
			[]string{"t.yaml:9: profile 4k-random-read: threads: rd=", "would start 65536 I/O threads"}},
	} {
		t.Run(tc.name, func(t *testing.T) { runRefused(t, dir, tc.args, tc.want) })
	}
}

// A size= too small for the workload's transfers (its span starts one
// alignment unit in, LBA 0 being never used) is refused before anything is
// created: exit 2, naming the least size, and neither the file nor the
// results directory exists. (It used to be found only after the preformat.)
func TestVdbenchFailedRunLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "small.img")
	parm := writeFile(t, "small.vdb", "sd=sd1,lun="+lun+",size=8k\nwd=wd1,sd=sd1,xfersize=8k\nrd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n")
	code, _, stderr := runCLI(t, nil, "vdbench", "run", parm, "-o", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(stderr, "small.vdb:2: xfersize: wd=wd1: sd=sd1 has size=8k") || !strings.Contains(stderr, "valid: size= of at least 16k") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused run left %v", entries)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// Ctrl-C during the preformat of a new file stops it and leaves nothing:
// exit 130, no file, no results directory.
func TestVdbenchInterruptedFillLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "new.img")
	parm := writeFile(t, "new.vdb", "sd=sd1,lun="+lun+",size=64m\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as if Ctrl-C came during the fill: it stops before its first transfer
	var out, errb bytes.Buffer
	err := run(ctx, &app{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, []string{"vdbench", "run", parm, "-o", filepath.Join(dir, "out")})
	if code := exitCode(err); code != 130 || !strings.Contains(err.Error(), "preformatting "+lun+" stopped at 0 bytes of 64.0 MiB") {
		t.Errorf("exit %d: %v\n%s", code, err, errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the interrupted run left %v", entries)
	}
}
