//go:build !unix

package boundedread

import "os"

// openNoFollow opens path read-only: outside Unix there is no FIFO in
// the file system to block on, and Open's os.Lstat already refused a
// symlink.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
