package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vmbench/oltp"
	"vmbench/vdbench"
	"vmbench/workload"
)

func init() { registerGroup(newVdbenchCmd) }

func newVdbenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vdbench run|profiles|parse",
		Short: "vdbench-style block I/O: parameter files, the review suite's profiles, latency curves",
		Long: `A native block-I/O workload that reads vdbench parameter files (sd=, wd=, rd=; the
subset 'vmbench vdbench parse' accepts) and carries the review suite's profiles
as such files: the four corners, SQL, Oracle and VDI ('vmbench vdbench profiles
NAME' prints one with the source of each number; the README's section "The block
suite (vdbench-style)" describes the suite).

Sizes are binary, as in vdbench: 4k = 4KiB = 4096 bytes. k, m, g, t and the IEC
forms KiB, MiB, GiB, TiB are accepted; the SI forms kB, MB, GB, TB are refused
(the error says what to write). This holds in parameter files and in the
size:s of a block-suite campaign file.

Each run prints vdbench's interval lines, then per point the requested and
achieved IOPS, MB/s, the service time (mean, p50, p99, max) and the latency from
the intended start, and the review summary: start IOPS and latency, where the
mean latency crosses 100 µs and 1 ms, and the peak.

Writing to a target that carries a partition table or file system is refused
unless --force; a mounted or otherwise busy device is always refused. The whole
suite on several targets runs from a campaign file:
'vmbench campaign run scenarios/vdbench-suite.yaml'.`,
		Example: `  vmbench vdbench profiles
  vmbench vdbench profiles sql --target /dev/nvme0n1 > sql.vdb
  vmbench vdbench parse sql.vdb
  vmbench vdbench run --profile 4k-random-read --target /dev/nvme0n1 --target /dev/nvme1n1
  vmbench vdbench run sql.vdb -o output -e 30 -i 5 -w 10
  vmbench vdbench run -f sql.vdb -o output        # as vdbench -f parmfile -o output`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newVdbenchRunCmd(a), newVdbenchProfilesCmd(a), newVdbenchParseCmd(a))
	return cmd
}

// bindVdbench binds the options of cfg that a vdbench command takes
// (names), as vdbench's Config binds them.
func bindVdbench(f *pflag.FlagSet, cfg *vdbench.Config, names ...string) {
	all := pflag.NewFlagSet("vdbench", pflag.ContinueOnError)
	cfg.BindFlags(all)
	for _, n := range names {
		f.AddFlag(all.Lookup(n))
	}
}

// sourceFlags are the options of run and parse that say what to run: a
// parameter FILE, or a built-in --profile on --target(s), with vdbench's
// -e, -i, -w overrides.
var sourceFlags = []string{"file", "profile", "target", "threads", "elapsed", "interval", "warmup"}

// validate reads the parameters and expands their runs; every problem is
// a usage error naming the file, line, flag or value.
func validateVdbench(cmd *cobra.Command, cfg *vdbench.Config, args []string) error {
	cfg.Command, cfg.Args = cmd.CommandPath(), args
	return asUsage(cfg.Validate())
}

func maxOneArg(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("%s: takes at most one parameter FILE (got %d arguments; see '%s --help')", cmd.CommandPath(), len(args), cmd.CommandPath())
	}
	return nil
}

func newVdbenchRunCmd(a *app) *cobra.Command {
	var (
		cfg = vdbench.NewConfig()
		dir string
	)
	cmd := &cobra.Command{
		Use:   "run [FILE | -f FILE]",
		Short: "Run a parameter file or a built-in profile",
		Long: `Run every rd of the parameter FILE (or -f FILE, as vdbench -f; or --profile on
--target), in order. Each point prints vdbench's interval lines as it runs; each
run then prints its curve table and review summary.

Before anything is created, every run is checked against this host and the
targets: the I/O threads of a run (threads=, forthreads=, over its sds), its sds,
iorate= and the report intervals it keeps must fit what the host can do (its OS
threads, memory, open files and CPUs; the error names the bound and why); each
target must exist (a file may be new when its sd has size=), and a target that
will be written must not be mounted or busy, nor carry a partition table or
file-system signature unless --force; the files to create or extend must fit in
the free space of their file systems.

A file target that is missing or smaller than size= is then created and
preformatted (written once in full, with progress lines); Ctrl-C stops it, and a
preformat that fails or is stopped removes the file it created. A completed file
is kept after the run, as vdbench keeps it, so the next run does not write it
again; it is removed when the run fails before measuring anything.

Results go to -o/--results-dir (default output/, as vdbench's -o): per run
<run>.json (each point's Result, merged over the targets, with the per-target
Results), <run>.svg (mean service time and latency from the intended start
against achieved IOPS) and, with several targets, <run>-targets.svg (one curve
per target); summary.txt (every curve table and summary) and parmfile.vdb (the
parameters as run). Runs that would share a name (a for-loop that repeats a
value) get _rep2, _rep3... Files are written atomically; after Ctrl-C they hold
the points completed and are marked interrupted.`,
		Example: `  vmbench vdbench run --profile 4k-random-read --target /dev/nvme0n1 -o results/r7415
  vmbench vdbench run -f my.vdb -o output
  vmbench vdbench run my.vdb --force -e 60 -i 5 -w 10`,
		Args: maxOneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateVdbench(cmd, cfg, args); err != nil {
				return err
			}
			if err := cfg.CheckBeforeRun(); err != nil {
				return asUsage(err)
			}
			return runVdbench(cmd, a, cfg, dir)
		},
	}
	bindVdbench(cmd.Flags(), cfg, append(sourceFlags, "force")...)
	cmd.Flags().StringVarP(&dir, "results-dir", "o", "output", "directory for the results (created if missing, as vdbench's -o)")
	return cmd
}

