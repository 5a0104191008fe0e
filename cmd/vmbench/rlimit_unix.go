//go:build unix

package main

import "syscall"

// processFileLimit returns the open files this process may have
// (RLIMIT_NOFILE, which Go raises to the hard limit at start), or 0 when
// it cannot be read.
func processFileLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}
