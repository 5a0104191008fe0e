// Package vmdriver runs a campaign's workload on each of its VMs: in the
// harness's own process (Harness), or in each VM's guest through the
// vmbench agent (Guest): the agent uploaded, a job file per step, the
// agent started, its status and interval files followed, its Result
// downloaded. It reaches guests through package target only; opening
// them (VMware Tools, SSH, a local directory) is the engine's
// (package scenarios), and so is knowing what a VM is in vSphere.
package vmdriver

import (
	"context"
	"debug/elf"
	"debug/pe"
	"fmt"
	"io"
	"time"

	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/workload"
)

// Driver runs the workload's steps on one VM, here or in its guest. The
// engine calls Prepare on every VM, then Run on every VM from a common
// start, then Close once. VMs are numbered from 0 in the campaign's
// order.
type Driver interface {
	// Where says where VM vm's driver runs, for the log and the Result's
	// "driver" label: DriverHarness or DriverGuest.
	Where(vm int) spec.Driver
	// Prepare loads VM vm's data with cfg, progress lines to log.
	Prepare(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error
	// Run runs cfg on VM vm as workload.Config.Run does, with env's
	// common start, labels and observer, and returns its Output (a
	// partial one beside the error after an interrupt or a failure).
	Run(ctx context.Context, vm int, cfg workload.Config, env workload.Env) (*workload.Output, error)
	// Check runs cfg's consistency checks (workload.Checker) on VM vm's
	// database, result lines to log; an error is a check that failed or
	// could not run.
	Check(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error
	// Close stops what is still running and removes what the driver put
	// on the VMs; it logs what it could not remove.
	Close()
}

// Harness runs each VM's workload in this process, against the VM's
// database over the network (or a local one in a simulation).
type Harness struct{}

var (
	_ Driver = Harness{}
	_ Driver = (*Guest)(nil)
)

// Where is DriverHarness for every VM.
func (Harness) Where(int) spec.Driver { return spec.DriverHarness }

// Prepare runs cfg's prepare step here.
func (Harness) Prepare(ctx context.Context, _ int, cfg workload.Config, log io.Writer) error {
	return cfg.Prepare(ctx, workload.Env{Log: log})
}

// Check runs cfg's checks here; a tool without checks passes.
func (Harness) Check(ctx context.Context, _ int, cfg workload.Config, log io.Writer) error {
	ch, ok := cfg.(workload.Checker)
	if !ok {
		return nil
	}
	return ch.Check(ctx, workload.Env{Log: log})
}

// Run runs cfg here.
func (Harness) Run(ctx context.Context, _ int, cfg workload.Config, env workload.Env) (*workload.Output, error) {
	return cfg.Run(ctx, env)
}

// Close has nothing to do: the harness put nothing on the VMs.
func (Harness) Close() {}

// ExecutablePlatform reads the OS and architecture an executable is
// built for from its ELF or PE header (GOOS/GOARCH spellings); a file that
// is neither, or of another architecture, is an error naming it.
func ExecutablePlatform(path string) (goos, goarch string, err error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64", nil
		case elf.EM_AARCH64:
			return "linux", "arm64", nil
		default: // refused below
		}
		return "", "", fmt.Errorf("agent %s: an ELF executable for %s, which vmbench's agent is not built for (linux/amd64, linux/arm64)", path, f.Machine)
	}
	if f, err := pe.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64", nil
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64", nil
		}
		return "", "", fmt.Errorf("agent %s: a Windows executable for machine %#x, which vmbench's agent is not built for (windows/amd64)", path, f.Machine)
	}
	return "", "", fmt.Errorf("agent %s: not a Linux (ELF) or Windows (PE) executable; give a vmbench binary (make agents builds them)", path)
}

// stateFailures is how many reads of a process's state in a row may fail
// (the guest briefly unreachable) before WaitProcess gives it up.
const stateFailures = 10

// WaitProcess polls p until it ends and returns its exit code, polling
// more slowly as it runs on (10 ms doubling up to 1 s). When ctx ends,
// timeout passes or ten reads of its state in a row fail, it kills p
// (allowing StopGrace) and returns -1 and an error: ctx's, one saying the
// timeout (named bound, as "hooks.timeout") passed, or the last read's.
func WaitProcess(ctx context.Context, p target.Process, timeout time.Duration, bound string) (int, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	kill := func() {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopGrace)
		defer cancel()
		_ = p.Kill(kctx)
	}
	poll, failures := 10*time.Millisecond, 0
	for {
		running, code, err := p.State(ctx)
		switch {
		case err == nil && !running:
			return code, nil
		case err != nil && ctx.Err() == nil:
			if failures++; failures >= stateFailures {
				kill()
				return -1, err
			}
		default:
			failures = 0
		}
		tick := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			tick.Stop()
			kill()
			return -1, ctx.Err()
		case <-deadline.C:
			tick.Stop()
			kill()
			return -1, fmt.Errorf("still running after %s %s: stopped", bound, timeout)
		case <-tick.C:
		}
		poll = min(2*poll, time.Second)
	}
}
