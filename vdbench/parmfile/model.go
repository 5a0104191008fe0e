package parmfile

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults of the parameters a definition leaves out. They are vdbench's,
// except OpenFlags: vdbench opens luns buffered by default, vmbench with
// O_DIRECT (a benchmark of the page cache is rarely what a drive review
// wants); openflags=none asks for buffered I/O.
const (
	DefaultThreads  = 8       // sd threads=: outstanding I/Os per SD
	DefaultHitArea  = 1 << 20 // sd hitarea=: 1 MiB
	DefaultXferSize = 4096    // wd xfersize=
	DefaultElapsed  = 30 * time.Second
	// DefaultMaxInterval caps the interval vdbench derives when interval=
	// is not given: min(elapsed/2, 60 s).
	DefaultMaxInterval = 60 * time.Second
	// DefaultDistribution is rd distribution=: exponential inter-arrival
	// times.
	DefaultDistribution = "exponential"
)

// DefaultCurve returns vdbench's curve points (percent of the maximum
// observed rate) used by iorate=curve when curve= is not given.
func DefaultCurve() []float64 { return []float64{10, 50, 70, 80, 90, 100} }

// DefaultOpenFlags returns the openflags= an SD gets when it gives none.
func DefaultOpenFlags() []string { return []string{"o_direct"} }

// SD is a storage definition (sd=): a target and the part of it to use.
type SD struct {
	Name string
	// Lun is the block device or file.
	Lun string
	// Size is in bytes; 0 = the whole target.
	Size int64
	// Range is the part of the target used, in percent: default {0, 100}.
	Range [2]float64
	// Threads is the number of outstanding I/Os for this SD (shared by
	// every WD that uses it), default 8.
	Threads int
	// OpenFlags are vdbench's open flags, default ["o_direct"];
	// ["none"] is buffered I/O.
	OpenFlags []string
	// HitArea is the size of the "cache hit" region at the start of the
	// SD's span that rhpct=/whpct= hits go to, in bytes (default 1 MiB).
	HitArea int64
	// Line is where the definition starts in the parameter file (0 when
	// the SD was not parsed).
	Line int
	// keyLines holds the line of each keyword given (see keyLine).
	keyLines map[string]int
}

// XferSize is a WD's transfer size: one size (Sizes=[n], Pcts=[100]), a
// distribution (pairs of size and percent of I/Os, summing to 100), or,
// when Max > 0, a random size in [Min, Max] on an Align boundary.
type XferSize struct {
	Sizes []int64
	Pcts  []float64
	// Min, Max, Align: the (min,max,align) form when Max > 0.
	Min, Max, Align int64
}

// Single returns the XferSize of one transfer size.
func Single(n int64) XferSize { return XferSize{Sizes: []int64{n}, Pcts: []float64{100}} }

