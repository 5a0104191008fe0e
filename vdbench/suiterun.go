package vdbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SuiteOptions say how RunSuite runs.
type SuiteOptions struct {
	// Force writes to targets that carry a signature, as the suite's
	// force: does.
	Force bool
	// Out receives the vdbench-style interval lines; nil for none.
	Out io.Writer
	// Log receives progress: the profile (k of N), each point with its
	// achieved rate, each profile's summary. Nil for none.
	Log io.Writer
	// Labels are copied into every Result; RunSuite adds "suite" and
	// "profile".
	Labels map[string]string
	// OnProfile, if set, is called after each profile, also after one that
	// was interrupted or failed with points measured (Err says so). An
	// error it returns stops the suite.
	OnProfile func(*ProfileResult) error
}

// ProfileResult is the outcome of one profile of a suite.
type ProfileResult struct {
	Plan SuitePlan
	// Curve holds the points measured (all of them unless Err is set).
	Curve   *CurveResult
	Summary Summary
	// Start and End bound the profile's run.
	Start, End time.Time
	// Err is why the profile stopped early (nil when it completed).
	Err error
}

// SuiteResult is the outcome of RunSuite: one ProfileResult per profile
// run, in order.
type SuiteResult struct {
	Suite      *Suite
	Start, End time.Time
	Profiles   []*ProfileResult
}

