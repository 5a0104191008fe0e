//go:build unix

package oltp

import (
	"syscall"
	"time"
)

// readUsage reads getrusage(RUSAGE_SELF): the whole process's CPU time and
// context switches so far.
func readUsage() usage {
	var ru syscall.Rusage
	at := time.Now()
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{at: at}
	}
	return usage{
		at: at, ok: true,
		user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()),
		nvcs: int64(ru.Nvcsw), nivc: int64(ru.Nivcsw),
	}
}
