package parmfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sizeForms is the "valid:" text of every size error.
const sizeForms = "bytes such as 512, or a number with k, m, g or t (or KiB, MiB, GiB, TiB), all binary: 4k = 4KiB = 4096, 1.5m, 2g; not kB, MB, GB or TB"

// sizeUnits are the binary units ParseSize reads: vdbench's one-letter
// suffixes and the IEC names, compared in lower case.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{
	{"kib", 10}, {"mib", 20}, {"gib", 30}, {"tib", 40},
	{"k", 10}, {"m", 20}, {"g", 30}, {"t", 40},
}

// ParseSize reads a size as vdbench writes it: plain bytes ("512"), or a
// number with a binary suffix k, m, g or t ("4k" = 4096, "1.5m", "1g"),
// as vdbench's sizes are binary. The IEC forms KiB, MiB, GiB and TiB mean
// the same ("4KiB" = 4096). The SI forms kB, MB, GB and TB (and kb, mb...)
// are refused, with the error saying what to write: vdbench has no SI
// units, and "4kB" means 4000 bytes to some readers and 4096 to others.
// Case does not matter. The result must be a whole, non-negative number
// of bytes below 8 EiB.
func ParseSize(s string) (int64, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return 0, fmt.Errorf("empty size (valid: %s)", sizeForms)
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("size %q is negative (valid: %s)", s, sizeForms)
		}
		return n, nil
	}
	if n := len(v); n >= 2 && v[n-1] == 'b' && strings.IndexByte("kmgt", v[n-2]) >= 0 {
		return 0, siSizeError(s, v[:n-2], v[n-2])
	}
	num, mult := v, 1.0
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(v, u.suffix); ok {
			num, mult = rest, float64(uint64(1)<<u.shift)
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || strings.ContainsAny(num, "eEnNxX+_ ") {
		return 0, fmt.Errorf("size %q is not a size (valid: %s)", s, sizeForms)
	}
	if f < 0 {
		return 0, fmt.Errorf("size %q is negative (valid: %s)", s, sizeForms)
	}
	b := f * mult
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large (at most 8 EiB)", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes (valid: %s)", s, sizeForms)
	}
	return int64(b), nil
}

// siSizeError refuses the size s written with an SI unit: num, then
// letter (k, m, g or t) and b.
func siSizeError(s, num string, letter byte) error {
	iec := strings.ToUpper(string(letter)) + "iB"
	binary, decimal := "", ""
	if n, err := ParseSize(num + string(letter)); err == nil {
		binary = fmt.Sprintf(" for %d bytes", n)
	}
	if f, err := strconv.ParseFloat(num, 64); err == nil && !strings.ContainsAny(num, "eEnNxX+_") {
		d := f * math.Pow(1000, float64(strings.IndexByte("kmgt", letter)+1))
		if d >= 0 && d < math.MaxInt64 && d == math.Trunc(d) {
			decimal = fmt.Sprintf(", or %d for %d bytes", int64(d), int64(d))
		}
	}
	return fmt.Errorf("size %q: SI units (kB, MB, GB, TB) are not accepted, as vdbench's sizes are binary: write %s%c or %s%s%s%s",
		s, num, letter, num, iec, binary, decimal)
}