// String is the value as written in a parameter file: 4k, (4k,50,8k,50),
// or (4k,64k,4k).
func (x XferSize) String() string {
	if x.Max > 0 {
		return "(" + FormatSize(x.Min) + "," + FormatSize(x.Max) + "," + FormatSize(x.Align) + ")"
	}
	if len(x.Sizes) == 1 && len(x.Pcts) == 1 && x.Pcts[0] == 100 {
		return FormatSize(x.Sizes[0])
	}
	parts := make([]string, 0, 2*len(x.Sizes))
	for i, s := range x.Sizes {
		p := 0.0
		if i < len(x.Pcts) {
			p = x.Pcts[i]
		}
		parts = append(parts, FormatSize(s), FormatNum(p))
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// Mean is the average transfer size in bytes (for the (min,max,align)
// form: the midpoint).
func (x XferSize) Mean() float64 {
	if x.Max > 0 {
		return float64(x.Min+x.Max) / 2
	}
	var sum, pct float64
	for i, s := range x.Sizes {
		if i < len(x.Pcts) {
			sum += float64(s) * x.Pcts[i]
			pct += x.Pcts[i]
		}
	}
	if pct == 0 {
		return 0
	}
	return sum / pct
}

// Largest is the largest transfer x can issue, in bytes.
func (x XferSize) Largest() int64 {
	if x.Max > 0 {
		return x.Max
	}
	var m int64
	for _, n := range x.Sizes {
		m = max(m, n)
	}
	return m
}

func (x XferSize) clone() XferSize {
	x.Sizes = slices.Clone(x.Sizes)
	x.Pcts = slices.Clone(x.Pcts)
	return x
}

// Seek is a WD's seekpct=.
type Seek struct {
	// Pct is the percentage of I/Os that go to a random offset; the rest
	// continue a sequential stream. 0 = sequential, 100 = random.
	Pct float64
	// EOF is seekpct=eof: sequential, and the WD stops at the end of its
	// span (plain sequential wraps to the start).
	EOF bool
}

// String is the value as written in a parameter file.
func (s Seek) String() string {
	switch {
	case s.EOF:
		return "eof"
	case s.Pct == 0:
		return "sequential"
	case s.Pct == 100:
		return "random"
	}
	return FormatNum(s.Pct)
}

// WD is a workload definition (wd=).
type WD struct {
	Name string
	// SDs are the sd names as written: names or wildcards (sd*, *).
	SDs  []string
	Xfer XferSize
	// RdPct is the read percentage, default 100.
	RdPct float64
	// Seek defaults to 100% random.
	Seek Seek
	// RhPct and WhPct are the percentages of reads and writes that go to
	// the SD's hit area.
	RhPct, WhPct float64
	// Range is the part of each SD's span this WD uses, in percent of the
	// span (the SD's size and range): default {0, 100}.
	Range [2]float64
	// Skew is this WD's percentage of the run's total I/O rate; 0 = share
	// what the WDs with a skew leave equally.
	Skew     float64
	Line     int
	keyLines map[string]int
}

// IORate is an rd's iorate=: exactly one of Max, Curve or Rates.
type IORate struct {
	// Max runs uncontrolled: every thread issues I/O back to back.
	Max bool
	// Curve runs at max first, then once per RD.Curve point at that
	// percentage of the observed maximum rate.
	Curve bool
	// Rates are I/Os per second: one run per value, in order (as vdbench,
	// which runs them as the innermost loop, inside the for-loops).
	Rates []float64
}

// String is the value as written in a parameter file.
func (r IORate) String() string {
	switch {
	case r.Max:
		return "max"
	case r.Curve:
		return "curve"
	case len(r.Rates) == 1:
		return FormatNum(r.Rates[0])
	}
	return "(" + joinNums(r.Rates) + ")"
}

// RD is a run definition (rd=).
type RD struct {
	Name string
	// WDs are the wd names as written: names or wildcards.
	WDs    []string
	IORate IORate
	// Curve holds the iorate=curve points in percent of the maximum rate;
	// default 10,50,70,80,90,100. Points above 100 are allowed.
	Curve []float64
	// Elapsed is the measured time of each run, default 30 s. Warmup runs
	// before it: a run lasts Warmup + Elapsed. Without warmup=, vdbench
	// leaves the first interval (inside Elapsed) out of the averages;
	// warmup=0 given (WarmupSet) measures every interval.
	// Interval is the reporting interval; when not given it is
	// min(Elapsed/2, 60 s) in whole seconds. Elapsed must be at least two
	// intervals and a multiple of Interval, Warmup a multiple of Interval.
	Elapsed, Interval, Warmup time.Duration
	// WarmupSet says warmup= was given (in the parameter file, or by -w,
	// --warmup or a block suite's warmup:), so that warmup=0 means no
	// warm-up at all rather than vdbench's default.
	WarmupSet bool
	// Distribution of inter-arrival times of rate-controlled runs:
	// exponential (default), uniform or deterministic.
	Distribution string
	// StopCurve ends an iorate=curve after the first point whose mean
	// response time exceeds it; 0 = none.
	StopCurve time.Duration
	// ForXfer, ForThreads and ForRdPct are the for-loops: the rd runs once
	// per combination (see Params.Runs). ForThreads replaces every SD's
	// threads=, ForXfer and ForRdPct every WD's xfersize= and rdpct=.
	ForXfer    []XferSize
	ForThreads []int
	ForRdPct   []float64
	// LoopOrder lists the loops in the order they were given ("xfersize",
	// "threads", "rdpct"): the first is the outermost, as in vdbench. Nil
	// means that order.
	LoopOrder []string
	Line      int
	keyLines  map[string]int
	// keyWritten holds how each keyword was written when that differs
	// from its name (threads= for forthreads=; see SpelledAs).
	keyWritten map[string]string
}

// SpelledAs names keyword kw (its full name) of r as its file wrote it,
// for messages: the alias it used (threads for forthreads), or kw itself
// for kw or an abbreviation of it.
func (r RD) SpelledAs(kw string) string {
	w, ok := r.keyWritten[kw]
	if !ok {
		return kw
	}
	for a, canon := range rdKeywords.alias {
		if canon == kw && strings.HasPrefix(a, w) && !strings.HasPrefix(kw, w) {
			return a
		}
	}
	return kw
}

// IgnoredParam is a general parameter vmbench accepts from vdbench files
// and ignores on purpose (debug=, data_errors=; HCIBench writes both).
type IgnoredParam struct {
	Keyword, Value string
	// Why says what the parameter does in vdbench and why it has no
	// effect in vmbench.
	Why  string
	Line int
}

// Params is a parsed parameter file.
type Params struct {
	// File is the name used in error messages.
	File    string
	Ignored []IgnoredParam
	SDs     []SD
	WDs     []WD
	RDs     []RD
}

// Run is one expanded run definition: one combination of the rd's
// for-loops, with its WDs and SDs resolved. The RD's wildcards are replaced
// by the names they match and its for-loops are cleared; the WDs carry the
// loop's xfersize and rdpct and name concrete SDs; the SDs carry the loop's
// threads. An iorate=curve or a list of rates stays one Run: the engine
// runs its points (max first for a curve) in order.
type Run struct {
	// Name is the rd name plus the loop values, e.g.
	// "rd1_xfer=4k_threads=32".
	Name string
	RD   RD
	WDs  []WD
	SDs  []SD
}

// PointCount is the number of points the engine runs for r: the max run
// and each curve point of iorate=curve, each rate of iorate=(list), or
// the one point of iorate=max or a single rate.
func (r Run) PointCount() int {
	rd := r.RD
	switch {
	case rd.IORate.Curve:
		return 1 + len(rd.Curve)
	case len(rd.IORate.Rates) > 0:
		return len(rd.IORate.Rates)
	}
	return 1
}

// Clone returns a copy of s that shares no slice or map with it.
func (s SD) Clone() SD {
	s.OpenFlags = slices.Clone(s.OpenFlags)
	s.keyLines = maps.Clone(s.keyLines)
	return s
}

func (w WD) clone() WD {
	w.SDs = slices.Clone(w.SDs)
	w.Xfer = w.Xfer.clone()
	w.keyLines = maps.Clone(w.keyLines)
	return w
}

// keyLine is the line where keyword kw (its full name) of a definition
// was given (by the definition or by a default definition before it),
// or def, the line where the definition starts, when it was not.
func keyLine(lines map[string]int, kw string, def int) int {
	if l, ok := lines[kw]; ok {
		return l
	}
	return def
}

// KeyLine is the line of the parameter file where keyword kw (its full
// name: "size", not "si") of s was given, by s or by an sd=default before
// it; 0 when it was not given, or s was not parsed.
func (s SD) KeyLine(kw string) int { return keyLine(s.keyLines, kw, 0) }

// KeyLine is the line of the parameter file where keyword kw (its full
// name: "forthreads" also for threads=) of r was given, by r or by an
// rd=default before it; 0 when it was not given, r was not parsed, or
// Override replaced its value.
func (r RD) KeyLine(kw string) int { return keyLine(r.keyLines, kw, 0) }

// setKeyLine records that keyword kw was given on line.
func setKeyLine(lines *map[string]int, kw string, line int) {
	if *lines == nil {
		*lines = map[string]int{}
	}
	(*lines)[kw] = line
}

func (r RD) clone() RD {
	r.keyLines = maps.Clone(r.keyLines)
	r.keyWritten = maps.Clone(r.keyWritten)
	r.WDs = slices.Clone(r.WDs)
	r.IORate.Rates = slices.Clone(r.IORate.Rates)
	r.Curve = slices.Clone(r.Curve)
	if r.ForXfer != nil {
		xs := make([]XferSize, len(r.ForXfer))
		for i, x := range r.ForXfer {
			xs[i] = x.clone()
		}
		r.ForXfer = xs
	}
	r.ForThreads = slices.Clone(r.ForThreads)
	r.ForRdPct = slices.Clone(r.ForRdPct)
	r.LoopOrder = slices.Clone(r.LoopOrder)
	return r
}

func defaultSD() SD {
	return SD{Range: [2]float64{0, 100}, Threads: DefaultThreads, OpenFlags: DefaultOpenFlags(), HitArea: DefaultHitArea}
}

func defaultWD() WD {
	return WD{Xfer: Single(DefaultXferSize), RdPct: 100, Seek: Seek{Pct: 100}, Range: [2]float64{0, 100}}
}

func defaultRD() RD {
	return RD{Elapsed: DefaultElapsed, Distribution: DefaultDistribution}
}

// checkName refuses names vdbench files cannot carry; wildcards are
// allowed in references only.
func checkName(name string, wildcard bool) error {
	bad := "*?[]=\"' \t"
	if wildcard {
		bad = "=\"' \t"
	}
	if name == "" || strings.ContainsAny(name, bad) {
		return fmt.Errorf("%q is not a valid name (valid: letters, digits, _ - .%s)", name, map[bool]string{true: ", and * or ? as wildcards"}[wildcard])
	}
	return nil
}

// FormatNum writes a number the shortest way, as a parameter file holds
// it: 70, 7.5, 0.25.
func FormatNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func joinNums(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = FormatNum(v)
	}
	return strings.Join(s, ",")
}

// The keywords of each kind of definition. Unsupported vdbench keywords
// are listed so that an abbreviation cannot silently mean a supported
// keyword the user did not intend, and so the error can say why.
var (
	topKeywords = keywordSet{
		what:  "top-level",
		known: []string{"sd", "wd", "rd", "debug", "data_errors"},
		unsupported: unsupportedList("", "hd", "fsd", "fwd", "rg", "include", "compratio", "compression",
			"dedupratio", "dedupunit", "dedupsets", "dedupflipflop", "deduphotsets", "dedupacross",
			"messagescan", "validate", "journal", "histogram", "report", "create_anchors", "formatsds",
			"formatxfersize", "concatenatesds", "showlba", "port", "monitor", "startcmd", "endcmd",
			"start_cmd", "end_cmd", "loop", "pattern", "patterns", "fwd_thread_adjust", "ios_per_jvm",
			"abort_failed_skew", "timeout", "force_error_after", "misc"),
	}
	sdKeywords = keywordSet{
		what:  "sd",
		known: []string{"lun", "size", "range", "threads", "openflags", "hitarea"},
		unsupported: unsupportedList("", "offset", "align", "count", "host", "hd", "replay", "journal",
			"dedupratio", "dedupunit", "dedupsets", "deduphotsets", "dedupflipflop", "compratio",
			"resetbus", "resetlun", "slave"),
	}
	wdKeywords = keywordSet{
		what:  "wd",
		known: []string{"sd", "xfersize", "rdpct", "wrpct", "seekpct", "rhpct", "whpct", "range", "skew"},
		alias: map[string]string{"readpct": "rdpct"},
		unsupported: unsupportedList("", "hotband", "iorate", "priority", "streams", "host", "hd", "openflags",
			"dedupratio", "compratio", "stride"),
	}
	rdKeywords = keywordSet{
		what: "rd",
		known: []string{"wd", "iorate", "curve", "elapsed", "interval", "warmup", "distribution", "stopcurve",
			"forxfersize", "forthreads", "forrdpct"},
		alias: map[string]string{"xfersize": "forxfersize", "threads": "forthreads", "rdpct": "forrdpct"},
		unsupported: unsupportedList("", "sd", "fsd", "fwd", "fwdrate", "pause", "maxdata", "maxdataread",
			"maxdatawritten", "forseekpct", "forrhpct", "forwhpct", "forhitarea", "forcompratio",
			"forcompression", "foriorate", "fordepth", "forwidth", "forfiles", "forsizes", "fortotalsize",
			"forwss", "foroperations", "operations", "format", "openflags", "replay", "startcmd", "endcmd",
			"start_cmd", "end_cmd", "mount", "seekpct", "rhpct", "whpct", "hitarea", "compratio", "bursts"),
	}
)

func init() {
	wdKeywords.unsupported["threads"] = "threads belong to the sd (outstanding I/Os per sd) or to rd forthreads="
	rdKeywords.unsupported["sd"] = "name the sds in a wd, and the wds in the rd with wd="
	rdKeywords.unsupported["openflags"] = "give openflags= on the sd"
	rdKeywords.unsupported["seekpct"] = "vdbench runs it as forseekpct=; define one wd per seekpct instead"
	rdKeywords.unsupported["foriorate"] = "use iorate=(rate1,rate2,...)"
	wdKeywords.unsupported["iorate"] = "give iorate= on the rd and the wd's share with skew="
	topKeywords.unsupported["hd"] = "vmbench runs one host per process; a campaign spreads work over VMs"
	topKeywords.unsupported["fsd"] = "vmbench runs raw block I/O (sd/wd/rd) only"
	topKeywords.unsupported["fwd"] = topKeywords.unsupported["fsd"]
}

func unsupportedList(hint string, names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = hint
	}
	return m
}
