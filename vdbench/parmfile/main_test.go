package parmfile

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine they started is still
// running after the last test: every goroutine parmfile starts must end by
// the time the call that started it returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
