package parmfile

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Text writes p as a parameter file: one line per definition, each value
// explicit except where it is the default, so that Parse reads back the
// same model. Comments of the original are not kept.
func (p *Params) Text() string {
	var b strings.Builder
	if p.File != "" {
		fmt.Fprintf(&b, "* vdbench parameter file written by vmbench from %s\n", p.File)
	}
	for _, g := range p.Ignored {
		fmt.Fprintf(&b, "%s=%s\n", g.Keyword, quoteValue(g.Value))
	}
	for _, sd := range p.SDs {
		b.WriteString(sdLine(sd) + "\n")
	}
	for _, wd := range p.WDs {
		b.WriteString(wdLine(wd) + "\n")
	}
	for _, rd := range p.RDs {
		b.WriteString(rdLine(rd) + "\n")
	}
	return b.String()
}

// quoteValue quotes a value that holds a character the parser splits on.
func quoteValue(s string) string {
	if strings.ContainsAny(s, " \t,()=*#'") {
		return `"` + s + `"`
	}
	return s
}

// valueList writes one value as is and several as a (list).
func valueList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return "(" + strings.Join(items, ",") + ")"
}

func pctPair(r [2]float64) string { return "(" + FormatNum(r[0]) + "," + FormatNum(r[1]) + ")" }

// FormatSeconds writes d as elapsed=, interval= and warmup= hold it:
// seconds, the shortest way (FormatNum): 60, 0.5.
func FormatSeconds(d time.Duration) string { return FormatNum(d.Seconds()) }

func sdLine(sd SD) string {
	parts := []string{"sd=" + sd.Name, "lun=" + quoteValue(sd.Lun)}
	if sd.Size > 0 {
		parts = append(parts, "size="+FormatSize(sd.Size))
	}
	if sd.Range != [2]float64{} {
		parts = append(parts, "range="+pctPair(sd.Range))
	}
	parts = append(parts, fmt.Sprintf("threads=%d", sd.Threads))
	if len(sd.OpenFlags) > 0 {
		parts = append(parts, "openflags="+valueList(sd.OpenFlags))
	}
	if sd.HitArea != DefaultHitArea {
		parts = append(parts, "hitarea="+FormatSize(sd.HitArea))
	}
	return strings.Join(parts, ",")
}

func wdLine(wd WD) string {
	parts := []string{"wd=" + wd.Name, "sd=" + valueList(wd.SDs), "xfersize=" + wd.Xfer.String(),
		"rdpct=" + FormatNum(wd.RdPct), "seekpct=" + wd.Seek.String()}
	if wd.RhPct > 0 {
		parts = append(parts, "rhpct="+FormatNum(wd.RhPct))
	}
	if wd.WhPct > 0 {
		parts = append(parts, "whpct="+FormatNum(wd.WhPct))
	}
	if wd.Range != [2]float64{0, 100} && wd.Range != [2]float64{} {
		parts = append(parts, "range="+pctPair(wd.Range))
	}
	if wd.Skew > 0 {
		parts = append(parts, "skew="+FormatNum(wd.Skew))
	}
	return strings.Join(parts, ",")
}

func rdLine(rd RD) string {
	parts := []string{"rd=" + rd.Name, "wd=" + valueList(rd.WDs), "iorate=" + rd.IORate.String()}
	if rd.IORate.Curve {
		parts = append(parts, "curve=("+joinNums(rd.Curve)+")")
	}
	parts = append(parts, "elapsed="+FormatSeconds(rd.Elapsed), "interval="+FormatSeconds(rd.Interval))
	if rd.Warmup > 0 || rd.WarmupSet {
		parts = append(parts, "warmup="+FormatSeconds(rd.Warmup))
	}
	if rd.Distribution != DefaultDistribution {
		parts = append(parts, "distribution="+rd.Distribution)
	}
	if rd.StopCurve > 0 {
		parts = append(parts, "stopcurve="+formatMillis(rd.StopCurve))
	}
	for _, l := range loopOrder(rd) {
		var vs []string
		switch l {
		case "xfersize":
			for _, x := range rd.ForXfer {
				vs = append(vs, x.String())
			}
		case "threads":
			for _, t := range rd.ForThreads {
				vs = append(vs, fmt.Sprint(t))
			}
		case "rdpct":
			for _, v := range rd.ForRdPct {
				vs = append(vs, FormatNum(v))
			}
		}
		parts = append(parts, "for"+l+"=("+strings.Join(vs, ",")+")")
	}
	return strings.Join(parts, ",")
}

