package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"

	"vmbench/workload"
)

// forRun returns the suite as it runs: itself, or with simulate the
// Simulated suite on temporary files in a new temporary directory, which
// done removes.
func (s *Suite) forRun(simulate bool) (run *Suite, done func(), err error) {
	if !simulate {
		return s, func() {}, nil
	}
	if s.Simulate == nil {
		return nil, nil, fmt.Errorf("%s: --simulate needs a simulate: block (targets, size, elapsed, interval, warmup, curve)", s.file())
	}
	tmp, err := os.MkdirTemp("", "vmbench-suite-")
	if err != nil {
		return nil, nil, err
	}
	return s.Simulated(tmp), func() { os.RemoveAll(tmp) }, nil
}

// check validates run (the suite as it runs) and checks it against this
// host and, unless simulated, its targets; it creates nothing.
func (s *Suite) check(run *Suite) ([]SuitePlan, error) {
	if run.SimulatedTargets {
		if err := run.Validate(); err != nil {
			return nil, fmt.Errorf("%s (simulate: block): %w", s.file(), err)
		}
	}
	plans, err := run.Configs()
	if err != nil {
		return nil, err
	}
	if err := run.CheckHost(plans); err != nil {
		if run.SimulatedTargets {
			return nil, fmt.Errorf("with --simulate: %w", err)
		}
		return nil, err
	}
	if !run.SimulatedTargets {
		if err := run.CheckTargets(plans); err != nil {
			return nil, fmt.Errorf("%s: targets: %w", s.file(), err)
		}
	}
	return plans, nil
}

// CheckSuite checks a block suite (as loaded; opts.Simulate runs its
// simulate: block) before anything is created: the file, each profile
// with the suite's values, this host's bounds and free space, and the
// targets (exist, can be opened, not in use, no signature unless force:).
// Every error is bad input, naming the file and line.
func CheckSuite(s *Suite, opts Options) error {
	run, done, err := s.forRun(opts.Simulate)
	if err != nil {
		return err
	}
	defer done()
	_, err = s.check(run)
	return err
}

// RunSuite runs a block-suite campaign: its profiles one after the
// other on its targets, or with opts.Simulate on temporary files in a
// temporary directory (removed at the end), with the file's simulate:
// block. It checks first as CheckSuite does.
//
// Results go to a ResultsDir in opts.ResultsDir: suite.yaml (the suite as
// run), per profile the tool's files (ResultWriter: <profile>.json,
// <profile>.svg, <profile>-targets.svg, <profile>.txt) and report.md, the
// review summary table with links to them; the table also goes to
// opts.Out at the end, the interval lines as they come, and progress to
// opts.Log. After a failure or Ctrl-C the directory keeps the profiles
// completed (it is removed when there are none).
func RunSuite(ctx context.Context, s *Suite, opts Options) (*Outcome, error) {
	run, done, err := s.forRun(opts.Simulate)
	if err != nil {
		return nil, err
	}
	defer done()
	plans, err := s.check(run)
	if err != nil {
		return nil, err
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = "results"
	}
	out, log := orDiscard(opts.Out), orDiscard(opts.Log)
	now := time.Now()
	rd, err := CreateResultsDir(opts.ResultsDir, s.Name, now)
	if err != nil {
		return nil, err
	}
	resolved, err := yaml.Marshal(run)
	if err == nil {
		err = rd.Write("suite.yaml", resolved)
	}
	if err != nil {
		rd.Discard()
		return nil, err
	}
	fmt.Fprintf(log, "block suite %s: results in %s\n", rd.ID, rd.Final)
	w := &suiteReport{dir: rd, suite: run, start: now, version: opts.Version}
	if err := run.execute(ctx, plans, out, log, w); err != nil {
		if len(w.rows) == 0 {
			rd.Discard() // nothing measured: leave nothing behind
			return nil, fmt.Errorf("block suite %s: %w", s.Name, err)
		}
		return nil, fmt.Errorf("block suite %s: %w (the %d profile(s) measured until then are in %s)", s.Name, err, len(w.rows), rd.Path)
	}
	if err := rd.Complete(); err != nil {
		return nil, err
	}
	fmt.Fprintln(out)
	w.table(out)
	return &Outcome{Dir: rd.Final}, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// execute prepares every profile (a simulated suite creates its files),
// checks the targets, then runs the profiles in order, writing each one's
// results as it completes.
func (s *Suite) execute(ctx context.Context, plans []SuitePlan, out, log io.Writer, w *suiteReport) error {
	env := workload.Env{Log: log, Labels: map[string]string{"suite": s.Name}}
	var total time.Duration
	for _, p := range plans {
		if err := p.Config.Prepare(ctx, env); err != nil {
			return err
		}
		total += p.Config.Bounds().Time
	}
	if err := s.CheckTargets(plans); err != nil {
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
			if err := w.profile(p, o, runErr != nil); err != nil {
				return errors.Join(runErr, err)
			}
		}
		if runErr != nil {
			return fmt.Errorf("profile %s: %w", p.Profile, runErr)
		}
	}
	return nil
}

