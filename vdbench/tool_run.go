package vdbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"vmbench/internal/atomicfile"
	"vmbench/oltp"
	"vmbench/vdbench/blockio"
	"vmbench/vdbench/parmfile"
	"vmbench/workload"
)

// Prepare implements workload.Config: with --temporary-targets it creates
// and fills the target files that do not exist yet (progress to env.Log),
// and where their file system refuses O_DIRECT it runs them with buffered
// I/O (openflags=none), saying so once, when it creates them. Otherwise
// it does nothing: the run opens (and, for a file with size=, creates)
// its targets itself.
func (c *Config) Prepare(ctx context.Context, env workload.Env) error {
	if !c.temporaryTargets || len(c.runs) == 0 {
		return nil
	}
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	sds, _ := blockio.TargetSDs(c.runs)
	for _, sd := range sds {
		_, statErr := os.Stat(sd.Lun)
		t, err := blockio.OpenTarget(sd, blockio.TargetOptions{Write: true, Progress: log, Context: ctx})
		if err != nil && errors.Is(err, syscall.EINVAL) && !slices.Contains(sd.OpenFlags, "none") {
			if errors.Is(statErr, os.ErrNotExist) {
				fmt.Fprintf(log, "simulation: %s refuses O_DIRECT; the temporary targets use buffered I/O (openflags=none), which measures the page cache\n",
					filepath.Dir(sd.Lun))
			}
			for i := range c.runs {
				for j := range c.runs[i].SDs {
					c.runs[i].SDs[j].OpenFlags = []string{"none"}
				}
			}
			sd.OpenFlags = []string{"none"}
			t, err = blockio.OpenTarget(sd, blockio.TargetOptions{Write: true, Progress: log, Context: ctx})
		}
		if err != nil {
			return fmt.Errorf("simulation: creating %s: %w", sd.Lun, err)
		}
		if err := t.Close(); err != nil {
			return fmt.Errorf("simulation: %s: %w", sd.Lun, err)
		}
	}
	return nil
}

// Run implements workload.Config for a Config of one run (a profile; a
// parameter file of several runs is run with RunOne each): see RunOne.
func (c *Config) Run(ctx context.Context, env workload.Env) (*workload.Output, error) {
	if len(c.runs) != 1 {
		return nil, fmt.Errorf("vdbench: %d runs to run; Run runs one (Validate first, or RunOne each)", len(c.runs))
	}
	return c.RunOne(ctx, env, 0)
}

// RunOne runs the i-th run of Runs: its max run and curve points. The
// engine's interval lines go, in vdbench's format, to env.Observer when it
// is the Observer of IntervalWriter; one progress line per point, and the
// review summary at the end, go to env.Log. With env.StartAt the points
// start on the planned grid of blockio.Options.StartAt (run i's grid after the
// planned grids of the runs before it). The Output's Result is the
// max run's merged Result, its Record the *RunRecord of every point. After
// a failure or Ctrl-C with points measured it returns them beside the
// error; with none, a nil Output.
func (c *Config) RunOne(ctx context.Context, env workload.Env, i int) (*workload.Output, error) {
	run := c.runs[i]
	var out io.Writer
	if lo, ok := env.Observer.(lineObserver); ok {
		out = lo.w
	}
	log := env.Log
	if log == nil {
		log = io.Discard
	}
	pw := blockio.NewProgressWriter(out, log, run.PointCount())
	start := env.StartAt
	if !start.IsZero() {
		for _, r := range c.runs[:i] { // run i's grid follows those of the runs before it
			start = start.Add(blockio.PlanLength(r))
		}
	}
	cr, runErr := blockio.Execute(ctx, run, blockio.Options{Force: c.force, OverwriteFiles: c.overwriteFiles, Out: pw, Labels: c.labels(env), Engine: c.engine.engine(), StartAt: start})
	pw.Flush()
	if cr == nil {
		return nil, runErr
	}
	rec, err := NewRunRecord(run, cr, runErr)
	if err != nil {
		return nil, errors.Join(runErr, err)
	}
	if c.prof != nil {
		rec.Profile, rec.Title, rec.Approximation = c.prof.Name, c.prof.Title, c.prof.Approximation
	}
	o := &workload.Output{Record: rec}
	if len(cr.Points) > 0 {
		o.Result = cr.Points[0].Result
		s := Summarize(cr)
		fmt.Fprintf(log, "    %s: start %s IOPS @ %s; peak %s IOPS @ %s; 100 µs: %s; 1 ms: %s\n", c.name(), fmtIOPS(s.StartIOPS),
			fmtLatency(s.StartLatency), fmtIOPS(s.PeakIOPS), fmtLatency(s.PeakLatency), CrossingText(s.Cross100us), CrossingText(s.Cross1ms))
	}
	return o, runErr
}

// name is the profile's name, or the first run's.
func (c *Config) name() string {
	if c.prof != nil {
		return c.prof.Name
	}
	if len(c.runs) > 0 {
		return c.runs[0].Name
	}
	return ""
}

// lineObserver is the Observer of IntervalWriter: the engine writes its
// interval lines to w as text (it reports per point, in vdbench's format,
// not in oltp.IntervalReports).
type lineObserver struct{ w io.Writer }

func (lineObserver) Phase(oltp.Phase, time.Duration) {}
func (lineObserver) Interval(oltp.IntervalReport)    {}

// IntervalWriter implements workload.Reporter: pass it as env.Observer
// and Run writes vdbench's interval lines to w.
func (c *Config) IntervalWriter(w io.Writer) workload.Observer { return lineObserver{w: w} }

