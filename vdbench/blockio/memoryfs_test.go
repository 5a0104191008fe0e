//go:build linux

package blockio

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"vmbench/vdbench/parmfile"
)

// A file on tmpfs (/dev/shm) is a Target on a memory file system, and the
// run warns that it measures memory; a file on a disk's file system is
// not, and gets no warning.
func TestMemoryFSWarning(t *testing.T) {
	var sf unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &sf); err != nil || int64(sf.Type) != tmpfsMagic {
		t.Skip("skipped: /dev/shm is not tmpfs here")
	}
	shm, err := os.MkdirTemp("/dev/shm", "vdbench-test-")
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	for _, c := range []struct {
		dir    string
		memory bool
	}{{shm, true}, {t.TempDir(), false}} {
		if c.dir != shm && unix.Statfs(c.dir, &sf) == nil && (int64(sf.Type) == tmpfsMagic || int64(sf.Type) == ramfsMagic) {
			continue // the test's temporary directory is on tmpfs too
		}
		lun := filepath.Join(c.dir, "lun.img")
		if err := os.WriteFile(lun, make([]byte, 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
		sd := parmfile.SD{Name: "sd1", Lun: lun, OpenFlags: []string{"none"}}
		tg, err := OpenTarget(sd, TargetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ws := targetWarnings([]*sdLoad{{sd: sd, backend: tg}})
		tg.Close()
		want := "sd=sd1: lun=" + lun + " is on tmpfs: it measures memory, not a disk"
		switch {
		case tg.MemoryFS != c.memory:
			t.Errorf("%s: MemoryFS %v, want %v", lun, tg.MemoryFS, c.memory)
		case c.memory && (len(ws) != 1 || ws[0] != want):
			t.Errorf("%s: warnings %q, want %q", lun, ws, want)
		case !c.memory && len(ws) != 0:
			t.Errorf("%s: warnings %q, want none", lun, ws)
		}
	}
}
