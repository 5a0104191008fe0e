// Package boundedread reads a small file whole, refusing what is not
// one: a path that is not a regular file (a FIFO, which would block the
// read; a device; a directory; a symbolic link) or a file larger than
// the caller's bound, which is never read into memory.
package boundedread

import (
	"fmt"
	"io"
	"os"
)

// ReadFile returns the content of the regular file at path. A path that
// is not a regular file itself (os.Lstat: a symbolic link, FIFO, device,
// socket or directory) and a file of more than max bytes are refused
// with an error naming path (and the bound); a missing file is an error
// wrapping fs.ErrNotExist. A file that grows past max, or is replaced,
// while it is read is refused too.
func ReadFile(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d bytes read", path, fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(fi, opened) {
		return nil, fmt.Errorf("%s was replaced while it was opened", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s grew past %d bytes while it was read", path, max)
	}
	return b, nil
}