// suiteReport writes each profile's files as it completes, and report.md.
type suiteReport struct {
	dir     *ResultsDir
	suite   *Suite
	start   time.Time
	version string
	headers []string
	rows    []suiteRow
}

type suiteRow struct {
	profile, title string
	cells, charts  []string
}

// profile writes the files of one profile's Output and rewrites
// report.md; stopped says the profile was cut short.
func (w *suiteReport) profile(p SuitePlan, o *workload.Output, stopped bool) error {
	row := suiteRow{profile: p.Profile, title: p.Profile, cells: []string{p.Profile}}
	if rw, ok := p.Config.(workload.ResultWriter); ok {
		files, err := rw.WriteResults(w.dir.Path, p.Profile, o)
		if err != nil {
			return err
		}
		for _, f := range files {
			if strings.HasSuffix(f, ".svg") {
				row.charts = append(row.charts, f)
			}
		}
	}
	if rr, ok := p.Config.(workload.RowReviewer); ok {
		w.headers, row.title, row.cells = rr.ReviewHeaders(), rr.Title(), rr.ReviewRow(o)
	} else if stopped {
		row.cells[0] += " (interrupted)"
	}
	w.rows = append(w.rows, row)
	return w.writeReport()
}

// table writes the review summary as a text table.
func (w *suiteReport) table(out io.Writer) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(w.headers, "\t"))
	for _, r := range w.rows {
		fmt.Fprintln(tw, strings.Join(r.cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(out, "latency: mean service time of each I/O; † APPROXIMATION: a mix the reviews do not publish")
}

// writeReport (re)writes report.md with the profiles completed so far.
func (w *suiteReport) writeReport() error {
	s := w.suite
	var b strings.Builder
	fmt.Fprintf(&b, "# Block suite %s\n\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", s.Description)
	}
	if s.SimulatedTargets {
		fmt.Fprintf(&b, "Simulated: %d temporary files of %s each, removed after the run; the figures measure this host's file system, not a drive.\n\n",
			len(s.Targets), s.Size)
	} else {
		fmt.Fprintf(&b, "Targets: %s.\n\n", strings.Join(s.Targets, ", "))
	}
	if s.Source != "" {
		fmt.Fprintf(&b, "Protocol: %s. ", s.Source)
	}
	fmt.Fprintf(&b, "Started %s, vmbench %s. Latency is the mean service time of each I/O (vdbench's response time); "+
		"crossings are interpolated between curve points; the peak is the highest achieved rate, the max run included.\n\n",
		w.start.Format(time.RFC3339), w.version)
	fmt.Fprintf(&b, "| %s | charts |\n|%s---|\n", strings.Join(w.headers, " | "), strings.Repeat("---|", len(w.headers)))
	for _, r := range w.rows {
		var links []string
		for _, c := range r.charts {
			label := "latency vs IOPS"
			if strings.HasSuffix(c, "-targets.svg") {
				label = "per target"
			}
			links = append(links, fmt.Sprintf("[%s](%s)", label, c))
		}
		links = append(links, fmt.Sprintf("[data](%s.json)", r.profile), fmt.Sprintf("[intervals](%s.txt)", r.profile))
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(r.cells, " | "), strings.Join(links, ", "))
	}
	b.WriteString("\n† APPROXIMATION: the reviews do not publish this mix; vmbench's profile defines one from public facts (`vmbench vdbench profiles NAME`).\n")
	for _, r := range w.rows {
		for _, c := range r.charts {
			if !strings.HasSuffix(c, "-targets.svg") {
				fmt.Fprintf(&b, "\n## %s\n\n![%s](%s)\n", r.title, r.title, c)
			}
		}
	}
	return w.dir.Write("report.md", []byte(b.String()))
}