// runVdbench runs cfg's runs in order, writing each one's results into
// dir as it completes (see 'vdbench run --help').
func runVdbench(cmd *cobra.Command, a *app, cfg *vdbench.Config, dir string) error {
	runs := cfg.Runs()
	_, statErr := os.Stat(dir)
	if err := checkResultsDir(dir); err != nil {
		return err
	}
	parmfile := filepath.Join(dir, "parmfile.vdb")
	// undo removes what this command wrote when nothing was measured.
	undo := func() {
		os.Remove(parmfile)
		if statErr != nil {
			os.Remove(dir) // only when empty: never anything else
		}
	}
	if err := oltp.WriteFileAtomic(parmfile, []byte(cfg.Params().Text())); err != nil {
		undo()
		return err
	}
	fmt.Fprintf(a.stderr, "vdbench: %d run(s), results in %s\n", len(runs), dir)
	created, err := vdbench.CreateFiles(cmd.Context(), runs, cfg.Force(), a.stderr)
	if err != nil {
		undo()
		return err
	}
	var summary bytes.Buffer
	bases := vdbench.RunFileBases(runs)
	env := workload.Env{Observer: cfg.IntervalWriter(a.stdout)}
	for i, run := range runs {
		o, runErr := cfg.RunOne(cmd.Context(), env, i)
		if o == nil {
			if i == 0 {
				vdbench.RemoveCreated(created)
				undo()
			}
			return runErr
		}
		title := run.Name
		if p := cfg.Profile(); p != nil {
			title = p.Title
		}
		files, err := vdbench.WriteRunResults(dir, bases[i], title, o.Record.(*vdbench.RunRecord), &summary)
		if err == nil {
			err = oltp.WriteFileAtomic(filepath.Join(dir, "summary.txt"), summary.Bytes())
		}
		fmt.Fprintf(a.stdout, "\n%s", vdbench.LastRun(summary.String()))
		if err != nil {
			return errors.Join(runErr, fmt.Errorf("writing results: %w", err))
		}
		fmt.Fprintf(a.stderr, "results: %s\n", strings.Join(files, ", "))
		if runErr != nil {
			return runErr
		}
	}
	return nil
}

func newVdbenchProfilesCmd(a *app) *cobra.Command {
	var (
		targets []string
		threads int
	)
	cmd := &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in profiles, or print one as a parameter file",
		Long: `Without NAME, list the review suite's profiles: name, title, threads per target
and mix; those marked APPROX define a mix the reviews do not publish, from
public facts, each number with its source in the file.

With NAME, print that profile as a parameter file, with its sd line for each
--target (or the template line sd=sd1,lun=$target to edit), ready to change and
run with 'vmbench vdbench run FILE'.`,
		Example: `  vmbench vdbench profiles
  vmbench vdbench profiles oracle-90-10 --target /dev/nvme0n1 --target /dev/nvme1n1 > oracle.vdb`,
		Args: maxOneArgNamed,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if len(targets) > 0 || threads != 0 {
					return usagef("%s: --target and --threads need a profile NAME", cmd.CommandPath())
				}
				if err := vdbench.WriteProfileList(a.stdout); err != nil {
					return err
				}
				return nil
			}
			p, err := vdbench.ProfileByName(args[0])
			if err != nil {
				return usagef("%s: %v", cmd.CommandPath(), err)
			}
			text, err := p.Render(targets, threads)
			if err != nil {
				return asUsage(err)
			}
			_, err = io.WriteString(a.stdout, text)
			return err
		},
	}
	cmd.Flags().StringArrayVar(&targets, "target", nil, "a block device or file for the sd lines (repeat for several)")
	cmd.Flags().IntVar(&threads, "threads", 0, "threads per target instead of the profile's own")
	return cmd
}

func maxOneArgNamed(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("%s: takes at most one profile NAME (got %d arguments)", cmd.CommandPath(), len(args))
	}
	return nil
}

func newVdbenchParseCmd(a *app) *cobra.Command {
	cfg := vdbench.NewConfig()
	cmd := &cobra.Command{
		Use:   "parse [FILE | -f FILE]",
		Short: "Check a parameter file and print what 'vdbench run' would do",
		Long: `Parse and validate the parameter FILE (or --profile, on --target when given) and
print what 'vmbench vdbench run' would do with it: the storage, every expanded
run with its workloads, rates and times, and the total time. Every problem is
reported with its file, line and keyword. No target is opened.`,
		Example: `  vmbench vdbench parse my.vdb
  vmbench vdbench parse --profile sql --target /dev/nvme0n1 -e 30`,
		Args: maxOneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateVdbench(cmd, cfg, args); err != nil {
				return err
			}
			text, err := cfg.Params().Describe()
			if err != nil {
				return asUsage(err)
			}
			_, err = io.WriteString(a.stdout, text)
			return err
		},
	}
	bindVdbench(cmd.Flags(), cfg, sourceFlags...)
	return cmd
}
