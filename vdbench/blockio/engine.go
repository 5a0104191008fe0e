package blockio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/parmfile"
)

// Options says how Execute runs.
type Options struct {
	// Force writes to targets that carry a partition table or file-system
	// signature (never to mounted or held devices).
	Force bool
	// OverwriteFiles writes to existing files that vmbench did not make
	// (TargetOptions.OverwriteFiles).
	OverwriteFiles bool
	// Out receives vdbench-style interval lines; nil for none.
	Out io.Writer
	// Labels are copied into every Result (vm, host, datastore...); the
	// per-SD Results also get "sd" and "lun".
	Labels map[string]string
	// Backend opens an SD's backend; nil opens the real target
	// (OpenTarget). A Backend that implements Geometry gives the capacity
	// and block size; otherwise size= and 512-byte blocks are used.
	Backend func(sd parmfile.SD) (Backend, error)
	// Engine is the I/O engine: EnginePsync ("" too) or EngineURing,
	// which needs backends with a descriptor (Target) and io_uring.
	Engine string
	// StartAt, when set, is the common start of the run's points (one
	// instant for every VM of a campaign): the points start on a planned
	// grid (see PointGap) and each Point keeps its planned start; a point
	// ready after its planned start starts at once, with a warning. Zero:
	// each point starts startDelay after it is ready.
	StartAt time.Time
}

// startDelay is how far ahead Execute sets each point's common start, so
// every SD's threads are ready when it comes.
const startDelay = 100 * time.Millisecond

// Execute runs one expanded run: the max run and curve points of
// iorate=curve, each rate of iorate=N, or the max run of iorate=max.
//
// Each point runs every SD at once, from a common start: per SD an
// oltp.Run with one thread per SD thread (each an oltp.Worker issuing one
// blocking pread or pwrite per event), the point's rate split equally
// over the SDs, arrivals from distribution= (closed loop for max), warmup=
// as the precondition phase, elapsed= as the measure phase and interval=
// as the report interval (see phases: without warmup=, the first interval
// is the precondition, as vdbench leaves it out of its averages). The SDs'
// Results are merged exactly into the point's Result; Point.PerSD keeps
// them. A seekpct=eof stream that reaches the end of its span ends its
// SD's run normally (a warning says when).
//
// A blocked pread holds its P until sysmon hands it off, so the I/O in
// flight is capped near GOMAXPROCS, not by the thread count: with the
// psync engine Execute raises runtime.GOMAXPROCS (and debug.SetMaxThreads
// when needed) to the total thread count for its duration and restores
// them after. With opts.Engine EngineURing each SD gets one io_uring of
// threads= slots, and GOMAXPROCS is left as it is: a closed-loop point
// (max) is driven by one goroutine per SD that starts every thread's I/O
// on its slot and reaps the completions itself (ringPipeline, an
// oltp.Pipeline); at a set rate each thread's Event queues its I/O and
// waits for the ring's reaper goroutine to hand it the completion
// (uring_linux.go), so the threads are goroutines, not OS threads; an SD whose backend has no descriptor, or a host where
// io_uring cannot be set up, is an error. Each Result's Measured text
// says which.
//
// Warnings (CurveResult.Warnings) are also written to opts.Out: that a
// file target is on tmpfs or ramfs before the run, the others after it. On error
// or cancellation the points completed so far are returned with the
// error; an error closing a target (openflags=fsync) is returned too.
func Execute(ctx context.Context, run parmfile.Run, opts Options) (cr *CurveResult, err error) {
	loads, err := prepare(ctx, run, opts)
	defer func() {
		err = errors.Join(err, closeRings(loads))
		for _, l := range loads {
			if cerr := l.backend.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("sd=%s: closing %s: %w", l.sd.Name, l.sd.Lun, cerr))
			}
		}
	}()
	if err == nil && opts.Engine == EngineURing {
		err = setUpRings(loads)
	}
	if err != nil {
		return nil, err
	}
	threads := 0
	for _, l := range loads {
		threads += l.sd.Threads
	}
	note, restore := engineNote(opts.Engine, threads)
	defer restore()
	e := &engine{run: run, opts: opts, loads: loads, note: note}
	if !opts.StartAt.IsZero() {
		e.grid = &pointGrid{next: opts.StartAt}
	}
	cr = &CurveResult{Run: run.Name, Warnings: targetWarnings(loads)}
	printWarnings(opts.Out, cr.Warnings) // before the run: its figures are not a disk's
	points, warnings, err := runPoints(run.RD, func(label string, rate float64) (Point, error) {
		return e.point(ctx, label, rate)
	})
	cr.Points = points
	later := append(warnings, e.warnings...)
	cr.Warnings = append(cr.Warnings, later...)
	printWarnings(opts.Out, later)
	return cr, err
}

