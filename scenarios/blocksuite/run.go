// Package blocksuite runs a block suite on this host's own drives or
// files: its profiles one after the other, each one's results written as
// it completes, the review rendered after each. A suite with a vms:
// block runs in VMs instead, through the campaign engine (package
// scenarios), which uses CheckHost for its profiles too.
package blocksuite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// forRun returns suite s as it runs: itself, or with simulate the
// Simulated suite on temporary files in a new temporary directory, which
// done removes.
func forRun(s *spec.Suite, simulate bool) (run *spec.Suite, done func(), err error) {
	if !simulate {
		return s, func() {}, nil
	}
	if s.Simulate == nil {
		return nil, nil, fmt.Errorf("%s: --simulate needs a simulate: block (targets, size, elapsed, interval, warmup, curve)", s.File())
	}
	tmp, err := os.MkdirTemp("", "vmbench-suite-")
	if err != nil {
		return nil, nil, err
	}
	return s.Simulated(tmp), func() { os.RemoveAll(tmp) }, nil
}

// checkRun validates run (suite s as it runs) and checks it against this
// host and, unless simulated, its targets; it creates nothing.
func checkRun(s, run *spec.Suite) ([]spec.SuitePlan, error) {
	if run.SimulatedTargets {
		if err := run.Validate(); err != nil {
			return nil, fmt.Errorf("%s (simulate: block): %w", s.File(), err)
		}
	}
	plans, err := run.Configs()
	if err != nil {
		return nil, err
	}
	if err := CheckHost(run, plans); err != nil {
		if run.SimulatedTargets {
			return nil, fmt.Errorf("with --simulate: %w", err)
		}
		return nil, err
	}
	if !run.SimulatedTargets {
		if err := checkTargets(plans); err != nil {
			return nil, fmt.Errorf("%s: targets: %w", s.File(), err)
		}
	}
	return plans, nil
}

// Options are a suite run's settings.
type Options struct {
	// Simulate runs the suite's simulate: block on temporary files.
	Simulate bool
	// ResultsDir is where the results directory is made ("results" when
	// empty); Version is the vmbench version run.json records.
	ResultsDir, Version string
	// Out takes the interval lines as they come and the review table at
	// the end; Log the progress. Either may be nil.
	Out, Log io.Writer
}

// Check checks suite s (as loaded; with simulate its simulate: block)
// before anything is created: the file, each profile with the suite's
// values, this host's bounds and free space, and the targets (exist, can
// be opened, not in use, no signature unless force:). Every error is
// bad input, naming the file and line.
func Check(s *spec.Suite, simulate bool) error {
	run, done, err := forRun(s, simulate)
	if err != nil {
		return err
	}
	defer done()
	_, err = checkRun(s, run)
	return err
}

