//go:build unix

package dialect

import "syscall"

// ProcessFileLimit returns the open files this process may have
// (RLIMIT_NOFILE, which Go raises to the hard limit at start), or 0 when
// it cannot be read.
func ProcessFileLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}