// FormatSize writes a size in the largest binary unit that divides it
// exactly: 4096 = "4k", 61440 = "60k", 1 MiB = "1m", 1000 = "1000".
func FormatSize(n int64) string {
	if n == 0 {
		return "0"
	}
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"t", 40}, {"g", 30}, {"m", 20}, {"k", 10}} {
		if n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// maxDuration is the longest time.Duration, where sums of run times stop.
const maxDuration = time.Duration(math.MaxInt64)

// TimesDuration is n × d, at most the longest time.Duration (n, d >= 0):
// run times multiplied out saturate instead of overflowing (a curve of
// 1,000 points of 31 years each).
func TimesDuration(n int, d time.Duration) time.Duration {
	if n > 0 && d > maxDuration/time.Duration(n) {
		return maxDuration
	}
	return time.Duration(n) * d
}

// AddDuration is a + b, at most the longest time.Duration (a, b >= 0):
// sums of run times saturate instead of overflowing.
func AddDuration(a, b time.Duration) time.Duration {
	if a > maxDuration-b {
		return maxDuration
	}
	return a + b
}

// totalText writes a sum of run times, saying when it reached maxDuration.
func totalText(d time.Duration) string {
	if d == maxDuration {
		return "more than 292 years"
	}
	return d.String()
}

// parseSeconds reads elapsed=, interval= and warmup=: whole seconds, or a
// number with s, m (minutes, as in vdbench for these keywords) or h.
func parseSeconds(s string) (time.Duration, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 's':
			v = v[:n-1]
		case 'm':
			mult, v = 60, v[:n-1]
		case 'h':
			mult, v = 3600, v[:n-1]
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || v == "" || strings.ContainsAny(v, "eEnNxX+_") {
		return 0, fmt.Errorf("%q is not a duration (valid: whole seconds such as 60, or 2m, 1h)", s)
	}
	sec := f * mult
	if sec < 0 || sec != math.Trunc(sec) {
		return 0, fmt.Errorf("%q is not a whole, non-negative number of seconds (valid: such as 60, 2m, 1h)", s)
	}
	if sec > 1e9 {
		return 0, fmt.Errorf("%q is more than 1,000,000,000 seconds (about 31 years), the longest a duration here may be", s)
	}
	return time.Duration(sec) * time.Second, nil
}

// parseMillis reads stopcurve=: milliseconds, fractions allowed.
func parseMillis(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || f > 1e9 {
		return 0, fmt.Errorf("%q is not a response time in milliseconds (valid: a number such as 1 or 0.2)", s)
	}
	return time.Duration(math.Round(f * 1e6)), nil
}

// formatMillis writes a duration as milliseconds for stopcurve=.
func formatMillis(d time.Duration) string { return FormatNum(float64(d) / 1e6) }

// parsePct reads a percentage in [0, 100].
func parsePct(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 100 {
		return 0, fmt.Errorf("%q is not a percentage (valid: a number from 0 to 100)", s)
	}
	return f, nil
}

// parsePositive reads a number > 0 (iorate and curve values).
func parsePositive(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, fmt.Errorf("%q is not a positive number", s)
	}
	return f, nil
}

// parseCount reads a whole number >= 1 (threads).
func parseCount(s string) (float64, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 1<<20 {
		return 0, fmt.Errorf("%q is not a whole number from 1 to %d", s, 1<<20)
	}
	return float64(n), nil
}

// maxExpand bounds a (low-high,step) list, so a typo cannot ask for a
// million runs.
const maxExpand = 1000

