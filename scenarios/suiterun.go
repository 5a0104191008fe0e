package scenarios

import (
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

// suiteForRun returns suite s as it runs: itself, or with simulate the
// Simulated suite on temporary files in a new temporary directory, which
// done removes.
func suiteForRun(s *spec.Suite, simulate bool) (run *spec.Suite, done func(), err error) {
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

// checkSuiteRun validates run (suite s as it runs) and checks it against this
// host and, unless simulated, its targets; it creates nothing.
func checkSuiteRun(s, run *spec.Suite) ([]spec.SuitePlan, error) {
	if run.SimulatedTargets {
		if err := run.Validate(); err != nil {
			return nil, fmt.Errorf("%s (simulate: block): %w", s.File(), err)
		}
	}
	plans, err := run.Configs()
	if err != nil {
		return nil, err
	}
	if err := checkSuiteHost(run, plans); err != nil {
		if run.SimulatedTargets {
			return nil, fmt.Errorf("with --simulate: %w", err)
		}
		return nil, err
	}
	if !run.SimulatedTargets {
		if err := checkSuiteTargets(plans); err != nil {
			return nil, fmt.Errorf("%s: targets: %w", s.File(), err)
		}
	}
	return plans, nil
}

// CheckSuite checks a block suite (as loaded; opts.Simulate runs its
// simulate: block) before anything is created: the file, each profile
// with the suite's values, this host's bounds and free space, and the
// targets (exist, can be opened, not in use, no signature unless force:).
// Every error is bad input, naming the file and line.
func CheckSuite(s *spec.Suite, opts Options) error {
	if s.InVMs() {
		_, err := checkVMSuite(s, opts)
		return err
	}
	run, done, err := suiteForRun(s, opts.Simulate)
	if err != nil {
		return err
	}
	defer done()
	_, err = checkSuiteRun(s, run)
	return err
}

// RunSuite runs a block-suite campaign: its profiles one after the
// other on its targets, or with opts.Simulate on temporary files in a
// temporary directory (removed at the end), with the file's simulate:
// block. It checks first as CheckSuite does.
//
// Results go to a ResultsDir in opts.ResultsDir: suite.yaml (the suite as
// run), run.json (RunInfo: the start, the vmbench version, simulated),
// per profile the tool's files (ResultWriter: <profile>.json,
// <profile>.svg, <profile>-targets.svg, <profile>.txt), and report.md and
// report.csv (review.WriteReports, after each profile), the review summary
// table with links to them; the table also goes to
// opts.Out at the end, the interval lines as they come, and progress to
// opts.Log. After a failure or Ctrl-C the directory keeps the profiles
// completed (it is removed when there are none).
//
// A suite with a vms: block runs inside block-worker VMs instead
// (runVMSuite): provisioned, each profile in every VM at once, merged
// point by point, and destroyed at the end, as a VM campaign's are.
func RunSuite(ctx context.Context, s *spec.Suite, opts Options) (*Outcome, error) {
	if s.InVMs() {
		return runVMSuite(ctx, s, opts)
	}
	run, done, err := suiteForRun(s, opts.Simulate)
	if err != nil {
		return nil, err
	}
	defer done()
	plans, err := checkSuiteRun(s, run)
	if err != nil {
		return nil, err
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = "results"
	}
	out, log := orDiscard(opts.Out), orDiscard(opts.Log)
	now := time.Now()
	rd, err := rundir.CreateResultsDir(opts.ResultsDir, s.Name, now)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	fmt.Fprintf(log, "block suite %s: results in %s\n", rd.ID, rd.Final)
	w := &suiteReport{dir: rd}
	if err := executeSuite(ctx, run, plans, out, log, w); err != nil {
		if w.measured == 0 {
			rd.Discard() // nothing measured: leave nothing behind
			return nil, fmt.Errorf("block suite %s: %w", s.Name, err)
		}
		return nil, fmt.Errorf("block suite %s: %w (the %d profile(s) measured until then are in %s)", s.Name, err, w.measured, rd.Path)
	}
	if err := rd.Complete(); err != nil {
		return nil, err
	}
	fmt.Fprintln(out)
	if w.last != nil {
		if err := w.last.WriteText(out); err != nil {
			return nil, err
		}
	}
	return &Outcome{Dir: rd.Final}, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// executeSuite prepares every profile of suite s (a simulated suite creates its files),
// checks the targets, then runs the profiles in order, writing each one's
// results as it completes.
func executeSuite(ctx context.Context, s *spec.Suite, plans []spec.SuitePlan, out, log io.Writer, w *suiteReport) error {
	env := workload.Env{Log: log, Labels: map[string]string{"suite": s.Name}}
	var total time.Duration
	for _, p := range plans {
		if err := p.Config.Prepare(ctx, env); err != nil {
			return err
		}
		total += p.Config.Bounds().Time
	}
	if err := checkSuiteTargets(plans); err != nil {
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

// suiteReport writes each profile's files as it completes, then the
// reports (review.WriteReports), rendered from the directory as `vmbench report
// DIR` renders them.
type suiteReport struct {
	dir *rundir.ResultsDir
	// measured counts the profiles whose files were written.
	measured int
	// last is the Report rendered after the last profile.
	last *review.Report
}

// profile writes the files of one profile's Output (the tool's
// workload.ResultWriter) and rewrites the reports (review.WriteReports).
func (w *suiteReport) profile(p spec.SuitePlan, o *workload.Output) error {
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