// targetWarnings warns of each target whose I/O does not measure a disk:
// a file on tmpfs or ramfs (Target.MemoryFS).
func targetWarnings(loads []*sdLoad) []string {
	var ws []string
	for _, l := range loads {
		if t, ok := l.backend.(*Target); ok && t.MemoryFS {
			ws = append(ws, fmt.Sprintf("sd=%s: lun=%s is on %s: it measures memory, not a disk", l.sd.Name, l.sd.Lun, t.FileSystem))
		}
	}
	return ws
}

// printWarnings writes each warning to out (nil: nowhere) as a
// "warning: " line.
func printWarnings(out io.Writer, ws []string) {
	if out == nil {
		return
	}
	for _, w := range ws {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
}

// sdsOf is how many of the run's SDs wd uses.
func sdsOf(run parmfile.Run, wd parmfile.WD) int {
	n := 0
	for _, sd := range run.SDs {
		if slices.Contains(wd.SDs, sd.Name) {
			n++
		}
	}
	return n
}

// prepare opens every SD the run's WDs use and plans their mixes. The
// loads returned must be closed even with an error.
func prepare(ctx context.Context, run parmfile.Run, opts Options) ([]*sdLoad, error) {
	weights, err := skewWeights(run.WDs)
	if err != nil {
		return nil, fmt.Errorf("rd=%s: %w", run.RD.Name, err)
	}
	var loads []*sdLoad
	for _, sd := range run.SDs {
		var wds []int
		write := false
		for i, wd := range run.WDs {
			if slices.Contains(wd.SDs, sd.Name) {
				wds = append(wds, i)
				write = write || wd.RdPct < 100
			}
		}
		if len(wds) == 0 {
			continue
		}
		if sd.Threads <= 0 {
			sd.Threads = parmfile.DefaultThreads
		}
		b, err := openBackend(ctx, sd, write, opts)
		if err != nil {
			return loads, err
		}
		l := &sdLoad{sd: sd, index: len(loads), backend: b}
		loads = append(loads, l)
		capacity, block := sd.Size, int64(512)
		if g, ok := b.(Geometry); ok {
			capacity, block = g.Capacity(), g.BlockSize()
		}
		if capacity <= 0 {
			return loads, fmt.Errorf("sd=%s: %s has no capacity (and size= is not set)", sd.Name, sd.Lun)
		}
		if err := l.planMixes(run, wds, weights, capacity, block); err != nil {
			return loads, err
		}
	}
	if len(loads) == 0 {
		return nil, fmt.Errorf("rd=%s: no WD of the run uses any of its SDs", run.RD.Name)
	}
	return loads, nil
}

// openBackend opens sd: through opts.Backend when set, else as a Target
// (for writing when write is set).
func openBackend(ctx context.Context, sd parmfile.SD, write bool, opts Options) (Backend, error) {
	if opts.Backend != nil {
		return opts.Backend(sd)
	}
	t, err := OpenTarget(sd, TargetOptions{Write: write, Force: opts.Force, OverwriteFiles: opts.OverwriteFiles, Progress: opts.Out, Context: ctx})
	if t != nil {
		return t, err
	}
	return nil, err
}

// planMixes plans l's mix of each WD of run numbered in wds (the WDs on
// l's SD), on a capacity of capacity bytes in blocks of block bytes, and
// its cumulative weights and share of the run's I/O.
func (l *sdLoad) planMixes(run parmfile.Run, wds []int, weights []float64, capacity, block int64) error {
	var total float64
	for _, i := range wds {
		m, err := newMix(l.sd, run.WDs[i], capacity, block)
		if err != nil {
			return err
		}
		l.mixes = append(l.mixes, m)
		l.bufs.add(m)
		total += weights[i]
		l.cum = append(l.cum, total)
		l.share += weights[i] / float64(sdsOf(run, run.WDs[i]))
	}
	for i := range l.cum {
		l.cum[i] /= total
	}
	l.cum[len(l.cum)-1] = 1
	return nil
}

// raiseProcs raises GOMAXPROCS to at least threads, and the runtime's
// thread limit when threads come near it; restore puts both back.
func raiseProcs(threads int) (procs int, restore func()) {
	prev := runtime.GOMAXPROCS(0)
	procs = max(prev, threads)
	if procs != prev {
		runtime.GOMAXPROCS(procs)
	}
	need := threads + 1000 // blocked threads plus the runtime's own
	prevMax := -1
	if need > 10000 { // the default limit
		prevMax = debug.SetMaxThreads(need)
		if prevMax > need {
			debug.SetMaxThreads(prevMax)
		}
	}
	return procs, func() {
		if procs != prev {
			runtime.GOMAXPROCS(prev)
		}
		if prevMax > 0 {
			debug.SetMaxThreads(prevMax)
		}
	}
}

type engine struct {
	run      parmfile.Run
	opts     Options
	loads    []*sdLoad
	note     string // appended to each Result's Measured
	points   int
	grid     *pointGrid // nil without Options.StartAt
	mu       sync.Mutex // guards warnings
	warnings []string
}

// point runs every SD at rate (0 = max) from a common start and merges
// their Results.
func (e *engine) point(ctx context.Context, label string, rate float64) (Point, error) {
	rd := e.run.RD
	index := e.points
	e.points++
	arrival, err := arrivalOf(rd.Distribution)
	if err != nil {
		return Point{}, fmt.Errorf("rd=%s: %w", rd.Name, err)
	}
	eof := slices.ContainsFunc(e.run.WDs, func(wd parmfile.WD) bool { return wd.Seek.EOF })
	measure, warmup, interval := phases(rd, eof)
	requested := "max"
	if rate > 0 {
		requested = strconv.FormatFloat(rate, 'f', -1, 64)
	}
	flags := runFlags(e.run, label, requested, e.opts.Engine, warmup)
	var printed strings.Builder // the buffer first: a failing Out must not cut what the files keep
	ivOut := io.Writer(&printed)
	if e.opts.Out != nil {
		ivOut = io.MultiWriter(&printed, e.opts.Out)
	}
	ivs := newIntervalPrinter(ivOut, len(e.loads))
	ivs.start(e.run.Name, label, rate, rd, interval, arrival)
	startAt := time.Now().Add(startDelay)
	var scheduled time.Time
	if e.grid != nil {
		var late time.Duration
		if scheduled, startAt, late = e.grid.take(time.Now(), warmup+measure); late > 0 {
			e.addWarning(lateWarning(label, scheduled, late))
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*oltp.Result, len(e.loads))
	errs := make([]error, len(e.loads))
	var wg sync.WaitGroup
	for i, l := range e.loads {
		labels := maps.Clone(e.opts.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels["sd"], labels["lun"] = l.sd.Name, l.sd.Lun
		cfg := oltp.RunConfig{
			Threads: l.sd.Threads, Time: measure, WarmupTime: warmup, ReportInterval: interval,
			Rate: rate * l.share, Arrival: arrival, Seed: int64(index)<<16 | int64(i),
			StartAt: startAt, Flags: flags, Labels: labels,
			WorkersKeepTime: true, // elapsed= holds even when the runner is starved
			OnInterval:      func(r oltp.IntervalReport) { ivs.add(i, r) },
		}
		wg.Go(func() {
			res, err := e.runSD(ctx, label, index, l, cfg)
			if err != nil && !errors.Is(err, oltp.ErrInterrupted) {
				cancel() // a failing SD stops the others
			}
			results[i], errs[i] = res, err
		})
	}
	wg.Wait()
	ivs.flush()
	if err := pointError(e.loads, errs); err != nil {
		return Point{}, err
	}
	merged, err := e.mergePoint(label, results)
	if err != nil {
		return Point{}, err
	}
	var n int64
	for _, o := range merged.Ops {
		n += o.Latency.Count
	}
	ivs.average(merged)
	return Point{Label: label, Achieved: merged.PerSecond(n), Result: merged, PerSD: results, Scheduled: scheduled, Printed: printed.String()}, nil
}

// runSD runs SD l's share of point label (the engine's index-th point)
// with cfg. An SD that reaches the end of its span (seekpct=eof) in the
// measure phase ends normally, as in vdbench, with a warning; in the
// warm-up that is an error.
func (e *engine) runSD(ctx context.Context, label string, index int, l *sdLoad, cfg oltp.RunConfig) (*oltp.Result, error) {
	res, err := oltp.Run(ctx, l.spec(e.run.Name, index), cfg)
	if !errors.Is(err, ErrEndOfSpan) {
		return res, err
	}
	if res != nil && res.Phase == oltp.PhaseMeasure {
		e.addWarning(fmt.Sprintf("%s: sd=%s reached the end of its span (seekpct=eof) after %s of the measure phase",
			label, l.sd.Name, res.Elapsed.Round(time.Millisecond)))
		res.SetStatus(nil) // the normal end of an eof run, as in vdbench
		return res, nil
	}
	return res, errors.New("the end of its span (seekpct=eof) was reached during warmup=: make warmup= shorter, or the span (size=, range=) longer")
}

// mergePoint appends the engine's note to what each of point label's
// per-SD results says it measured, and merges them as concurrent runs
// into the point's Result. It warns when the SDs' measured windows
// drifted apart or a phase overran its planned length.
func (e *engine) mergePoint(label string, results []*oltp.Result) (*oltp.Result, error) {
	for _, r := range results {
		r.Measured += "; " + e.note
		if r.Precondition != nil {
			r.Precondition.Measured += "; " + e.note
		}
	}
	merged, err := oltp.MergeConcurrent(results...)
	if err != nil {
		return nil, fmt.Errorf("rd=%s, point %s: %w", e.run.RD.Name, label, err)
	}
	if _, err := oltp.Merge(results...); err != nil {
		e.addWarning(fmt.Sprintf("%s: the targets' measured windows drifted apart (the host was starved of CPU; figures are per target's own window): %v", label, err))
	}
	for _, r := range []*oltp.Result{merged.Precondition, merged} {
		if r == nil {
			continue
		}
		for _, ov := range r.Overruns {
			e.addWarning(fmt.Sprintf("%s, %s: %s; its I/Os are counted over the time it ran", label, r.Phase, ov))
		}
	}
	return merged, nil
}

func (e *engine) addWarning(w string) {
	e.mu.Lock()
	e.warnings = append(e.warnings, w)
	e.mu.Unlock()
}

// phases returns the oltp phases of a point of rd: the measure phase,
// the precondition phase and the report interval. Unset, elapsed= is 30 s
// and interval= min(elapsed/2, 60 s) in whole seconds (vdbench's
// defaults). warmup= is the precondition phase, and warmup=0 given means
// none: every interval of elapsed= is measured. Without warmup=, vdbench
// leaves the first interval out of the run's averages, so the first
// interval runs as the precondition phase and the measure phase is the
// rest of elapsed=, except in a run with a seekpct=eof stream (eof), which
// may end within its first interval: it is measured whole.
func phases(rd parmfile.RD, eof bool) (measure, warmup, interval time.Duration) {
	elapsed := rd.Elapsed
	if elapsed <= 0 {
		elapsed = parmfile.DefaultElapsed
	}
	interval = rd.Interval
	if interval <= 0 {
		interval = min(elapsed/2, parmfile.DefaultMaxInterval).Truncate(time.Second)
		if interval <= 0 {
			interval = elapsed / 2
		}
	}
	measure, warmup = elapsed, rd.Warmup
	if !rd.WarmupSet && warmup == 0 && !eof && elapsed >= 2*interval {
		measure, warmup = elapsed-interval, interval
	}
	return measure, warmup, interval
}

// pointError picks the error that explains a point's failure: a fatal
// SD error first (the others were cancelled because of it), else the
// interruption.
func pointError(loads []*sdLoad, errs []error) error {
	var interrupted error
	for i, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, oltp.ErrInterrupted):
			interrupted = err
		default:
			return fmt.Errorf("sd=%s: %w", loads[i].sd.Name, err)
		}
	}
	return interrupted
}