// expandList reads a value list, expanding vdbench's range forms
// (low-high,step) and (low-high,d) (doubling) into their values. parse
// reads one value; sizes use ParseSize, so (4k-64k,d) works.
func expandList(items []string, parse func(string) (float64, error)) ([]float64, error) {
	if len(items) == 2 {
		if lo, hi, ok := strings.Cut(items[0], "-"); ok && lo != "" {
			return expandRange(lo, hi, items[1], parse)
		}
	}
	out := make([]float64, 0, len(items))
	for _, it := range items {
		v, err := parse(it)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func expandRange(los, his, steps string, parse func(string) (float64, error)) ([]float64, error) {
	lo, err := parse(los)
	if err != nil {
		return nil, err
	}
	hi, err := parse(his)
	if err != nil {
		return nil, err
	}
	if hi < lo {
		return nil, fmt.Errorf("range %s-%s runs backwards (valid: (low-high,step) or (low-high,d))", los, his)
	}
	double := strings.EqualFold(strings.TrimSpace(steps), "d")
	var step float64
	if !double {
		if step, err = parse(steps); err != nil || step <= 0 {
			return nil, fmt.Errorf("step %q of range %s-%s is not a positive number (valid: (low-high,step) or (low-high,d) for doubling)", steps, los, his)
		}
	} else if lo <= 0 {
		return nil, fmt.Errorf("range %s-%s,d cannot double from %s", los, his, los)
	}
	var out []float64
	for v := lo; v <= hi*(1+1e-12); {
		if len(out) == maxExpand {
			return nil, fmt.Errorf("range %s-%s gives more than %d values", los, his, maxExpand)
		}
		out = append(out, v)
		if double {
			v *= 2
		} else {
			// Step from lo, so repeated float additions do not drift.
			v = lo + float64(len(out))*step
		}
	}
	return out, nil
}

// knownOpenFlags are vdbench's openflags= values, plus none (buffered).
var knownOpenFlags = []string{"o_direct", "directio", "o_dsync", "o_sync", "o_rsync", "fsync", "clear_cache", "none"}

func applySD(sd *SD, kw string, p parm) error {
	var err error
	switch kw {
	case "lun":
		sd.Lun, err = p.one()
	case "size":
		sd.Size, err = oneSize(p)
	case "range":
		sd.Range, err = parseRange(p)
	case "threads":
		var n float64
		if n, err = oneValue(p, parseCount); err == nil {
			sd.Threads = int(n)
		}
	case "openflags":
		flags := make([]string, 0, len(p.items))
		for _, f := range p.items {
			f = strings.ToLower(f)
			if !slices.Contains(knownOpenFlags, f) {
				return fmt.Errorf("%q is not an open flag (valid: %s)", f, strings.Join(knownOpenFlags, ", "))
			}
			flags = append(flags, f)
		}
		if len(flags) > 1 && slices.Contains(flags, "none") {
			return fmt.Errorf("none (buffered I/O) cannot be combined with other flags")
		}
		sd.OpenFlags = flags
	case "hitarea":
		sd.HitArea, err = oneSize(p)
	}
	return err
}

func applyWD(wd *WD, kw string, p parm) error {
	var err error
	switch kw {
	case "sd":
		for _, n := range p.items {
			if err := checkName(n, true); err != nil {
				return err
			}
		}
		wd.SDs = slices.Clone(p.items)
	case "xfersize":
		wd.Xfer, err = parseXfer(p)
	case "rdpct":
		wd.RdPct, err = oneValue(p, parsePct)
	case "wrpct":
		var w float64
		w, err = oneValue(p, parsePct)
		wd.RdPct = 100 - w
	case "seekpct":
		wd.Seek, err = parseSeek(p)
	case "rhpct":
		wd.RhPct, err = oneValue(p, parsePct)
	case "whpct":
		wd.WhPct, err = oneValue(p, parsePct)
	case "range":
		wd.Range, err = parseRange(p)
	case "skew":
		wd.Skew, err = oneValue(p, parsePct)
	}
	return err
}

func applyRD(rd *RD, kw string, p parm) error {
	var err error
	switch kw {
	case "wd":
		for _, n := range p.items {
			if err := checkName(n, true); err != nil {
				return err
			}
		}
		rd.WDs = slices.Clone(p.items)
	case "iorate":
		rd.IORate, err = parseIORate(p)
	case "curve":
		rd.Curve, err = expandList(p.items, parsePositive)
	case "elapsed", "interval", "warmup":
		var d time.Duration
		if d, err = oneValue(p, parseSeconds); err != nil {
			return err
		}
		if d == 0 && kw != "warmup" {
			return fmt.Errorf("must be at least 1 second")
		}
		switch kw {
		case "elapsed":
			rd.Elapsed = d
		case "interval":
			rd.Interval = d
		default:
			rd.Warmup, rd.WarmupSet = d, true
		}
	case "distribution":
		v, _ := p.one()
		v = strings.ToLower(v)
		if len(p.items) != 1 || !slices.Contains([]string{"exponential", "uniform", "deterministic"}, v) {
			return fmt.Errorf("%q is not a distribution (valid: exponential, uniform, deterministic)", strings.Join(p.items, ","))
		}
		rd.Distribution = v
	case "stopcurve":
		rd.StopCurve, err = oneValue(p, parseMillis)
	case "forxfersize":
		var sizes []float64
		if sizes, err = expandList(p.items, sizeValue); err != nil {
			return err
		}
		rd.ForXfer = nil
		for _, s := range sizes {
			if err := checkXferSize(int64(s)); err != nil {
				return err
			}
			rd.ForXfer = append(rd.ForXfer, Single(int64(s)))
		}
	case "forthreads":
		var ns []float64
		ns, err = expandList(p.items, parseCount)
		rd.ForThreads = nil
		for _, n := range ns {
			rd.ForThreads = append(rd.ForThreads, int(n))
		}
	case "forrdpct":
		rd.ForRdPct, err = expandList(p.items, parsePct)
	}
	if loop, ok := strings.CutPrefix(kw, "for"); ok && err == nil && !slices.Contains(rd.LoopOrder, loop) {
		rd.LoopOrder = append(rd.LoopOrder, loop)
	}
	return err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// oneValue parses the single value of p.
func oneValue[T any](p parm, parse func(string) (T, error)) (T, error) {
	var zero T
	v, err := p.one()
	if err != nil {
		return zero, err
	}
	return parse(v)
}

func oneSize(p parm) (int64, error) { return oneValue(p, ParseSize) }

func sizeValue(s string) (float64, error) {
	n, err := ParseSize(s)
	return float64(n), err
}

func parseRange(p parm) ([2]float64, error) {
	const valid = "(valid: (low,high) in percent, 0 <= low < high <= 100, such as (0,25))"
	if len(p.items) != 2 {
		return [2]float64{}, fmt.Errorf("needs two values %s", valid)
	}
	var r [2]float64
	for i, it := range p.items {
		v, err := parsePct(it)
		if err != nil {
			return r, fmt.Errorf("%w %s", err, valid)
		}
		r[i] = v
	}
	if r[0] >= r[1] {
		return r, fmt.Errorf("(%s,%s) is empty or backwards %s", p.items[0], p.items[1], valid)
	}
	return r, nil
}

func checkXferSize(n int64) error {
	if n <= 0 || n%512 != 0 {
		return fmt.Errorf("transfer size %s is not a positive multiple of 512 bytes", FormatSize(n))
	}
	return nil
}

const xferForms = "valid: a size such as 4k; (size,pct,size,pct,...) with percentages adding up to 100; or (min,max,align)"

func parseXfer(p parm) (XferSize, error) {
	sizes := make([]int64, 0, len(p.items))
	for i, it := range p.items {
		if len(p.items)%2 == 0 && i%2 == 1 {
			continue // a percentage
		}
		n, err := ParseSize(it)
		if err != nil {
			return XferSize{}, fmt.Errorf("%w (%s)", err, xferForms)
		}
		sizes = append(sizes, n)
	}
	switch n := len(p.items); {
	case n == 1:
		return Single(sizes[0]), checkXferSize(sizes[0])
	case n == 3:
		x := XferSize{Min: sizes[0], Max: sizes[1], Align: sizes[2]}
		if err := firstErr(checkXferSize(x.Min), checkXferSize(x.Max), checkXferSize(x.Align)); err != nil {
			return x, err
		}
		if x.Min > x.Max || x.Min%x.Align != 0 || x.Max%x.Align != 0 {
			return x, fmt.Errorf("(min,max,align) needs min <= max, both multiples of align (%s)", xferForms)
		}
		return x, nil
	case n%2 == 1:
		return XferSize{}, fmt.Errorf("%d values: a distribution needs pairs of size and percentage (%s)", n, xferForms)
	}
	x := XferSize{Sizes: sizes}
	sum := 0.0
	for i := 1; i < len(p.items); i += 2 {
		v, err := parsePct(p.items[i])
		if err != nil {
			return x, fmt.Errorf("percentage of %s: %w", p.items[i-1], err)
		}
		if err := checkXferSize(sizes[i/2]); err != nil {
			return x, err
		}
		x.Pcts = append(x.Pcts, v)
		sum += v
	}
	if math.Abs(sum-100) > 1e-6 {
		return x, fmt.Errorf("the percentages add up to %s, not 100 (%s)", FormatNum(math.Round(sum*1e6)/1e6), xferForms)
	}
	return x, nil
}

func parseSeek(p parm) (Seek, error) {
	v, err := p.one()
	if err != nil {
		return Seek{}, err
	}
	switch strings.ToLower(v) {
	case "seq", "sequential":
		return Seek{}, nil
	case "rand", "random":
		return Seek{Pct: 100}, nil
	case "eof":
		return Seek{EOF: true}, nil
	}
	pct, err := parsePct(v)
	if err != nil {
		return Seek{}, fmt.Errorf("%q is not a seekpct (valid: a percentage of random I/Os from 0 to 100, sequential, random, eof)", v)
	}
	return Seek{Pct: pct}, nil
}

func parseIORate(p parm) (IORate, error) {
	const valid = "valid: max, curve, a rate in I/Os per second, or a list of rates such as (1000,2000) or (1000-5000,1000)"
	if len(p.items) == 1 {
		switch strings.ToLower(p.items[0]) {
		case "max":
			return IORate{Max: true}, nil
		case "curve":
			return IORate{Curve: true}, nil
		}
	}
	rates, err := expandList(p.items, parsePositive)
	if err != nil {
		return IORate{}, fmt.Errorf("%w (%s)", err, valid)
	}
	return IORate{Rates: rates}, nil
}
