package oltp

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"vmbench/oltp/hist"
)

// Merge combines results of the same workload run by several workers,
// processes or VMs into one, exactly: histograms are merged bucket by
// bucket (percentiles of the merged result are true percentiles of all
// events, never averages of percentiles), counts and counters are summed.
//
// Merge refuses, with an error naming the difference, results of different
// workloads, flags, phases, loops or operation sets, and results whose time
// windows do not overlap. Labels kept are those equal in every part.
// Threads and Rate are summed; Elapsed is the mean of the parts' Elapsed
// (see Result.Elapsed). Intervals are merged index by index up to the
// shortest series; preconditions are merged when every part has one.
// Stopped is the latest of the parts' (zero when a part has none).
// BacklogAtEnd and BacklogDropped are summed; Overruns are kept, each
// naming its part. PlatformCounters are concatenated in part order, a
// series that two parts carry (one host's, in the results of two VMs on
// it) once; Hosts keep every part's hosts, a host's facts from the first
// part that has it.
//
// Merge refuses a part that is not complete (failed or interrupted, see
// Result.State): a run cut short must not pass for a whole one. Use
// MergeWith and MergeOptions.Incomplete to merge such parts on purpose.
func Merge(rs ...*Result) (*Result, error) { return MergeWith(MergeOptions{}, rs...) }

// MergeConcurrent is Merge for the parts of one run that were started
// together at a common StartAt (one per target of a block-device run):
// it does not ask their measured windows to overlap, because on a starved
// host each part's phase timers may fire seconds apart although the parts
// ran side by side. Everything else Merge checks, it checks.
func MergeConcurrent(rs ...*Result) (*Result, error) {
	return MergeWith(MergeOptions{Concurrent: true}, rs...)
}

// lastStopped is the latest Stopped of rs, or zero when one of them has
// none (a file before version 6): the end of all the runs merged, or
// unknown.
func lastStopped(rs []*Result) time.Time {
	var last time.Time
	for _, r := range rs {
		if r.Stopped.IsZero() {
			return time.Time{}
		}
		if r.Stopped.After(last) {
			last = r.Stopped
		}
	}
	return last
}

// MergeOptions relax what Merge refuses.
type MergeOptions struct {
	// Concurrent: the parts started together (see MergeConcurrent).
	Concurrent bool
	// Incomplete allows failed and interrupted parts (a post-mortem). The
	// merged Result then has the worst status of its parts (failed, then
	// interrupted) and their errors.
	Incomplete bool
}

