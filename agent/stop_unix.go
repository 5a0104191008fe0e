//go:build unix

package agent

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// terminate asks p to stop: SIGTERM.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// isAgent says whether process pid may be an agent: on Linux its command
// line holds "agent run" (a pid reused by another program does not);
// where /proc cannot tell, yes.
func isAgent(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return true
	}
	return bytes.Contains(b, []byte("agent\x00run\x00"))
}
