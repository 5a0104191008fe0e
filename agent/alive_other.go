//go:build !unix

package agent

import "os"

// processAlive says whether a process with pid runs: on Windows
// os.FindProcess opens the process and fails when there is none.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
