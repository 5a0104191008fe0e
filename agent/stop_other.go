//go:build !unix

package agent

import (
	"errors"
	"os"
)

// terminate cannot ask a process to stop on this OS: it fails, and Stop
// kills it.
func terminate(*os.Process) error { return errors.New("no SIGTERM here") }

// isAgent cannot tell a reused pid here: it says yes.
func isAgent(int) bool { return true }