// Describe says in words what `vmbench vdbench run` would do with p: the
// storage, every expanded run with its workloads, rates and times, and
// the total time. It validates p first.
func (p *Params) Describe() (string, error) {
	runs, err := p.Runs()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("Parameter file %s: %d sd, %d wd, %d rd, %d run(s).\n", p.File, len(p.SDs), len(p.WDs), len(p.RDs), len(runs))
	if len(p.Ignored) > 0 {
		w("\nGeneral parameters accepted and ignored:\n")
		for _, g := range p.Ignored {
			w("  %s=%s (line %d): %s.\n", g.Keyword, g.Value, g.Line, g.Why)
		}
	}
	w("\nStorage:\n")
	for _, sd := range p.SDs {
		w("  sd=%s (line %d): lun=%s\n", sd.Name, sd.Line, sd.Lun)
		extent := "the whole target"
		if sd.Size > 0 {
			extent = "its first " + FormatSize(sd.Size)
		}
		flags := "o_direct (vmbench's default)"
		if len(sd.OpenFlags) > 0 {
			flags = strings.Join(sd.OpenFlags, ",")
		}
		if slices.Equal(sd.OpenFlags, []string{"none"}) {
			flags = "none (buffered I/O, through the page cache)"
		}
		span := "0-100"
		if sd.Range != [2]float64{} {
			span = pctSpan(sd.Range)
		}
		w("    uses %s%% of %s; %d threads (outstanding I/Os); openflags=%s; hitarea=%s\n",
			span, extent, sd.Threads, flags, FormatSize(sd.HitArea))
	}
	used := map[string]bool{}
	for _, r := range runs {
		for _, wd := range r.WDs {
			used[wd.Name] = true
		}
	}
	for _, wd := range p.WDs {
		if !used[wd.Name] {
			w("  note: wd=%s (line %d) is not used by any rd\n", wd.Name, wd.Line)
		}
	}
	w("\nRuns, in order:\n")
	var total time.Duration
	points := 0
	for i, r := range runs {
		n, d := describeRun(w, i+1, r)
		points += n
		total = AddDuration(total, d)
	}
	w("\nTotal: %d run(s), %d measured point(s), about %s including warmups", len(runs), points, totalText(total))
	if slices.ContainsFunc(runs, func(r Run) bool { return r.RD.StopCurve > 0 }) {
		w(" (less when stopcurve= ends a curve early)")
	}
	w(".\n")
	return b.String(), nil
}

func pctSpan(r [2]float64) string { return FormatNum(r[0]) + "-" + FormatNum(r[1]) }

