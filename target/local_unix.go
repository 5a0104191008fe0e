//go:build unix

package target

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// killGrace is how long Kill waits after SIGTERM before SIGKILL.
const killGrace = 5 * time.Second

// setProcessGroup puts the program in a process group of its own, so Kill
// reaches its children and a signal to the caller's group does not, and,
// where the OS can (dieWithParent), has it killed when its parent ends.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// kill sends SIGTERM to the process group, waits up to killGrace (or ctx)
// for the leader to end, then sends SIGKILL to the group, which ends any
// child that outlived the leader. ESRCH (nothing left) is not an error.
func (p *localProcess) kill(ctx context.Context) error {
	pgid := p.cmd.Process.Pid
	if err := signalGroup(pgid, syscall.SIGTERM); err != nil {
		return err
	}
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	case <-ctx.Done():
	}
	return signalGroup(pgid, syscall.SIGKILL)
}

func signalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return fmt.Errorf("target: kill process group %d: %w", pgid, err)
}

// shutdown kills the process's group (Local.Shutdown): at once while the
// leader has not been reaped (its pid, the group's id, is still held),
// and after that only while no process has the leader's pid.
func (p *localProcess) shutdown() error {
	pgid := p.cmd.Process.Pid
	select {
	case <-p.done:
		if err := syscall.Kill(pgid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			return nil // the pid is another process's: the group is gone
		}
	default:
	}
	return signalGroup(pgid, syscall.SIGKILL)
}
