package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"vmbench/internal/atomicfile"
)

// ResultsDir is a campaign's results directory, of either kind:
// <parent>/<name>-<time>-<4hex>, made exclusively with the suffix
// .incomplete, so that a crash never leaves a directory that looks
// finished, and renamed by Complete. After a failure or Ctrl-C it keeps
// its .incomplete name and the results written until then; Discard
// removes it when nothing was measured.
type ResultsDir struct {
	// ID is <name>-<UTC time>-<4 hex digits>: the campaign's id.
	ID string
	// Path is where the files go: Final plus ".incomplete" until
	// Complete, then Final.
	Path string
	// Final is the directory's name once complete.
	Final string
	// madeParent is the parent directory when this call made it (it did
	// not exist): Discard removes it again when it is empty.
	madeParent string
}

// CreateResultsDir makes parent (if needed) and in it the new results
// directory of a campaign called name started at now. The id carries a
// random suffix and the directory is made exclusively, so two campaigns
// started in the same second never share either. Errors name
// --results-dir.
func CreateResultsDir(parent, name string, now time.Time) (*ResultsDir, error) {
	id := fmt.Sprintf("%s-%s-%04x", name, now.UTC().Format("20060102T150405Z"), rand.Uint32N(1<<16))
	final := filepath.Join(parent, id)
	made := ""
	if _, err := os.Stat(parent); errors.Is(err, fs.ErrNotExist) {
		made = parent
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("--results-dir: %w", err)
	}
	if err := os.Mkdir(final+".incomplete", 0o755); err != nil {
		return nil, fmt.Errorf("--results-dir: %w", err)
	}
	return &ResultsDir{ID: id, Path: final + ".incomplete", Final: final, madeParent: made}, nil
}

// Write writes data to the file name (relative to the directory)
// atomically: a reader sees the old file or the new one, never a part.
func (d *ResultsDir) Write(name string, data []byte) error {
	return atomicfile.Write(filepath.Join(d.Path, name), data)
}

// Complete renames the directory to its final name.
func (d *ResultsDir) Complete() error {
	if !strings.HasSuffix(d.Path, ".incomplete") {
		return nil
	}
	if err := os.Rename(d.Path, d.Final); err != nil {
		return err
	}
	d.Path = d.Final
	return nil
}

// Discard removes the directory and everything in it, and the parent
// CreateResultsDir made for it when that is now empty (os.Remove refuses a
// directory that is not): for a campaign that measured nothing, so that it
// leaves nothing behind.
func (d *ResultsDir) Discard() {
	os.RemoveAll(d.Path)
	if d.madeParent != "" {
		os.Remove(d.madeParent)
	}
}
