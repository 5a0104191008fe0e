//go:build unix

package tpcc

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time of this process so far.
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// processGone reports whether no process pid exists (kill -0 fails).
func processGone(pid int) bool { return syscall.Kill(pid, 0) != nil }
