package spec

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Hook is a point of a campaign where commands run: HookBeforePrepare,
// HookBeforeRun or HookAfterRun. Each is a key of the campaign file's
// hooks: block (hooks.before-prepare: ...), and names the results
// directory's hooks/<hook>/ folder, the overhead table's "hooks: <hook>"
// step and the commands' VMBENCH_HOOK.
type Hook string

// The hooks.
const (
	// HookBeforePrepare runs right before the prepare step, once every
	// VM has its database (and, with driver guest, its agent).
	HookBeforePrepare Hook = "before-prepare"
	// HookBeforeRun runs after prepare, before the common start.
	HookBeforeRun Hook = "before-run"
	// HookAfterRun runs after the measure phase, before collect.
	HookAfterRun Hook = "after-run"
)

// HookNames are the hooks in the order they run.
func HookNames() []Hook { return []Hook{HookBeforePrepare, HookBeforeRun, HookAfterRun} }

// HookFailure is what a hook command that fails does to the campaign:
// HookFailureStop or HookFailureContinue, written as the campaign
// file's hooks.on-failure: (Hooks.OnFailure; "" is the default, stop).
type HookFailure string

// The failure policies of the hooks.
const (
	// HookFailureStop stops the campaign when a hook command fails (the
	// default).
	HookFailureStop HookFailure = "stop"
	// HookFailureContinue logs the failure and goes on.
	HookFailureContinue HookFailure = "continue"
)

// Valid says f is a failure policy: HookFailureStop,
// HookFailureContinue, or "" (the default, stop).
func (f HookFailure) Valid() bool { return f == "" || f == HookFailureStop || f == HookFailureContinue }

// Bounds of the hooks' own options.
const (
	// DefaultHookTimeout is how long one hook command may run on a VM
	// before it is stopped and counts as failed (hooks.timeout).
	DefaultHookTimeout = 30 * time.Minute
	// MaxHookTimeout bounds hooks.timeout.
	MaxHookTimeout = 24 * time.Hour
)

// Hooks is the hooks: block: shell commands run in every VM's guest,
// through the same target driver: guest uses (SSH, or VMware Tools with
// guest.via: tools; in simulation the local directory that stands in for
// the VM), with /bin/sh -c (cmd.exe /c on Windows). Each command runs on
// every VM at once (at most 8 VMs at a time), the commands of a hook one
// after another, in the guest's working directory, with VMBENCH_CAMPAIGN,
// VMBENCH_VM and VMBENCH_HOOK set. Output, exit status and duration go to
// <results>/hooks/<hook>/<vm>.txt.
//
//	hooks:
//	  before-prepare: ["sync", "echo 3 > /proc/sys/vm/drop_caches"]
//	  before-run: [...]
//	  after-run: [...]
//	  on-failure: continue   # default stop
//	  timeout: 10m           # per command and VM, default 30m
type Hooks struct {
	// BeforePrepare, BeforeRun and AfterRun are the commands of each
	// hook (HookBeforePrepare...).
	BeforePrepare []string `yaml:"before-prepare,omitempty"`
	BeforeRun     []string `yaml:"before-run,omitempty"`
	AfterRun      []string `yaml:"after-run,omitempty"`
	// OnFailure is what a command that fails on a VM (an exit status
	// other than 0, or one that could not be run or followed to its end)
	// does: "stop" (the default: the campaign fails, naming the VM, hook,
	// command, exit status and saved output) or "continue" (it is logged).
	OnFailure HookFailure `yaml:"on-failure,omitempty"`
	// Timeout bounds one command on one VM (default DefaultHookTimeout).
	Timeout Duration `yaml:"timeout,omitempty"`
}

// Commands returns hook's commands; none for a nil Hooks.
func (h *Hooks) Commands(hook Hook) []string {
	if h == nil {
		return nil
	}
	switch hook {
	case HookBeforePrepare:
		return h.BeforePrepare
	case HookBeforeRun:
		return h.BeforeRun
	case HookAfterRun:
		return h.AfterRun
	}
	return nil
}

// Any says whether h holds a command.
func (h *Hooks) Any() bool {
	for _, name := range HookNames() {
		if len(h.Commands(name)) > 0 {
			return true
		}
	}
	return false
}

// CommandTimeout is hooks.timeout or the default: how long one command
// may run on one VM.
func (h *Hooks) CommandTimeout() time.Duration {
	if h != nil && h.Timeout > 0 {
		return time.Duration(h.Timeout)
	}
	return DefaultHookTimeout
}

// validateHooks checks the hooks: block: every command a non-empty
// string, on-failure and timeout valid. Each problem names its line.
func (s *Campaign) validateHooks() error {
	h := s.Hooks
	if h == nil {
		return nil
	}
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, s.Origin.Errorf(path, format, args...))
	}
	for _, name := range HookNames() {
		cmds := h.Commands(name)
		if n := s.Origin.Value("hooks." + string(name)); n != nil && n.Kind == yaml.SequenceNode {
			// yaml drops a null entry ("-" alone) from a []string: read
			// the entries from the file
			cmds = make([]string, len(n.Content))
			for i, e := range n.Content {
				cmds[i] = e.Value
			}
		}
		for i, cmd := range cmds {
			at := fmt.Sprintf("hooks.%s.%d", name, i)
			switch {
			case strings.TrimSpace(cmd) == "":
				bad(at, "hooks.%s: command %d is empty; give a shell command (e.g. sync)", name, i+1)
			case strings.ContainsRune(cmd, 0):
				bad(at, "hooks.%s: command %d holds a NUL byte", name, i+1)
			}
		}
	}
	if !h.OnFailure.Valid() {
		bad("hooks.on-failure", "hooks.on-failure: %q is not valid (stop: a failing command fails the campaign; continue: it is logged and the campaign goes on)", h.OnFailure)
	}
	if d := time.Duration(h.Timeout); d < 0 || d > MaxHookTimeout || (d > 0 && d < time.Second) {
		bad("hooks.timeout", "hooks.timeout: %s is not valid (0 for the default of %s, or 1s..%s)", d, DefaultHookTimeout, MaxHookTimeout)
	}
	return errors.Join(errs...)
}