// arrivalOf maps distribution= onto the open loop's arrivals (a prefix
// such as "d" is accepted, as vdbench matches keywords).
func arrivalOf(d string) (oltp.Arrival, error) {
	d = strings.ToLower(strings.TrimSpace(d))
	if d == "" {
		return oltp.Exponential, nil
	}
	for _, a := range []oltp.Arrival{oltp.Exponential, oltp.Uniform, oltp.Deterministic} {
		if strings.HasPrefix(string(a), d) {
			return a, nil
		}
	}
	return "", fmt.Errorf("distribution=%s is not known (exponential, uniform or deterministic)", d)
}

// runFlags are the parameters that shaped a point, stored in each Result
// so that Merge refuses to mix points or runs. With one WD its keys are
// plain (xfersize, rdpct...); with several each is prefixed by the WD name
// (wd1.xfersize). Threads are per SD when the SDs differ. warmup is the
// precondition phase as run (phases): warmup=, the first interval when
// warmup= is not given, or 0.
func runFlags(run parmfile.Run, label, requested, engine string, warmup time.Duration) map[string]string {
	rd := run.RD
	if engine == "" {
		engine = EnginePsync
	}
	f := map[string]string{
		"rd": rd.Name, "point": label, "iorate": requested, "ioengine": engine,
		"elapsed": rd.Elapsed.String(), "warmup": warmup.String(), "interval": rd.Interval.String(),
		"distribution": rd.Distribution,
	}
	for _, wd := range run.WDs {
		p := ""
		if len(run.WDs) > 1 {
			p = wd.Name + "."
			f[p+"skew"] = strconv.FormatFloat(wd.Skew, 'f', -1, 64)
		}
		f[p+"sd"] = strings.Join(wd.SDs, ",")
		f[p+"xfersize"] = wd.Xfer.String()
		f[p+"rdpct"] = strconv.FormatFloat(wd.RdPct, 'f', -1, 64)
		f[p+"seekpct"] = wd.Seek.String()
		f[p+"rhpct"] = strconv.FormatFloat(wd.RhPct, 'f', -1, 64)
		f[p+"whpct"] = strconv.FormatFloat(wd.WhPct, 'f', -1, 64)
		f[p+"range"] = rangeString(wd.Range)
	}
	same := true
	for _, sd := range run.SDs {
		same = same && sd.Threads == run.SDs[0].Threads
	}
	for _, sd := range run.SDs {
		if same {
			f["threads"] = strconv.Itoa(sd.Threads)
		} else {
			f[sd.Name+".threads"] = strconv.Itoa(sd.Threads)
		}
		f[sd.Name+".range"] = rangeString(sd.Range)
	}
	return f
}

func rangeString(r [2]float64) string {
	if r[0] == 0 && r[1] == 0 {
		return "(0,100)"
	}
	return fmt.Sprintf("(%g,%g)", r[0], r[1])
}