// MergeWith is Merge with options.
func MergeWith(o MergeOptions, rs ...*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, errors.New("oltp: merge of no results")
	}
	if err := mergeable(o, rs); err != nil {
		return nil, err
	}
	first := rs[0]
	m := &Result{
		Version: ResultVersion, Workload: first.Workload, Flags: maps.Clone(first.Flags),
		Labels: commonLabels(rs), Phase: first.Phase, Loop: first.Loop, Measured: first.Measured,
		Start: first.Start, End: first.End, Planned: first.Planned, CatchUp: first.CatchUp,
	}
	m.Status, m.Error = mergedStatus(rs)
	m.Interrupted = m.Status == StatusInterrupted
	elapsed, longest := addParts(m, rs)
	m.Stopped = lastStopped(rs)
	m.Elapsed = elapsed / time.Duration(len(rs))
	if o.Concurrent {
		// Parts started together by one run: it lasted as long as its
		// longest part, also when one ended early (a sequential stream
		// reaching the end of its span), so its rate is over that.
		m.Elapsed = longest
	}
	if len(rs) > 1 {
		m.Measured = fmt.Sprintf("%s; %d runs merged (threads %d in all)", first.Measured, m.Parts, m.Threads)
	}

	var err error
	if m.Ops, err = mergeOps(rs, func(r *Result) []OpResult { return r.Ops }); err != nil {
		return nil, err
	}
	m.Counters = sumCounters(rs, func(r *Result) map[string]int64 { return r.Counters })
	clients := make([]*ClientCost, len(rs))
	for i, r := range rs {
		clients[i] = r.Client
	}
	m.Client = MergeClientCost(clients)
	mergePlatform(m, rs)
	if m.Intervals, err = mergeIntervals(rs, o.Concurrent); err != nil {
		return nil, err
	}
	if m.Client != nil {
		m.Client.PeakUtilization = peakUtilization(m.Intervals)
	}
	if first.Precondition != nil {
		if m.Precondition, err = mergePreconditions(o, rs); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// addParts adds the parts rs up into m: their threads, rates, terminals,
// part counts, backlogs and overruns (each overrun named by its part when
// there are several), and m's window grows to cover theirs. It returns the
// sum of their elapsed times and the longest.
func addParts(m *Result, rs []*Result) (elapsed, longest time.Duration) {
	for i, r := range rs {
		m.BacklogAtEnd += r.BacklogAtEnd
		m.BacklogDropped += r.BacklogDropped
		for _, ov := range r.Overruns {
			if ov.Part == "" && len(rs) > 1 {
				ov.Part = partName(r, "", "")
				if ov.Part == "" {
					ov.Part = fmt.Sprintf("part %d", i+1)
				}
			}
			m.Overruns = append(m.Overruns, ov)
		}
		m.Threads += r.Threads
		m.Rate += r.Rate
		m.Terminals += r.Terminals
		m.Parts += max(r.Parts, 1)
		elapsed += r.Elapsed
		longest = max(longest, r.Elapsed)
		if r.Start.Before(m.Start) {
			m.Start = r.Start
		}
		if r.End.After(m.End) {
			m.End = r.End
		}
	}
	return elapsed, longest
}

// mergePreconditions merges the preconditions of the parts rs with the
// options o when every part has one; it returns nil when one has none.
func mergePreconditions(o MergeOptions, rs []*Result) (*Result, error) {
	pre := make([]*Result, 0, len(rs))
	for _, r := range rs {
		if r.Precondition != nil {
			pre = append(pre, r.Precondition)
		}
	}
	if len(pre) < len(rs) {
		return nil, nil
	}
	m, err := MergeWith(MergeOptions{Concurrent: o.Concurrent, Incomplete: o.Incomplete}, pre...)
	if err != nil {
		return nil, fmt.Errorf("precondition: %w", err)
	}
	return m, nil
}

// mergeable reports why the parts rs (at least one) cannot be merged with
// the options o: a part that is not complete (unless o.Incomplete), a part
// whose workload or settings differ from the first's, or (unless
// o.Concurrent) time windows that do not all overlap.
func mergeable(o MergeOptions, rs []*Result) error {
	if !o.Incomplete {
		for i, r := range rs {
			if st := r.State(); st != StatusComplete {
				return fmt.Errorf("oltp: result %d%s is %s, not complete (%s); merging it would pass a run cut short for a whole one",
					i, partName(r, " (", ")"), st, cmp.Or(r.Error, "no error recorded"))
			}
		}
	}
	first := rs[0]
	for i, r := range rs[1:] {
		if err := compatible(first, r); err != nil {
			return fmt.Errorf("oltp: cannot merge result %d into result 0: %w", i+1, err)
		}
	}
	lastStart, firstEnd := first.Start, first.End
	for _, r := range rs[1:] {
		if r.Start.After(lastStart) {
			lastStart = r.Start
		}
		if r.End.Before(firstEnd) {
			firstEnd = r.End
		}
	}
	if !o.Concurrent && len(rs) > 1 && !lastStart.Before(firstEnd) {
		return fmt.Errorf("oltp: cannot merge results whose time windows do not overlap (latest start %s, earliest end %s)",
			lastStart.Format(time.RFC3339Nano), firstEnd.Format(time.RFC3339Nano))
	}
	return nil
}

// mergedStatus is the worst status of rs (failed, then interrupted) with
// the errors of the parts that have that status.
func mergedStatus(rs []*Result) (status Status, errText string) {
	status = StatusComplete
	rank := map[Status]int{StatusComplete: 0, StatusInterrupted: 1, StatusFailed: 2}
	for _, r := range rs {
		if rank[r.State()] > rank[status] {
			status = r.State()
		}
	}
	var errs []string
	for _, r := range rs {
		if r.State() == status && r.Error != "" && !slices.Contains(errs, r.Error) {
			errs = append(errs, r.Error)
		}
	}
	return status, strings.Join(errs, "; ")
}

// partName names a part by its vm, sd or host label, within before and
// after; empty when it has none.
func partName(r *Result, before, after string) string {
	for _, k := range []string{"vm", "sd", "host"} {
		if v := r.Labels[k]; v != "" {
			return before + k + "=" + v + after
		}
	}
	return ""
}

// compatible reports why b cannot merge into a. Versions may differ:
// every readable version merges into the current one.
func compatible(a, b *Result) error {
	switch {
	case a.Workload != b.Workload:
		return fmt.Errorf("workloads differ (%s, %s)", a.Workload, b.Workload)
	case a.Phase != b.Phase:
		return fmt.Errorf("phases differ (%s, %s)", a.Phase, b.Phase)
	case a.Loop != b.Loop:
		return fmt.Errorf("loops differ (%s, %s)", a.Loop, b.Loop)
	}
	for _, k := range sortedKeys(a.Flags) {
		if bv, ok := b.Flags[k]; !ok || bv != a.Flags[k] {
			return fmt.Errorf("flag --%s differs (%q, %q)", k, a.Flags[k], b.Flags[k])
		}
	}
	for _, k := range sortedKeys(b.Flags) {
		if _, ok := a.Flags[k]; !ok {
			return fmt.Errorf("flag --%s differs (unset, %q)", k, b.Flags[k])
		}
	}
	if !slices.Equal(opNames(a.Ops), opNames(b.Ops)) {
		return fmt.Errorf("operations differ (%v, %v)", opNames(a.Ops), opNames(b.Ops))
	}
	return nil
}

func opNames(ops []OpResult) []string {
	n := make([]string, len(ops))
	for i, o := range ops {
		n[i] = o.Name
	}
	return n
}

func commonLabels(rs []*Result) map[string]string {
	out := map[string]string{}
	for k, v := range rs[0].Labels {
		same := true
		for _, r := range rs[1:] {
			if r.Labels[k] != v {
				same = false
				break
			}
		}
		if same {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// mergeOps merges the op lists selected by get from every result; the op
// sets were checked to be equal.
func mergeOps(rs []*Result, get func(*Result) []OpResult) ([]OpResult, error) {
	base := get(rs[0])
	out := make([]OpResult, len(base))
	for i, o := range base {
		lat, intended := hist.New(), (*hist.Histogram)(nil)
		for _, r := range rs {
			ro := get(r)[i]
			h, err := ro.Latency.Histogram()
			if err != nil {
				return nil, fmt.Errorf("op %s: %w", o.Name, err)
			}
			lat.Merge(h)
			if ro.Intended != nil {
				ih, err := ro.Intended.Histogram()
				if err != nil {
					return nil, fmt.Errorf("op %s (intended): %w", o.Name, err)
				}
				if intended == nil {
					intended = hist.New()
				}
				intended.Merge(ih)
			}
		}
		out[i] = OpResult{Name: o.Name, Latency: lat.Snapshot()}
		if intended != nil {
			s := intended.Snapshot()
			out[i].Intended = &s
		}
	}
	return out, nil
}

func sumCounters(rs []*Result, get func(*Result) map[string]int64) map[string]int64 {
	var out map[string]int64
	for _, r := range rs {
		for k, v := range get(r) {
			if out == nil {
				out = map[string]int64{}
			}
			out[k] += v
		}
	}
	return out
}

// mergeIntervals merges the parts' intervals index by index. Parts of
// one concurrent run (MergeConcurrent) may have fewer intervals when one
// ended early: every interval any part has is kept, merged over the parts
// that have it, with the edge and length of the longest; otherwise the
// merge has as many intervals as the part with the fewest.
func mergeIntervals(rs []*Result, concurrent bool) ([]Interval, error) {
	n := len(rs[0].Intervals)
	for _, r := range rs[1:] {
		if concurrent {
			n = max(n, len(r.Intervals))
		} else {
			n = min(n, len(r.Intervals))
		}
	}
	out := make([]Interval, n)
	procs := make([]string, len(rs))
	for j, r := range rs {
		if r.Client != nil {
			procs[j] = r.Client.Process
		}
	}
	for i := range n {
		var parts []*Result
		var cpus []*IntervalCPU
		var ps []string
		var at Interval // the longest part's interval i: its edge and length
		for j, r := range rs {
			if i >= len(r.Intervals) {
				continue // a concurrent part that ended early
			}
			iv := r.Intervals[i]
			parts = append(parts, &Result{Ops: iv.Ops, Counters: iv.Counters})
			cpus = append(cpus, iv.CPU)
			ps = append(ps, procs[j])
			if len(parts) == 1 || iv.Length > at.Length {
				at = iv
			}
		}
		ops, err := mergeOps(parts, func(r *Result) []OpResult { return r.Ops })
		if err != nil {
			return nil, fmt.Errorf("interval %d: %w", i+1, err)
		}
		out[i] = Interval{At: at.At, Length: at.Length, Planned: at.Planned, Ops: ops,
			Counters: sumCounters(parts, func(r *Result) map[string]int64 { return r.Counters }),
			CPU:      mergeIntervalCPU(ps, cpus)}
	}
	return out, nil
}
