package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"vmbench/internal/boundedread"
	"vmbench/scenarios/dataset"
	"vmbench/scenarios/rundir"
)

// TestRecordsThatAreNotFilesAreRefused: teardown's created.jsonl, resume's
// steps.jsonl and a data set's key file are read only when they are
// regular files, so a FIFO put in their place is refused at once (opening
// it had blocked teardown and resume for good) and a symlink to /dev/zero
// is not read without end.
func TestRecordsThatAreNotFilesAreRefused(t *testing.T) {
	key := rundir.DataKey{Tool: "tpcc"}
	reads := []struct {
		file string
		read func(dir string) error
	}{
		{rundir.ManifestFile, func(dir string) error { _, err := rundir.ReadManifest(dir); return err }},
		{rundir.JournalFile, func(dir string) error { _, err := rundir.ReadJournal(dir); return err }},
		{key.ID() + ".json", func(dir string) error { _, err := dataset.Find(dir, key); return err }},
	}
	kinds := []struct {
		name string
		make func(path string) error
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"symlink to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
	}
	for _, r := range reads {
		for _, k := range kinds {
			t.Run(r.file+"/"+k.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, r.file)
				if err := k.make(path); err != nil {
					t.Skipf("cannot make a %s here: %v", k.name, err)
				}
				err := r.read(dir) // a FIFO opened for reading would block here for good
				if !errors.Is(err, boundedread.ErrNotRegular) || !strings.Contains(err.Error(), path) {
					t.Fatalf("read of a %s as %s: %v; want an error naming it and wrapping ErrNotRegular", k.name, r.file, err)
				}
			})
		}
	}
}
