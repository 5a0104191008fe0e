package vdbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"vmbench/internal/atomicfile"
	"vmbench/vdbench/blockio"
	"vmbench/vdbench/parmfile"
	"vmbench/workload"
)

// The commands of the CLI: Config as a workload.Commander, Informer and
// DirRunner.

// sourceFlags are the options of run and parse that say what to run: a
// parameter FILE, or a built-in --profile on --target(s), with vdbench's
// -e, -i, -w overrides.
var sourceFlags = []string{"file", "profile", "target", "threads", "elapsed", "interval", "warmup"}

// BindCommand implements workload.Commander: run takes sourceFlags,
// --force, --overwrite-files, --ioengine and -o/--results-dir; parse sourceFlags; profiles --target and
// --threads, with help of its own. The block suite's --size, --curve
// and --temporary-targets are a campaign's.
func (c *Config) BindCommand(verb workload.Verb, fs *pflag.FlagSet) {
	c.verb = verb
	if verb == VerbProfiles {
		c.targets = nil
		fs.Var(&c.targets, "target", "a block device or file for the sd lines (repeat for several, or separate them with commas)")
		fs.IntVar(&c.threads, "threads", 0, "threads per target instead of the profile's own")
		return
	}
	all := pflag.NewFlagSet("vdbench", pflag.ContinueOnError)
	c.BindFlags(all)
	names := sourceFlags
	if verb == workload.VerbRun {
		names = slices.Concat(names, []string{"force", "overwrite-files", "ioengine"})
		fs.StringVarP(&c.resultsDir, "results-dir", "o", "output", "directory for the results (created if missing, as vdbench's -o)")
	}
	for _, n := range names {
		fs.AddFlag(all.Lookup(n))
	}
}

// SetCommand implements workload.Commander: path starts the messages;
// args are at most a parameter FILE (run, parse) or a profile NAME.
func (c *Config) SetCommand(path string, args []string) { c.command, c.args = path, args }

// validateProfiles checks the input of profiles: at most a NAME, which
// must be a profile, and --target and --threads only with it.
func (c *Config) validateProfiles() error {
	switch {
	case len(c.args) > 1:
		return c.errf("takes at most one profile NAME (got %d arguments)", len(c.args))
	case len(c.args) == 0 && (len(c.targets) > 0 || c.threads != 0):
		return c.errf("--target and --threads need a profile NAME")
	case len(c.args) == 0:
		return nil
	}
	p, err := parmfile.ProfileByName(c.args[0])
	if err != nil {
		return c.errf("%v", err)
	}
	if _, err := p.Render(c.targets, c.threads); err != nil {
		return err
	}
	c.prof = &p
	return nil
}

// Info implements workload.Informer: profiles lists the profiles, or
// prints the one named as a parameter file on --target; parse prints
// what run would do (Params.Describe).
func (c *Config) Info(w io.Writer, verb workload.Verb) error {
	var text string
	var err error
	switch {
	case verb == VerbProfiles && c.prof == nil:
		return parmfile.WriteProfileList(w)
	case verb == VerbProfiles:
		text, err = c.prof.Render(c.targets, c.threads)
	case verb == VerbParse && c.params != nil:
		text, err = c.params.Describe()
	default:
		return fmt.Errorf("vdbench: no information command %q (valid: %s, %s)", verb, VerbProfiles, VerbParse)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}

// RunDir implements workload.DirRunner: after checkBeforeRun, it
// creates the results directory (-o) and writes parmfile.vdb, creates
// the file targets (blockio.CreateFiles), then runs each run in turn, writing
// its files (WriteRunResults) and summary.txt as it completes and
// printing its curve table and summary to out. A run that fails before
// it measures anything, as the first, leaves nothing behind.
func (c *Config) RunDir(ctx context.Context, out io.Writer, env workload.Env) error {
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	if err := c.checkBeforeRun(); err != nil {
		return &workload.FlagError{Err: err}
	}
	dir := c.resultsDir
	undo, err := c.startResults(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "vdbench: %d run(s), results in %s\n", len(c.runs), dir)
	o := c.targetOptions()
	o.Progress = log
	created, err := blockio.CreateFiles(ctx, c.runs, o)
	if err != nil {
		undo()
		return err
	}
	var summary bytes.Buffer
	bases := RunFileBases(c.runs)
	renv := workload.Env{Observer: c.IntervalWriter(out)}
	for i, run := range c.runs {
		o, runErr := c.RunOne(ctx, renv, i)
		if o == nil {
			if i == 0 {
				blockio.RemoveCreated(created)
				undo()
			}
			return runErr
		}
		title := run.Name
		if c.prof != nil {
			title = c.prof.Title
		}
		files, err := WriteRunResults(dir, bases[i], title, o.Record.(*RunRecord), &summary)
		if err == nil {
			err = atomicfile.Write(filepath.Join(dir, "summary.txt"), summary.Bytes())
		}
		fmt.Fprintf(out, "\n%s", LastRun(summary.String()))
		if err != nil {
			return errors.Join(runErr, fmt.Errorf("writing results: %w", err))
		}
		fmt.Fprintf(log, "results: %s\n", strings.Join(files, ", "))
		if runErr != nil {
			return runErr
		}
	}
	return nil
}

// startResults makes dir a writable directory (a *workload.FlagError
// naming --results-dir when it cannot be) and writes parmfile.vdb, the
// parameters as run, into it. undo removes what it wrote: the file, and
// dir when it made it (and nothing else has been put there).
func (c *Config) startResults(dir string) (undo func(), err error) {
	if dir == "" {
		return nil, &workload.FlagError{Flags: []string{"results-dir"}, Err: errors.New("--results-dir: empty; name a directory (default output)")}
	}
	_, statErr := os.Stat(dir)
	if err := checkWritableDir(dir); err != nil {
		return nil, &workload.FlagError{Flags: []string{"results-dir"}, Err: fmt.Errorf("--results-dir: %w", err)}
	}
	parmfile := filepath.Join(dir, "parmfile.vdb")
	undo = func() {
		os.Remove(parmfile)
		if statErr != nil {
			os.Remove(dir) // only when empty: never anything else
		}
	}
	if err := atomicfile.Write(parmfile, []byte(c.params.Text())); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// checkWritableDir creates dir if missing and checks that a file can be
// created in it.
func checkWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".vmbench-write-test-*")
	if err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
