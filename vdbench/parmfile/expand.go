package parmfile

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"
)

// maxRuns bounds the for-loops' cross product.
const maxRuns = 10000

// skewSlack absorbs float rounding in sums of percentages.
const skewSlack = 1e-6

// matchNames returns the names pattern matches, in their order: a name, or
// a wildcard with * and ? (sd*, *).
func matchNames(pattern string, names []string) []string {
	var out []string
	for _, n := range names {
		if ok, _ := path.Match(pattern, n); ok || pattern == n {
			out = append(out, n)
		}
	}
	return out
}

// resolveNames expands a list of names and wildcards, without repeats.
func resolveNames(patterns, names []string) []string {
	var out []string
	for _, p := range patterns {
		for _, n := range matchNames(p, names) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func sdNames(p *Params) []string {
	ns := make([]string, len(p.SDs))
	for i, s := range p.SDs {
		ns[i] = s.Name
	}
	return ns
}

func wdNames(p *Params) []string {
	ns := make([]string, len(p.WDs))
	for i, w := range p.WDs {
		ns[i] = w.Name
	}
	return ns
}

// Validate checks the definitions against each other and the rules vdbench
// applies after reading them: every sd a wd names and every wd an rd names
// exists, ranges and percentages are in bounds, transfer-size percentages
// add up to 100, skews of an rd's wds fit in 100%, elapsed is at least two
// intervals and a multiple of interval, and warmup a multiple of interval.
// Every problem is reported, naming file and line.
func (p *Params) Validate() error {
	file := p.File
	if file == "" {
		file = "parameters"
	}
	pr := &parmErrors{file: file}
	for i, n := range []int{len(p.SDs), len(p.WDs), len(p.RDs)} {
		if n == 0 {
			pr.add(0, "", "no %s= definition", []string{"sd", "wd", "rd"}[i])
		}
	}
	sdByName := map[string]SD{}
	for _, sd := range p.SDs {
		validateSD(pr, sd, sdByName)
		sdByName[sd.Name] = sd
	}
	wdByName := map[string]WD{}
	for _, wd := range p.WDs {
		if _, dup := wdByName[wd.Name]; dup {
			pr.add(wd.Line, "wd", "wd=%s is defined twice", wd.Name)
		}
		wdByName[wd.Name] = wd
		validateWD(pr, wd, p, sdByName)
	}
	rdSeen := map[string]bool{}
	for _, rd := range p.RDs {
		if rdSeen[rd.Name] {
			pr.add(rd.Line, "rd", "rd=%s is defined twice", rd.Name)
		}
		rdSeen[rd.Name] = true
		validateRD(pr, rd, p, wdByName)
	}
	return pr.err()
}

// validRange accepts a (low,high) percentage pair; the zero pair means
// "unset" (all of it), as the engine reads it.
func validRange(r [2]float64) bool {
	return r == [2]float64{} || (r[0] >= 0 && r[0] < r[1] && r[1] <= 100)
}

func validPct(v float64) bool { return v >= 0 && v <= 100 }

func validateSD(pr *parmErrors, sd SD, seen map[string]SD) {
	at := func(kw, format string, args ...any) {
		pr.add(keyLine(sd.keyLines, kw, sd.Line), kw, "sd="+sd.Name+": "+format, args...)
	}
	if err := checkName(sd.Name, false); err != nil || sd.Name == "default" {
		at("sd", "not a valid sd name")
	}
	if _, dup := seen[sd.Name]; dup {
		at("sd", "defined twice")
	}
	switch {
	case sd.Lun == "":
		at("lun", "lun= is required (a block device or a file)")
	case strings.HasPrefix(sd.Lun, "$"):
		at("lun", "lun=%s is a placeholder: set lun= to a block device or file (vmbench does not substitute vdbench's $variables)", sd.Lun)
	}
	if sd.Size < 0 {
		at("size", "size=%d is negative (valid: bytes, 0 = the whole target)", sd.Size)
	}
	if !validRange(sd.Range) {
		at("range", "range=(%s,%s) is not valid (valid: 0 <= low < high <= 100)", FormatNum(sd.Range[0]), FormatNum(sd.Range[1]))
	}
	if sd.Threads < 1 {
		at("threads", "threads=%d: at least 1", sd.Threads)
	}
	for _, f := range sd.OpenFlags {
		if !slices.Contains(knownOpenFlags, f) {
			at("openflags", "%q is not an open flag (valid: %s)", f, strings.Join(knownOpenFlags, ", "))
		}
	}
	if len(sd.OpenFlags) > 1 && slices.Contains(sd.OpenFlags, "none") {
		at("openflags", "none (buffered I/O) cannot be combined with other flags")
	}
	if sd.HitArea < 0 {
		at("hitarea", "hitarea=%d is negative", sd.HitArea)
	}
}

func validateXfer(x XferSize) error {
	if x.Max > 0 {
		if err := firstErr(checkXferSize(x.Min), checkXferSize(x.Max), checkXferSize(x.Align)); err != nil {
			return err
		}
		if x.Min > x.Max || x.Min%x.Align != 0 || x.Max%x.Align != 0 {
			return fmt.Errorf("(min,max,align) needs min <= max, both multiples of align")
		}
		return nil
	}
	if len(x.Sizes) == 0 || len(x.Sizes) != len(x.Pcts) {
		return fmt.Errorf("needs as many sizes as percentages, at least one (%s)", xferForms)
	}
	sum := 0.0
	for i, s := range x.Sizes {
		if err := checkXferSize(s); err != nil {
			return err
		}
		if !validPct(x.Pcts[i]) {
			return fmt.Errorf("percentage %s of %s is not in 0-100", FormatNum(x.Pcts[i]), FormatSize(s))
		}
		sum += x.Pcts[i]
	}
	if math.Abs(sum-100) > skewSlack {
		return fmt.Errorf("the percentages add up to %s, not 100", FormatNum(sum))
	}
	return nil
}

func validateWD(pr *parmErrors, wd WD, p *Params, sds map[string]SD) {
	at := func(kw, format string, args ...any) {
		pr.add(keyLine(wd.keyLines, kw, wd.Line), kw, "wd="+wd.Name+": "+format, args...)
	}
	if err := checkName(wd.Name, false); err != nil || wd.Name == "default" {
		at("wd", "not a valid wd name")
	}
	if len(wd.SDs) == 0 {
		at("sd", "sd= is required (the sds this workload runs on)")
	}
	names := sdNames(p)
	for _, pat := range wd.SDs {
		if len(matchNames(pat, names)) == 0 {
			at("sd", "sd=%s matches no sd definition (defined: %s)", pat, strings.Join(names, ", "))
		}
	}
	if err := validateXfer(wd.Xfer); err != nil {
		at("xfersize", "%v", err)
	} else if largest := wd.Xfer.Largest(); largest > 0 {
		validateXferFits(at, wd, largest, names, sds)
	}
	for i, v := range []float64{wd.RdPct, wd.Seek.Pct, wd.RhPct, wd.WhPct, wd.Skew} {
		if kw := []string{"rdpct", "seekpct", "rhpct", "whpct", "skew"}[i]; !validPct(v) {
			at(kw, "%s=%s is not a percentage (valid: 0 to 100)", kw, FormatNum(v))
		}
	}
	if wd.Seek.EOF && wd.Seek.Pct != 0 {
		at("seekpct", "seekpct=eof is sequential; Seek.Pct must be 0")
	}
	if !validRange(wd.Range) {
		at("range", "range=(%s,%s) is not valid (valid: 0 <= low < high <= 100)", FormatNum(wd.Range[0]), FormatNum(wd.Range[1]))
	}
	if wd.RhPct > 0 || wd.WhPct > 0 {
		for _, n := range resolveNames(wd.SDs, names) {
			if sds[n].HitArea == 0 {
				at("rhpct", "rhpct/whpct send I/O to the hit area, but sd=%s has hitarea=0", n)
			}
		}
	}
}

// validateXferFits reports each sized sd of wd (matched among names)
// too small for wd's largest transfer, of largest bytes.
func validateXferFits(at func(kw, format string, args ...any), wd WD, largest int64, names []string, sds map[string]SD) {
	for _, pat := range wd.SDs {
		for _, n := range matchNames(pat, names) {
			sd := sds[n]
			if sd.Size <= 0 {
				continue
			}
			// 512 bytes, the least logical block size: a unit no larger
			// than on any target the transfers can run on.
			if least, err := MinSize(sd, wd, 512); err == nil && sd.Size < least {
				at("xfersize", "sd=%s has size=%s, too small for this workload's largest transfer of %s: its span starts one alignment unit in, LBA 0 being never used, and must hold that transfer (valid: size= of at least %s, or smaller transfers)",
					n, FormatSize(sd.Size), FormatSize(largest), FormatSize(least))
			}
		}
	}
}

//nolint:gocognit // a flat validator: one check per keyword, read in order
func validateRD(pr *parmErrors, rd RD, p *Params, wds map[string]WD) {
	at := func(kw, format string, args ...any) {
		pr.add(keyLine(rd.keyLines, kw, rd.Line), kw, "rd="+rd.Name+": "+format, args...)
	}
	if err := checkName(rd.Name, false); err != nil || rd.Name == "default" {
		at("rd", "not a valid rd name")
	}
	if len(rd.WDs) == 0 {
		at("wd", "wd= is required (the workloads this run runs)")
	}
	names := wdNames(p)
	for _, pat := range rd.WDs {
		if len(matchNames(pat, names)) == 0 {
			at("wd", "wd=%s matches no wd definition (defined: %s)", pat, strings.Join(names, ", "))
		}
	}
	modes := 0
	for _, on := range []bool{rd.IORate.Max, rd.IORate.Curve, len(rd.IORate.Rates) > 0} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		at("iorate", "iorate= is required, with one form (valid: max, curve, a rate, or a list of rates)")
	}
	for _, r := range rd.IORate.Rates {
		if !(r > 0) {
			at("iorate", "rate %s is not positive", FormatNum(r))
		}
	}
	if rd.IORate.Curve && len(rd.Curve) == 0 {
		at("curve", "iorate=curve needs curve points")
	}
	for _, c := range rd.Curve {
		if !(c > 0) {
			at("curve", "curve point %s is not positive", FormatNum(c))
		}
	}
	if rd.StopCurve < 0 || (rd.StopCurve > 0 && !rd.IORate.Curve) {
		at("stopcurve", "stopcurve= applies to iorate=curve only, with a positive response time in milliseconds")
	}
	validateTimes(rd, at)
	if !slices.Contains([]string{"exponential", "uniform", "deterministic"}, rd.Distribution) {
		at("distribution", "%q is not a distribution (valid: exponential, uniform, deterministic)", rd.Distribution)
	}
	for _, x := range rd.ForXfer {
		if err := validateXfer(x); err != nil {
			at("forxfersize", "%v", err)
		} else if len(x.Sizes) != 1 {
			at("forxfersize", "takes single sizes, not %s", x)
		}
	}
	for _, t := range rd.ForThreads {
		if t < 1 {
			at("forthreads", "threads=%d: at least 1", t)
		}
	}
	for _, v := range rd.ForRdPct {
		if !validPct(v) {
			at("forrdpct", "%s is not a percentage (valid: 0 to 100)", FormatNum(v))
		}
	}
	for _, l := range rd.LoopOrder {
		if !slices.Contains(loopNames, l) {
			at("rd", "unknown loop %q in LoopOrder (valid: %s)", l, strings.Join(loopNames, ", "))
		}
	}
	if n := max(1, len(rd.ForXfer)) * max(1, len(rd.ForThreads)) * max(1, len(rd.ForRdPct)); n > maxRuns {
		at("rd", "the for-loops give %d runs (at most %d)", n, maxRuns)
	}
	var used []WD
	for _, n := range resolveNames(rd.WDs, names) {
		used = append(used, wds[n])
	}
	if msg := checkSkews(used); msg != "" {
		at("skew", "%s", msg)
	}
}

func validateTimes(rd RD, at func(kw, format string, args ...any)) {
	s := func(d time.Duration) string { return FormatNum(d.Seconds()) }
	for i, d := range []time.Duration{rd.Elapsed, rd.Interval, rd.Warmup} {
		if kw := []string{"elapsed", "interval", "warmup"}[i]; d < 0 || d%time.Second != 0 || (d == 0 && kw != "warmup") {
			at(kw, "%s=%ss is not a whole, positive number of seconds", kw, s(d))
		}
	}
	if rd.Interval <= 0 || rd.Elapsed <= 0 {
		return
	}
	if rd.Elapsed < 2*rd.Interval {
		at("elapsed", "elapsed=%s must be at least twice interval=%s", s(rd.Elapsed), s(rd.Interval))
	} else if rd.Elapsed%rd.Interval != 0 {
		at("elapsed", "elapsed=%s must be a multiple of interval=%s", s(rd.Elapsed), s(rd.Interval))
	}
	if rd.Warmup%rd.Interval != 0 {
		at("warmup", "warmup=%s must be a multiple of interval=%s", s(rd.Warmup), s(rd.Interval))
	}
}

// checkSkews applies vdbench's rule: the wds with a skew take that
// percentage of the run's I/O rate and the others share the rest equally,
// so the skews may not exceed 100 and must leave something for the others
// (or add up to exactly 100 when every wd has one).
func checkSkews(wds []WD) string {
	sum, without := 0.0, []string{}
	for _, w := range wds {
		if w.Skew > 0 {
			sum += w.Skew
		} else {
			without = append(without, w.Name)
		}
	}
	switch {
	case sum == 0:
		return ""
	case sum > 100+skewSlack:
		return fmt.Sprintf("the skews of its wds add up to %s%%, more than 100", FormatNum(sum))
	case len(without) == 0 && sum < 100-skewSlack:
		return fmt.Sprintf("every wd has a skew and they add up to %s%%, not 100", FormatNum(sum))
	case len(without) > 0 && sum > 100-skewSlack:
		return fmt.Sprintf("the skews add up to 100%%, leaving nothing for %s, which have none", strings.Join(without, ", "))
	}
	return ""
}

// skewShares returns each wd's share of the run's I/O rate in percent: its
// skew, or an equal part of what the skews leave. With no skew at all
// every wd gets an equal share.
func skewShares(wds []WD) []float64 {
	sum, n := 0.0, 0
	for _, w := range wds {
		if w.Skew > 0 {
			sum += w.Skew
		} else {
			n++
		}
	}
	out := make([]float64, len(wds))
	for i, w := range wds {
		if w.Skew > 0 {
			out[i] = w.Skew
		} else {
			out[i] = math.Max(0, 100-sum) / float64(n)
		}
	}
	return out
}

var loopNames = []string{"xfersize", "threads", "rdpct"}

// loopOrder is the order of rd's loops that have values, outermost first.
func loopOrder(rd RD) []string {
	order := slices.Clone(rd.LoopOrder)
	for _, l := range loopNames {
		if !slices.Contains(order, l) {
			order = append(order, l)
		}
	}
	has := map[string]bool{"xfersize": len(rd.ForXfer) > 0, "threads": len(rd.ForThreads) > 0, "rdpct": len(rd.ForRdPct) > 0}
	return slices.DeleteFunc(order, func(l string) bool { return !has[l] })
}

// Runs expands every rd into its runs, in file order: one per combination
// of its for-loops, the first loop given being the outermost (as vdbench).
// It validates first.
func (p *Params) Runs() ([]Run, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var runs []Run
	for _, rd := range p.RDs {
		wdList := resolveNames(rd.WDs, wdNames(p))
		var wds []WD
		var sdList []string
		for _, name := range wdList {
			w := p.WDs[slices.Index(wdNames(p), name)].clone()
			w.SDs = resolveNames(w.SDs, sdNames(p))
			for _, s := range w.SDs {
				if !slices.Contains(sdList, s) {
					sdList = append(sdList, s)
				}
			}
			wds = append(wds, w)
		}
		base := rd.clone()
		base.WDs = wdList
		base.ForXfer, base.ForThreads, base.ForRdPct, base.LoopOrder = nil, nil, nil, nil
		var loop func(i int, name string, x *XferSize, threads int, rdpct *float64)
		order := loopOrder(rd)
		loop = func(i int, name string, x *XferSize, threads int, rdpct *float64) {
			if i == len(order) {
				runs = append(runs, expandRun(p, base, name, wds, sdList, x, threads, rdpct))
				return
			}
			switch order[i] {
			case "xfersize":
				for _, v := range rd.ForXfer {
					loop(i+1, name+"_xfer="+v.String(), &v, threads, rdpct)
				}
			case "threads":
				for _, v := range rd.ForThreads {
					loop(i+1, fmt.Sprintf("%s_threads=%d", name, v), x, v, rdpct)
				}
			case "rdpct":
				for _, v := range rd.ForRdPct {
					loop(i+1, name+"_rdpct="+FormatNum(v), x, threads, &v)
				}
			}
		}
		loop(0, rd.Name, nil, 0, nil)
	}
	nameApart(runs)
	return runs, nil
}

// nameApart gives runs that would share a name (a for-loop that repeats a
// value, such as forthreads=(128,1,16,128,1,16)), or whose names share a
// file name (RunName, in any case), distinct names: the second one gets
// the suffix _rep2, the third _rep3, in run order. Their result files
// would otherwise overwrite each other.
func nameApart(runs []Run) {
	used := map[string]bool{}
	key := func(name string) string { return strings.ToLower(RunName(name)) }
	for i := range runs {
		name := runs[i].Name
		for n := 2; used[key(name)]; n++ {
			name = fmt.Sprintf("%s_rep%d", runs[i].Name, n)
		}
		used[key(name)] = true
		runs[i].Name = name
	}
}

func expandRun(p *Params, rd RD, name string, wds []WD, sdList []string, x *XferSize, threads int, rdpct *float64) Run {
	r := Run{Name: name, RD: rd.clone()}
	for _, w := range wds {
		w = w.clone()
		if x != nil {
			w.Xfer = x.clone()
		}
		if rdpct != nil {
			w.RdPct = *rdpct
		}
		r.WDs = append(r.WDs, w)
	}
	for _, sd := range p.SDs {
		if slices.Contains(sdList, sd.Name) {
			sd = sd.Clone()
			if threads > 0 {
				sd.Threads = threads
			}
			r.SDs = append(r.SDs, sd)
		}
	}
	return r
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
