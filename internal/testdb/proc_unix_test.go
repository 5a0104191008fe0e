//go:build unix

package testdb

import (
	"errors"
	"fmt"
	"syscall"
)

// processExists returns an error when process pid still exists (kill -0
// does not fail with ESRCH), nil when it is gone.
func processExists(pid int) error {
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill -0: %w", err)
	}
	return nil
}