// describeRun writes one run and returns its number of points and time.
func describeRun(w func(string, ...any), n int, r Run) (int, time.Duration) {
	rd := r.RD
	w("  %d. %s (rd=%s, line %d)\n", n, r.Name, rd.Name, rd.Line)
	shares := skewShares(r.WDs)
	skewed := slices.ContainsFunc(r.WDs, func(wd WD) bool { return wd.Skew > 0 })
	for i, wd := range r.WDs {
		share := fmt.Sprintf("%s%% of the I/Os", FormatNum(roundDigits(shares[i], 3)))
		if len(r.WDs) == 1 {
			share = "all I/Os"
		} else if !skewed && rd.IORate.Max {
			share = "uncontrolled share (no skew)"
		}
		w("     wd=%s: %s; on %s\n", wd.Name, share, strings.Join(wd.SDs, ", "))
		w("       %s\n", describeWD(wd))
	}
	threads := 0
	for _, sd := range r.SDs {
		threads += sd.Threads
	}
	w("     %d sd(s), %d outstanding I/Os in total (threads per sd:", len(r.SDs), threads)
	for _, sd := range r.SDs {
		w(" %s=%d", sd.Name, sd.Threads)
	}
	w(")\n")
	if slices.ContainsFunc(r.WDs, func(wd WD) bool { return wd.RdPct < 100 }) {
		var written []string
		for _, wd := range r.WDs {
			if wd.RdPct < 100 {
				for _, s := range wd.SDs {
					if !slices.Contains(written, s) {
						written = append(written, s)
					}
				}
			}
		}
		w("     WRITES: the data in the used part of %s is overwritten\n", strings.Join(written, ", "))
	}
	points := 1
	switch {
	case rd.IORate.Max:
		w("     iorate=max: every thread issues its next I/O as soon as the last completes")
		if skewed {
			w(";\n       skew= makes the wds' shares rate-controlled, as in vdbench")
		}
		w("\n")
	case rd.IORate.Curve:
		points += len(rd.Curve)
		w("     iorate=curve: a max run, then %d points at %s%% of the rate it reached,\n", len(rd.Curve), joinNums(rd.Curve))
		w("       each rounded up to a multiple of 100 I/O/s (above 1000) or of 10; %s arrivals\n", rd.Distribution)
		if rd.StopCurve > 0 {
			w("       stopcurve: no further points after one whose mean response time exceeds %s ms\n", formatMillis(rd.StopCurve))
		}
	default:
		points = len(rd.IORate.Rates)
		w("     iorate: %d rate-controlled point(s) at %s I/O/s, %s arrivals\n", points, joinNums(rd.IORate.Rates), rd.Distribution)
	}
	each := AddDuration(rd.Warmup, rd.Elapsed)
	switch {
	case rd.Warmup > 0:
		w("     each point: warmup %s (not measured), then %s measured, reported every %s\n", shortDuration(rd.Warmup), shortDuration(rd.Elapsed), shortDuration(rd.Interval))
	case rd.WarmupSet:
		w("     each point: %s, reported every %s, every interval measured (warmup=0)\n", shortDuration(rd.Elapsed), shortDuration(rd.Interval))
	default:
		w("     each point: %s, reported every %s; the first interval is left out of the averages (no warmup=)\n", shortDuration(rd.Elapsed), shortDuration(rd.Interval))
	}
	w("     %d point(s) x %s = %s\n", points, shortDuration(each), totalText(TimesDuration(points, each)))
	return points, TimesDuration(points, each)
}

// shortDuration writes durations under 5 minutes in seconds (70s, not 1m10s).
func shortDuration(d time.Duration) string {
	if d < 5*time.Minute {
		return FormatSeconds(d) + "s"
	}
	return d.String()
}

func describeWD(wd WD) string {
	var parts []string
	x := "xfersize=" + wd.Xfer.String()
	if len(wd.Xfer.Sizes) > 1 || wd.Xfer.Max > 0 {
		x += fmt.Sprintf(" (mean %s KiB)", FormatNum(roundDigits(wd.Xfer.Mean()/1024, 1)))
	}
	parts = append(parts, x, "rdpct="+FormatNum(wd.RdPct))
	switch {
	case wd.Seek.EOF:
		parts = append(parts, "sequential, stopping at the end of the span (seekpct=eof)")
	case wd.Seek.Pct == 0:
		parts = append(parts, "sequential")
	case wd.Seek.Pct == 100:
		parts = append(parts, "random")
	default:
		parts = append(parts, FormatNum(wd.Seek.Pct)+"% random, the rest sequential")
	}
	if wd.RhPct > 0 || wd.WhPct > 0 {
		parts = append(parts, fmt.Sprintf("hits to the hit area: %s%% of reads, %s%% of writes", FormatNum(wd.RhPct), FormatNum(wd.WhPct)))
	}
	if wd.Range != [2]float64{0, 100} && wd.Range != [2]float64{} {
		parts = append(parts, "range "+pctSpan(wd.Range)+"% of each sd's span")
	}
	return strings.Join(parts, ", ")
}

// roundDigits rounds v to that many decimals.
func roundDigits(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
