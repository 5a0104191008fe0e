//go:build unix

package boundedread

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a symlink in its
// last element (O_NOFOLLOW) and without blocking on a FIFO (O_NONBLOCK,
// which changes nothing for a regular file). A symlink (put there after
// Open's os.Lstat) is refused as ErrNotRegular.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, Refused(ErrNotRegular, "%s is a symlink, not a regular file (vmbench writes its files as regular files): refused unread", path)
	}
	return f, err
}