// WriteReport implements workload.Reporter: the curve table and, when a
// point was measured, the review summary of o's record.
func (c *Config) WriteReport(w io.Writer, o *workload.Output) error {
	cr := recordOf(o).curveResult()
	if err := WriteCurve(w, cr); err != nil {
		return err
	}
	if len(cr.Points) == 0 {
		return nil
	}
	return WriteSummary(w, Summarize(cr))
}

// recordOf is o's RunRecord (an empty one for an Output of another tool).
func recordOf(o *workload.Output) *RunRecord {
	if o != nil {
		if r, ok := o.Record.(*RunRecord); ok {
			return r
		}
	}
	return &RunRecord{}
}

// Plan implements workload.Preflighter.
func (c *Config) Plan() string {
	threads, sds := 0, 0
	if len(c.runs) > 0 {
		sds = len(c.runs[0].SDs)
		for _, sd := range c.runs[0].SDs {
			threads += sd.Threads
		}
	}
	head := c.name()
	if c.prof != nil {
		approx := ""
		if c.prof.Approximation {
			approx = ", APPROXIMATION"
		}
		head += " (" + c.prof.Title + approx + ")"
	}
	points := 0
	for _, r := range c.runs {
		points += r.PointCount()
	}
	return fmt.Sprintf("%s: %d target(s), %d threads in all, %d points, about %s", head, sds, threads, points, c.Bounds().Time.Round(time.Second))
}

// flagOfKeyword maps a parameter that blockio.CheckBounds names to the option
// that sets it.
var flagOfKeyword = map[string]string{"threads": "threads", "forthreads": "threads", "interval": "interval", "elapsed": "elapsed", "sd": "target"}

// CheckHost implements workload.Preflighter: blockio.CheckBounds for the runs
// (each problem a *workload.FlagError naming --threads, --interval,
// --elapsed or --target when one sets the value, else none) and
// blockio.CheckSpace (naming --size).
func (c *Config) CheckHost() error {
	var errs []error
	var joined interface{ Unwrap() []error }
	if err := blockio.CheckBounds("", c.runs, blockio.ReadHostLimits(), c.engine.engine()); err != nil {
		list := []error{err}
		if errors.As(err, &joined) {
			list = joined.Unwrap()
		}
		for _, e := range list {
			fe := &workload.FlagError{Err: e}
			var pe *parmfile.ParseError
			if errors.As(e, &pe) && flagOfKeyword[pe.Keyword] != "" {
				fe.Flags = []string{flagOfKeyword[pe.Keyword]}
			}
			errs = append(errs, fe)
		}
	}
	if err := blockio.CheckSpace(c.runs); err != nil {
		errs = append(errs, &workload.FlagError{Flags: []string{"size"}, Err: &parmfile.ParseError{Keyword: "size", Msg: err.Error()}})
	}
	return errors.Join(errs...)
}

// CheckTargets implements workload.Preflighter (see the function
// CheckTargets).
func (c *Config) CheckTargets() error { return blockio.CheckTargets(c.runs, c.targetOptions()) }

// checkBeforeRun is the CLI's check before anything is created: the
// host's bounds, the targets and the free space, as CheckHost and
// CheckTargets check them, and that io_uring is available for
// --ioengine io_uring, with the messages naming the parameter file's
// lines, or "--profile NAME".
func (c *Config) checkBeforeRun() error {
	source, file := c.params.File, c.params.File
	if c.prof != nil {
		source, file = "--profile "+c.prof.Name, ""
	}
	if err := blockio.CheckBounds(file, c.runs, blockio.ReadHostLimits(), c.engine.engine()); err != nil {
		if file == "" {
			return fmt.Errorf("%s: %w", source, err)
		}
		return err
	}
	if err := blockio.CheckTargets(c.runs, c.targetOptions()); err != nil {
		return err
	}
	if err := blockio.CheckSpace(c.runs); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if c.engine.engine() == blockio.EngineURing {
		if err := blockio.ProbeURing(); err != nil {
			return c.errf("--ioengine %s: %v (--ioengine %s works without it)", blockio.EngineURing, err, blockio.EnginePsync)
		}
	}
	return nil
}

// Title implements workload.RowReviewer: the profile's title, or the
// first run's name.
func (c *Config) Title() string {
	if c.prof != nil {
		return c.prof.Title
	}
	return c.name()
}

// WriteResults implements workload.ResultWriter: base.json (the
// RunRecord), the charts (WriteCharts) and base.txt (every point's
// interval lines, the curve table and the review summary). The interval
// lines of a point that ran are the text the engine printed while it ran
// ("Starting RD=", the interval lines and the avg line, byte for byte what
// Run wrote to the IntervalWriter); a point read back from a record has
// none, and blockio.WriteIntervals renders its lines from its merged Result.
func (c *Config) WriteResults(dir, base string, o *workload.Output) ([]string, error) {
	rec := recordOf(o)
	cr := rec.curveResult()
	var text strings.Builder
	for _, p := range cr.Points {
		if p.Printed != "" {
			text.WriteString(p.Printed)
			continue
		}
		if err := blockio.WriteIntervals(&text, p); err != nil {
			return nil, err
		}
	}
	if err := rec.WriteFile(filepath.Join(dir, base+".json")); err != nil {
		return nil, err
	}
	files := []string{base + ".json"}
	charts, err := WriteCharts(dir, base, c.Title(), rec)
	files = append(files, charts...)
	if err != nil {
		return files, err
	}
	text.WriteString("\n")
	if err := c.WriteReport(&text, o); err != nil {
		return files, err
	}
	if err := atomicfile.Write(filepath.Join(dir, base+".txt"), []byte(strings.TrimPrefix(text.String(), "\n"))); err != nil {
		return files, err
	}
	return append(files, base+".txt"), nil
}