// RunSuite runs the suite's profiles one after the other on its targets.
//
// Before the first profile it validates the suite and checks every
// target as the profiles will use it (CheckTargets: exists, can be opened,
// the safety checks of writes, the signature check unless force), so
// that bad input runs nothing. A simulated suite (Simulated) first creates
// its temporary files; where their file system refuses O_DIRECT they are
// used with buffered I/O, and the log says so.
//
// On an error or cancellation the profiles completed so far, and the
// points of the one cut short, are returned with the error.
func RunSuite(ctx context.Context, s *Suite, opts SuiteOptions) (*SuiteResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	plans, err := s.Plans()
	if err != nil {
		return nil, err
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	if s.SimulatedTargets {
		if err := createSimTargets(ctx, s, plans, log); err != nil {
			return nil, err
		}
	}
	runs := make([]Run, len(plans))
	var total time.Duration
	for i, p := range plans {
		runs[i] = p.Run
		total += p.Length()
	}
	force := s.Force || opts.Force
	if err := CheckTargets(runs, force); err != nil {
		return nil, err
	}
	res := &SuiteResult{Suite: s, Start: time.Now()}
	defer func() { res.End = time.Now() }()
	fmt.Fprintf(log, "suite %s: %d profile(s) on %d target(s), about %s\n", s.Name, len(plans), len(s.Targets), total.Round(time.Second))
	for k, p := range plans {
		threads := 0
		for _, sd := range p.Run.SDs {
			threads += sd.Threads
		}
		approx := ""
		if p.Profile.Approximation {
			approx = ", APPROXIMATION"
		}
		fmt.Fprintf(log, "==> [%d/%d] %s (%s%s): %d target(s), %d threads in all, %d points, about %s\n",
			k+1, len(plans), p.Profile.Name, p.Profile.Title, approx, len(p.Run.SDs), threads, p.Points(), p.Length().Round(time.Second))
		labels := maps.Clone(opts.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels["suite"], labels["profile"] = s.Name, p.Profile.Name
		pw := newProgressWriter(opts.Out, log, p.Points())
		pr := &ProfileResult{Plan: p, Start: time.Now()}
		pr.Curve, pr.Err = Execute(ctx, p.Run, Options{Force: force, Out: pw, Labels: labels})
		pr.End = time.Now()
		pw.flush()
		if pr.Curve == nil && pr.Err != nil {
			return res, fmt.Errorf("profile %s: %w", p.Profile.Name, pr.Err)
		}
		if pr.Curve == nil {
			pr.Curve = &CurveResult{Run: p.Run.Name}
		}
		pr.Summary = Summarize(pr.Curve)
		if len(pr.Curve.Points) > 0 {
			fmt.Fprintf(log, "    %s: start %s IOPS @ %s; peak %s IOPS @ %s; 100 µs: %s; 1 ms: %s\n", p.Profile.Name,
				fmtIOPS(pr.Summary.StartIOPS), fmtLatency(pr.Summary.StartLatency), fmtIOPS(pr.Summary.PeakIOPS),
				fmtLatency(pr.Summary.PeakLatency), CrossingText(pr.Summary.Cross100us), CrossingText(pr.Summary.Cross1ms))
			res.Profiles = append(res.Profiles, pr)
			if opts.OnProfile != nil {
				if err := opts.OnProfile(pr); err != nil {
					return res, errors.Join(pr.Err, err)
				}
			}
		}
		if pr.Err != nil {
			return res, fmt.Errorf("profile %s: %w", p.Profile.Name, pr.Err)
		}
	}
	return res, nil
}

// CrossingText says where a crossing is, briefly: "at 123,456 IOPS",
// "not reached (up to 98,765 IOPS)", "above at the start".
func CrossingText(c Crossing) string {
	switch {
	case c.AboveAtStart:
		return "above at the start (" + fmtIOPS(c.IOPS) + " IOPS)"
	case c.NotReached:
		return "not reached (up to " + fmtIOPS(c.IOPS) + " IOPS)"
	}
	return "at " + fmtIOPS(c.IOPS) + " IOPS"
}

// FormatIOPS writes a rate as reviews do: 2,358,609.
func FormatIOPS(v float64) string { return fmtIOPS(v) }

// FormatLatency writes a latency as reviews do: 70.7 µs, 1.050 ms.
func FormatLatency(d time.Duration) string { return fmtLatency(d) }

// createSimTargets creates a simulated suite's files (the sd size each)
// and falls back to buffered I/O when their file system refuses O_DIRECT.
func createSimTargets(ctx context.Context, s *Suite, plans []SuitePlan, log io.Writer) error {
	if len(plans) == 0 {
		return nil
	}
	sds, _ := sdFlags([]Run{plans[0].Run})
	for _, sd := range sds {
		t, err := OpenTarget(sd, TargetOptions{Write: true, Progress: log, Context: ctx})
		if err != nil && errors.Is(err, syscall.EINVAL) && !slices.Contains(sd.OpenFlags, "none") {
			fmt.Fprintf(log, "simulation: %s refuses O_DIRECT; the temporary targets use buffered I/O (openflags=none), which measures the page cache\n",
				filepath.Dir(sd.Lun))
			for i := range plans {
				for j := range plans[i].Run.SDs {
					plans[i].Run.SDs[j].OpenFlags = []string{"none"}
				}
			}
			sd.OpenFlags = []string{"none"}
			t, err = OpenTarget(sd, TargetOptions{Write: true, Progress: log, Context: ctx})
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

// progressWriter passes the engine's output on to out (when set) and
// turns its "Starting RD=" and "avg_" lines into one progress line per
// point on log, and its warnings into log lines.
type progressWriter struct {
	mu         sync.Mutex
	out, log   io.Writer
	buf        []byte
	points, k  int
	label, req string
}

func newProgressWriter(out, log io.Writer, points int) *progressWriter {
	return &progressWriter{out: out, log: log, points: points}
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out != nil {
		if _, err := p.out.Write(b); err != nil {
			return 0, err
		}
	}
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		p.line(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

func (p *progressWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.line(string(p.buf))
		p.buf = nil
	}
}

// line reads one line of the engine's output (see writeStart and
// writeIntervalLine).
func (p *progressWriter) line(l string) {
	if rest, ok := strings.CutPrefix(l, "Starting RD="); ok {
		p.k++
		p.label, p.req = "", ""
		if i, j := strings.Index(rest, " ("), strings.Index(rest, "); I/O rate: "); i >= 0 && j > i {
			p.label = rest[i+2 : j]
			p.req, _, _ = strings.Cut(rest[j+len("); I/O rate: "):], ";")
		}
		return
	}
	if strings.HasPrefix(l, "warning: ") || strings.HasPrefix(l, "preformatting ") {
		fmt.Fprintf(p.log, "    %s\n", l)
		return
	}
	f := strings.Fields(l)
	if len(f) >= 7 && strings.HasPrefix(f[1], "avg_") {
		var rate float64
		fmt.Sscan(f[2], &rate)
		req := p.req
		if r, _, ok := strings.Cut(req, " ("); ok {
			var v float64
			if _, err := fmt.Sscan(r, &v); err == nil {
				req = "requested " + fmtIOPS(v) + " I/O/s"
			}
		}
		fmt.Fprintf(p.log, "    point %d/%d %s (%s): %s IOPS, mean response %s ms\n", p.k, p.points, p.label, req, fmtIOPS(rate), f[6])
	}
}

// sdFlags returns each lun's SD as the runs open it, and whether any run
// writes to it.
func sdFlags(runs []Run) (sds []SD, writes map[string]bool) {
	writes = map[string]bool{}
	for _, r := range runs {
		for _, sd := range r.SDs {
			if !slices.ContainsFunc(sds, func(x SD) bool { return x.Lun == sd.Lun }) {
				sds = append(sds, sd)
			}
			for _, wd := range r.WDs {
				if wd.RdPct < 100 && slices.Contains(wd.SDs, sd.Name) {
					writes[sd.Lun] = true
				}
			}
		}
	}
	return sds, writes
}

// CheckTargets opens every lun the runs use as they would (for writing
// when a run writes to it, with the safety checks of OpenTarget: in use,
// mounted, signature unless force), and closes it again. It creates and
// changes nothing: a missing file is accepted only when its sd has size=
// and its directory exists (the run creates it), and an existing file is
// opened without growing it. Every problem is reported.
func CheckTargets(runs []Run, force bool) error {
	sds, writes := sdFlags(runs)
	var errs []error
	for _, sd := range sds {
		st, err := os.Stat(sd.Lun)
		switch {
		case errors.Is(err, os.ErrNotExist) && sd.Size > 0:
			if dir, derr := os.Stat(filepath.Dir(sd.Lun)); derr != nil || !dir.IsDir() {
				errs = append(errs, fmt.Errorf("sd=%s: %s does not exist, and neither does its directory %s", sd.Name, sd.Lun, filepath.Dir(sd.Lun)))
			}
			continue
		case errors.Is(err, os.ErrNotExist):
			errs = append(errs, fmt.Errorf("sd=%s: target %s does not exist (valid: an existing block device or file; a new file needs size=)", sd.Name, sd.Lun))
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("sd=%s: %w", sd.Name, err))
			continue
		}
		probe := sd.clone()
		if st.Mode().IsRegular() {
			probe.Size = 0 // never grow (preformat) a file while checking
		}
		t, err := OpenTarget(probe, TargetOptions{Write: writes[sd.Lun], Force: force})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := t.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sd=%s: closing %s: %w", sd.Name, sd.Lun, err))
		}
	}
	return errors.Join(errs...)
}

// RunName makes a run's name safe as a file name: characters other than
// letters, digits and . _ = - become _.
func RunName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._=-", c) >= 0) {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		return "run_" + string(b)
	}
	return string(b)
}