// Run runs suite s: its profiles one after the other on its targets, or
// with opts.Simulate on temporary files in a temporary directory (removed
// at the end), with the file's simulate: block. It checks first as Check
// does, and returns the results directory.
//
// The results directory (package rundir) holds suite.yaml (the suite as
// run), run.json (the start, the vmbench version, simulated), per profile
// the tool's files (workload.ResultWriter: <profile>.json,
// <profile>.svg, <profile>-targets.svg, <profile>.txt), and report.md
// and report.csv (review.WriteReports, after each profile), the review
// summary table with links to them. After a failure or Ctrl-C the
// directory keeps the profiles completed (it is removed when there are
// none).
func Run(ctx context.Context, s *spec.Suite, opts Options) (string, error) {
	run, done, err := forRun(s, opts.Simulate)
	if err != nil {
		return "", err
	}
	defer done()
	plans, err := checkRun(s, run)
	if err != nil {
		return "", err
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = "results"
	}
	out, log := cmp.Or[io.Writer](opts.Out, io.Discard), cmp.Or[io.Writer](opts.Log, io.Discard)
	now := time.Now()
	rd, err := rundir.CreateResultsDir(opts.ResultsDir, s.Name, now)
	if err != nil {
		return "", err
	}
	resolved, err := yaml.Marshal(run)
	if err == nil {
		err = rd.Write("suite.yaml", resolved)
	}
	if err == nil {
		err = rundir.WriteRunInfo(rd.Path, rundir.RunInfo{Kind: rundir.SuiteRunKind, VMBench: opts.Version, Started: now, Simulated: run.SimulatedTargets})
	}
	if err != nil {
		rd.Discard()
		return "", err
	}
	fmt.Fprintf(log, "block suite %s: results in %s\n", rd.ID, rd.Final)
	w := &reporter{dir: rd}
	if err := execute(ctx, run, plans, out, log, w); err != nil {
		if w.measured == 0 {
			rd.Discard() // nothing measured: leave nothing behind
			return "", fmt.Errorf("block suite %s: %w", s.Name, err)
		}
		return "", fmt.Errorf("block suite %s: %w (the %d profile(s) measured until then are in %s)", s.Name, err, w.measured, rd.Path)
	}
	if err := rd.Complete(); err != nil {
		return "", err
	}
	fmt.Fprintln(out)
	if w.last != nil {
		if err := w.last.WriteText(out); err != nil {
			return "", err
		}
	}
	return rd.Final, nil
}

// execute prepares every profile of suite s (a simulated suite creates its files),
// checks the targets, then runs the profiles in order, writing each one's
// results as it completes.
func execute(ctx context.Context, s *spec.Suite, plans []spec.SuitePlan, out, log io.Writer, w *reporter) error {
	env := workload.Env{Log: log, Labels: map[string]string{"suite": s.Name}}
	var total time.Duration
	for _, p := range plans {
		if err := p.Config.Prepare(ctx, env); err != nil {
			return err
		}
		total += p.Config.Bounds().Time
	}
	if err := checkTargets(plans); err != nil {
		return err
	}
	fmt.Fprintf(log, "suite %s: %d profile(s) on %d target(s), about %s\n", s.Name, len(plans), len(s.Targets), total.Round(time.Second))
	for k, p := range plans {
		plan := p.Profile
		if pf, ok := p.Config.(workload.Preflighter); ok {
			plan = pf.Plan()
		}
		fmt.Fprintf(log, "==> [%d/%d] %s\n", k+1, len(plans), plan)
		env := env
		if rep, ok := p.Config.(workload.Reporter); ok {
			env.Observer = rep.IntervalWriter(out)
		}
		o, runErr := p.Config.Run(ctx, env)
		if o != nil && o.Result != nil {
			if err := w.profile(p, o); err != nil {
				return errors.Join(runErr, err)
			}
		}
		if runErr != nil {
			return fmt.Errorf("profile %s: %w", p.Profile, runErr)
		}
	}
	return nil
}

// reporter writes each profile's files as it completes, then the
// reports (review.WriteReports), rendered from the directory as `vmbench report
// DIR` renders them.
type reporter struct {
	dir *rundir.ResultsDir
	// measured counts the profiles whose files were written.
	measured int
	// last is the Report rendered after the last profile.
	last *review.Report
}

// profile writes the files of one profile's Output (the tool's
// workload.ResultWriter) and rewrites the reports (review.WriteReports).
func (w *reporter) profile(p spec.SuitePlan, o *workload.Output) error {
	rw, ok := p.Config.(workload.ResultWriter)
	if !ok {
		return fmt.Errorf("profile %s: the suite's tool %s writes no results (workload.ResultWriter)", p.Profile, spec.SuiteTool)
	}
	if _, err := rw.WriteResults(w.dir.Path, p.Profile, o); err != nil {
		return err
	}
	w.measured++
	rep, err := review.WriteReports(w.dir.Path)
	if err != nil {
		return err
	}
	w.last = rep
	return nil
}
