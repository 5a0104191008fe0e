package testdb

import (
	"errors"
	"syscall"
)

// sysProcAttr makes the kernel kill the server when the test process dies
// without calling Stop (a test binary killed by -timeout, say), so no server
// outlives its tests. The signal follows the starting thread, not the
// process; start keeps that thread locked until the server exits.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
