//go:build !unix

package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// setProcessGroup does nothing outside Unix: Kill ends the process only,
// not its children.
func setProcessGroup(*exec.Cmd) {}

// kill ends the process; one that has already ended is not an error.
func (p *localProcess) kill(context.Context) error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		select {
		case <-p.done:
			return nil
		default:
		}
		return fmt.Errorf("target: kill process %d: %w", p.cmd.Process.Pid, err)
	}
	return nil
}

// shutdown kills the process (Local.Shutdown); its children are not
// reached here.
func (p *localProcess) shutdown() error { return p.kill(context.Background()) }
