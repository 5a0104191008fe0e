// Package boundedread reads files that a user or a guest can change (a
// results directory's Results and records, the files a guest's agent
// leaves) without trusting them to be what vmbench wrote: a file is read
// only when it is a regular file (os.Lstat: never a FIFO, a device, a
// socket, a directory or a symlink, which vmbench never writes) of at most
// a bound, checked on its size before a byte is read, so that a FIFO
// cannot block a reader and /dev/zero or a huge file cannot grow it. It
// imports nothing of vmbench's.
package boundedread

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is what an error of Open or ReadFile wraps for a path that
// is not a regular file (a FIFO, a device, a socket, a directory or a
// symlink).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what an error of Open, ReadFile or ReadAll wraps for
// content over its bound.
var ErrTooLarge = errors.New("larger than its bound")

// Open opens path for reading after checking, on os.Lstat, that it is a
// regular file of at most limit bytes; it opens it without following a
// symlink and without blocking (where the system has the flags), and
// checks the open file again, so a FIFO or a symlink swapped in between
// is refused too (a regular file renamed over it, as atomic writers
// replace a file, is read: it is the file's new content). A missing
// file's error wraps fs.ErrNotExist; the others name path and wrap
// ErrNotRegular or ErrTooLarge. The caller reads at most limit bytes from
// the file (ReadAll).
func Open(path string, limit int64) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	ofi, err := f.Stat()
	if err == nil {
		err = check(path, ofi, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile returns the content of path, a regular file of at most limit
// bytes (Open); the file is read up to limit bytes, so one that grows
// while being read is refused rather than read on. Errors are Open's, or
// ReadAll's naming path.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, limit, sizeHint(f, limit))
}

// ReadAll reads r to its end, refusing (ErrTooLarge, naming name and
// limit) more than limit bytes: it reads at most limit+1 bytes, so a reader
// without end costs no more than the bound. For streams (a download);
// files are read with ReadFile.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	return readAll(r, name, limit, 0)
}

// readAll is ReadAll with a first buffer of hint bytes.
func readAll(r io.Reader, name string, limit int64, hint int) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(hint + bytes.MinRead) // ReadFrom reads into MinRead bytes of room
	if _, err := b.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(b.Len()) > limit {
		return nil, Refused(ErrTooLarge, "%s: more than %s, the bound on this file", name, Size(limit))
	}
	return b.Bytes(), nil
}

// sizeHint is f's size for its first buffer, at most limit.
func sizeHint(f *os.File, limit int64) int {
	if fi, err := f.Stat(); err == nil {
		return int(min(fi.Size(), limit))
	}
	return 0
}

// check refuses fi, path's, when it is not a regular file or holds more
// than limit bytes.
func check(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return Refused(ErrNotRegular, "%s is %s, not a regular file (vmbench writes its files as regular files): refused unread",
			path, kind(fi.Mode()))
	}
	if fi.Size() > limit {
		return Refused(ErrTooLarge, "%s is %s (%d bytes), more than %s, the bound on this file: refused unread",
			path, Size(fi.Size()), fi.Size(), Size(limit))
	}
	return nil
}

// refusal is an error of this package: its message says it all, and it
// wraps one of the sentinel errors for errors.Is.
type refusal struct {
	msg  string
	kind error
}

func (e *refusal) Error() string { return e.msg }
func (e *refusal) Unwrap() error { return e.kind }

// Refused returns an error with the formatted message that wraps kind
// (ErrNotRegular or ErrTooLarge): for a reader of another source (a file
// on a remote host) to refuse in the same terms.
func Refused(kind error, format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...), kind: kind}
}

// kind names the type of a file that is not regular, with an article.
func kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeDir != 0:
		return "a directory"
	default:
		return "a special file (" + t.String() + ")"
	}
}

// Size writes a byte count as people read it: "512 MiB", "1.5 GiB", "640
// bytes" (binary units, one decimal when not whole).
func Size(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}
