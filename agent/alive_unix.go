//go:build unix

package agent

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// processAlive says whether a process with pid runs: kill(pid, 0)
// succeeds, or fails with EPERM (it runs, as another user), and it is
// not a zombie (ended, not yet reaped by its parent; Linux's
// /proc/<pid>/stat tells).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// "pid (comm) S ...": the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
