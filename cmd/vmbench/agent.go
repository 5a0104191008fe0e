package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"vmbench/agent"
)

func init() { registerGroup(newAgentCmd) }

func newAgentCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "agent",
		Short: "Run a workload from a run directory's job.json, inside a VM's guest",
		Long: `The agent is what a campaign starts inside each VM: 'agent run DIR' runs the
workload that DIR/job.json names and leaves everything it measures as files in
DIR, so it needs no listening port and no network path back to the harness.`,
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return usagef("%s: unknown command %q (want run or stop; see '%s --help')", cmd.CommandPath(), args[0], cmd.CommandPath())
	}
	c.AddCommand(newAgentRunCmd(a), newAgentStopCmd(a))
	return c
}

func newAgentStopCmd(a *app) *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "stop DIR",
		Short: "Stop the agent that runs in DIR, if one does",
		Long: `Stop the agent that holds DIR/` + agent.LockFile + `: ask it to stop (SIGTERM: it writes
its partial result and exits), and kill it when it has not ended after
--grace (on Windows it is killed at once). A campaign runs this in a guest
before it reuses a run directory, so that an agent left running by a killed
campaign cannot write into the new run's files. No agent there (no lock, or
a lock whose process no longer runs, or whose pid is now another program's)
is not an error. It prints what it did.`,
		Example: `  vmbench agent stop /var/tmp/vmbench/run`,
		Args:    exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if grace < 0 {
				return usagef("--grace %s: must be 0 or more", grace)
			}
			got, err := agent.Stop(cmd.Context(), args[0], grace)
			switch {
			case err != nil:
				return err
			case got.PID == 0:
				fmt.Fprintf(a.stdout, "no agent runs in %s\n", args[0])
			case got.Killed:
				fmt.Fprintf(a.stdout, "killed the agent in %s (pid %d): it did not stop within %s\n", args[0], got.PID, grace)
			default:
				fmt.Fprintf(a.stdout, "stopped the agent in %s (pid %d)\n", args[0], got.PID)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 15*time.Second, "how long the agent has to write its partial result and end before it is killed")
	return cmd
}

func newAgentRunCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "run DIR",
		Short: "Run the job in DIR/job.json and write its status, intervals and result into DIR",
		Long: `Run the job that DIR/` + agent.JobFile + ` describes (written by a campaign): a registered tool, its
workload and flags, the database to use (without its password, which comes
from $` + agent.PasswordEnv + `), the steps to run in order (prepare, run, check,
cleanup), the common start of the run step, the labels of its Result and,
for the block suite, the VM's data vDisks (name, SCSI bus and unit, UUID,
size), which the agent finds in a Linux guest by their WWN (the VM needs
disk.EnableUUID=TRUE) and gives to vdbench as --target, in order.
DIR must be an existing directory holding ` + agent.JobFile + `. The agent writes, in DIR:

  ` + agent.StatusFile + `            its state (starting, prepare, waiting, precondition, measure,
                         check, cleanup, done or failed, with the error), rewritten
                         atomically at every change
  ` + agent.IntervalDir + `/NNNNNN.json  one file per report interval, numbered from 000001
  ` + agent.HlogFile + `         the intervals' latency histograms in the HdrHistogram
                         interval-log format (nanoseconds), tagged <phase>/<op>,
                         written when the run step ends
  ` + agent.ResultFile + `            the run step's measure-phase Result, also after a failure
                         or an interrupt (marked so)
  ` + agent.RecordFile + `            the tool's own record, when it has one
  ` + agent.LogFile + `                the workload's progress lines (created at the first)
  ` + agent.LockFile + `             while it runs: its pid and start time; a second agent on
                         DIR exits 2 naming it and the pid; a lock whose pid no
                         longer runs is taken over (` + agent.LogFile + ` says so)

Every file but ` + agent.LogFile + ` is written atomically (a temporary file, fsync,
rename). A job that cannot run as written (a job.json that is not a regular
file or is larger than ` + strconv.Itoa(agent.MaxJobSize>>20) + ` MiB, a field or flag that is unknown or
refused, a connection flag, a password in the job, a run step that would
never end (time 0 and no events, which a campaign refuses too), a common
start more than ` + strconv.Itoa(int(agent.MaxStartAhead.Hours())) + ` h ahead of the guest's clock) fails before anything
else is created: ` + agent.StatusFile + ` says failed with flag_error, and the exit
status is 2. A disk not found as the job says (a placement problem) and a
step that fails exit 1; Ctrl-C or SIGTERM stops the run, writes the partial
result and exits 130 (before the common start: "interrupted before the
start", and no result); a job done exits 0.`,
		Example: `  VMBENCH_DB_PASSWORD=... vmbench agent run /var/tmp/vmbench/run-01`,
		Args:    exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := checkRunDir(dir); err != nil {
				return usagef("%s: %v", cmd.CommandPath(), err)
			}
			err := agent.Run(cmd.Context(), dir, a.getenv)
			switch {
			case err == nil:
				fmt.Fprintf(a.stderr, "agent: done; results in %s\n", dir)
				return nil
			case agent.IsBadInput(err), errors.Is(err, agent.ErrLocked):
				return asUsage(err)
			}
			return err
		},
	}
}

// checkRunDir makes sure dir is a directory holding a job.json file.
func checkRunDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("DIR %s does not exist", dir)
	case err != nil:
		return fmt.Errorf("DIR %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("DIR %s is not a directory", dir)
	}
	job := filepath.Join(dir, agent.JobFile)
	fi, err = os.Stat(job)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist (DIR must hold the job a campaign wrote)", job)
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a file", job)
	}
	return nil
}
