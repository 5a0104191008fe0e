// Package atomicfile writes a file so that a reader, or the file system
// after a crash, sees either the old file or the whole new one, never a
// part of it: every results file vmbench writes (Results, reports, the
// campaign's records) goes through Write. It imports nothing from vmbench.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Mode is the permission of every file Write leaves, whatever the umask:
// readable by all, writable by its owner.
const Mode os.FileMode = 0o644

// Write writes data to path atomically: into a new temporary file in
// path's directory (".<name>.tmp<random>", so the rename never crosses a
// file system), synced to disk, given Mode, then renamed over path. On
// any error path is as it was and the temporary file is removed; the
// error is the os package's, naming the file it was about (the
// temporary file or path).
func Write(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails harmlessly once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, Mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
