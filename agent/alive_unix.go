//go:build unix

package agent

import (
	"errors"
	"syscall"
)

// processAlive says whether a process with pid runs: kill(pid, 0)
// succeeds, or fails with EPERM (it runs, as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
