package scenarios

import "errors"

// keptDirError is the error of a campaign that failed (or was
// interrupted) after its results directory was worth keeping: what it
// measured until then, or the manifest of what it left. It reads as the
// error it wraps.
type keptDirError struct {
	dir string // the results directory, still named .incomplete
	err error
}

func (e *keptDirError) Error() string { return e.err.Error() }
func (e *keptDirError) Unwrap() error { return e.err }

// keptDir is the results directory a failed campaign's err says it kept,
// "" when it kept none.
func keptDir(err error) string {
	var k *keptDirError
	if errors.As(err, &k) {
		return k.dir
	}
	return ""
}
