package vdbench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/boundedread"
)

// TestReadRunRecordBounded: a block profile's record larger than its
// bound is refused on its size, unread, and one that is a symlink (which
// vmbench never writes; /dev/zero behind one is endless) is refused,
// each naming the file.
func TestReadRunRecordBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "4k-random-read.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxRecordFileSize + 1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	f.Close()
	link := filepath.Join(dir, "sql.json")
	if err := os.Symlink(big, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{big: boundedread.ErrTooLarge, link: boundedread.ErrNotRegular} {
		if _, err := ReadRunRecord(path); !errors.Is(err, want) || !strings.HasPrefix(err.Error(), path+" is ") {
			t.Errorf("ReadRunRecord(%s) = %v, want %v naming the file", path, err, want)
		}
	}
	if _, err := ReadRunRecord(big); err == nil || !strings.Contains(err.Error(), "more than "+boundedread.Size(MaxRecordFileSize)+", the bound on this file") {
		t.Errorf("the bound is not named: %v", err)
	}
}
