package vdbench

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/blockio"
)

// VMRecord is one VM's record of a run that ran in several VMs at once
// (a block suite in VMs): VM names it.
type VMRecord struct {
	VM     string
	Record *RunRecord
}

// lunValue matches an sd's lun= value in a parameter text: the one part
// of a run that differs between VMs (each runs on its own disks).
var lunValue = regexp.MustCompile(`lun=[^,\s]*`)

// MergeVMRecords merges the records of one run made in several VMs at
// once, from a common start (see blockio.Options.StartAt), point by point, in the
// order of the first record (a point only later records have comes
// after): each point's Results merged exactly as concurrent runs (the
// histograms merged, never averaged), Requested, Achieved and MB/s
// summed, PerSD every VM's SDs with a "vm" label, Targets named
// "<vm>:<lun>", and VMRange the spread across the VMs. A point some VMs
// lack (a VM failed or was stopped) is merged over those that have it and
// flagged "measured on k of n VMs". Each VM's warnings are kept, prefixed
// with its name, beside the merge's own: a point whose VMs' measured
// windows do not overlap (oltp.Merge refuses them) is warned about.
//
// Each VM's curve points ask for the curve's percentages of that VM's own
// max run (blockio.CurveRate), so a merged point asks in total for its
// percentage of the sum of the VMs' maxes, which is what a multi-host
// vdbench curve asks in total; vdbench splits that total evenly over its
// hosts, vmbench in proportion to each VM's own max.
//
// It refuses no parts, a nil record, and records of different runs (the
// run's name, or its parameters other than the sds' lun= values).
func MergeVMRecords(parts []VMRecord) (*RunRecord, error) {
	if err := checkVMRecords(parts); err != nil {
		return nil, err
	}
	first := parts[0].Record
	m := &RunRecord{Version: RecordVersion, Kind: RecordKind, Run: first.Run, Profile: first.Profile, Title: first.Title,
		Approximation: first.Approximation, Parameters: first.Parameters, Points: []PointRecord{}}
	var errs []string
	for _, p := range parts {
		m.VMs = append(m.VMs, p.VM)
		for _, lun := range p.Record.Targets {
			m.Targets = append(m.Targets, p.VM+":"+lun)
		}
		for _, w := range p.Record.Warnings {
			m.Warnings = append(m.Warnings, p.VM+": "+w)
		}
		if p.Record.Error != "" {
			errs = append(errs, p.VM+": "+p.Record.Error)
		}
		m.Interrupted = m.Interrupted || p.Record.Interrupted
		if m.Start.IsZero() || (!p.Record.Start.IsZero() && p.Record.Start.Before(m.Start)) {
			m.Start = p.Record.Start
		}
		if p.Record.End.After(m.End) {
			m.End = p.Record.End
		}
	}
	m.Error = strings.Join(errs, "; ")
	for _, label := range pointLabels(parts) {
		pr, warn, err := mergeVMPoint(label, parts)
		if err != nil {
			return nil, err
		}
		if warn != "" {
			m.Warnings = append(m.Warnings, warn)
		}
		m.Points = append(m.Points, pr)
	}
	m.Summary = summaryRecord(Summarize(m.Curve()))
	return m, nil
}

// checkVMRecords refuses what MergeVMRecords cannot merge.
func checkVMRecords(parts []VMRecord) error {
	if len(parts) == 0 {
		return errors.New("vdbench: a merge of no VM records")
	}
	var first *RunRecord
	for i, p := range parts {
		switch {
		case p.Record == nil:
			return fmt.Errorf("vdbench: VM %q has no record", p.VM)
		case p.VM == "" || slices.ContainsFunc(parts[:i], func(q VMRecord) bool { return q.VM == p.VM }):
			return fmt.Errorf("vdbench: VM name %q is empty or given twice", p.VM)
		case first == nil:
			first = p.Record
		case p.Record.Run != first.Run:
			return fmt.Errorf("vdbench: VM %s ran rd=%s and %s ran rd=%s: only one run's records merge", p.VM, p.Record.Run, parts[0].VM, first.Run)
		case lunValue.ReplaceAllString(p.Record.Parameters, "lun=") != lunValue.ReplaceAllString(first.Parameters, "lun="):
			return fmt.Errorf("vdbench: VM %s's run %s has other parameters than %s's (beyond the sds' lun=): only one run's records merge", p.VM, p.Record.Run, parts[0].VM)
		}
	}
	return nil
}

// pointLabels are the labels of the parts' points: the first record's
// order, then any label only later records have.
func pointLabels(parts []VMRecord) []string {
	var labels []string
	for _, p := range parts {
		for _, pr := range p.Record.Points {
			if !slices.Contains(labels, pr.Label) {
				labels = append(labels, pr.Label)
			}
		}
	}
	return labels
}

// mergeVMPoint merges point label of every part that has it; warn says
// when the VMs' measured windows did not overlap.
func mergeVMPoint(label string, parts []VMRecord) (pr PointRecord, warn string, err error) {
	var results []*oltp.Result
	var vms []VMRecord
	var own []PointRecord
	for _, p := range parts {
		for _, q := range p.Record.Points {
			if q.Label == label && q.Result != nil {
				results, vms, own = append(results, q.Result), append(vms, p), append(own, q)
			}
		}
	}
	results = withTotalRate(results, own)
	merged, err := oltp.MergeWith(oltp.MergeOptions{Concurrent: true, Incomplete: true}, results...)
	if err != nil {
		return pr, "", fmt.Errorf("point %s: %w", label, err)
	}
	if _, err := oltp.MergeWith(oltp.MergeOptions{Incomplete: true}, results...); err != nil {
		warn = fmt.Sprintf("point %s: the VMs' measured windows do not overlap (%v): its figures add up runs that did not run side by side", label, err)
	}
	pr = PointRecord{Label: label, Result: merged, Scheduled: own[0].Scheduled}
	for i, q := range own {
		pr.Requested += q.Requested
		pr.Achieved += q.Achieved
		pr.MBps += q.MBps
		for _, sd := range q.PerSD {
			c := *sd
			c.Labels = maps.Clone(sd.Labels)
			if c.Labels == nil {
				c.Labels = map[string]string{}
			}
			c.Labels["vm"] = vms[i].VM
			pr.PerSD = append(pr.PerSD, &c)
		}
		for _, t := range q.Targets {
			t.SD, t.Lun = vms[i].VM+"/"+t.SD, vms[i].VM+":"+t.Lun
			pr.Targets = append(pr.Targets, t)
		}
	}
	if err := pr.mergedFigures(len(own), len(parts)); err != nil {
		return pr, "", err
	}
	pr.VMRange, err = vmRange(own)
	return pr, warn, err
}

// mergedFigures sets a merged point's latencies and flags from its
// summed rates: saturated and above its request as for one run, and
// "measured on k of n VMs" when some VMs lack it.
func (pr *PointRecord) mergedFigures(have, of int) error {
	s, err := latencies(pr.Result, false)
	if err != nil {
		return fmt.Errorf("point %s: %w", pr.Label, err)
	}
	if s != nil {
		pr.Service = *s
	}
	if pr.Intended, err = latencies(pr.Result, true); err != nil {
		return fmt.Errorf("point %s: %w", pr.Label, err)
	}
	if pr.Requested > 0 {
		pr.Saturated = pr.Achieved < blockio.SaturationRatio*pr.Requested
		pr.Overshot = pr.Achieved > blockio.OvershootRatio*pr.Requested
	}
	flag := blockio.PointFlag(blockio.Point{Requested: pr.Requested, Achieved: pr.Achieved, Saturated: pr.Saturated, Overshot: pr.Overshot, Result: pr.Result})
	if have < of {
		flag = strings.TrimPrefix(flag+fmt.Sprintf("; measured on %d of %d VMs", have, of), "; ")
	}
	pr.Flag = flag
	return nil
}

// vmRange is the spread of own, one point per VM.
func vmRange(own []PointRecord) (*blockio.VMRange, error) {
	r := &blockio.VMRange{VMs: len(own)}
	var p95 time.Duration
	for i, q := range own {
		h, err := blockio.Latency(q.Result, false)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", q.Label, err)
		}
		mean, p99 := h.Mean(), h.Percentile(99)
		if i == 0 || q.Achieved < r.IOPSMin {
			r.IOPSMin = q.Achieved
		}
		if q.Achieved > r.IOPSMax {
			r.IOPSMax = q.Achieved
		}
		if i == 0 || mean < r.MeanMin {
			r.MeanMin = mean
		}
		r.MeanMax = max(r.MeanMax, mean)
		if i == 0 || p99 < r.P99Min {
			r.P99Min = p99
		}
		r.P99Max = max(r.P99Max, p99)
		p95 += h.Percentile(95)
	}
	r.MeanOfP95 = p95 / time.Duration(len(own))
	return r, nil
}

// withTotalRate returns copies of the VMs' point Results whose iorate
// flag is the point's total request: each VM asked for its own share of
// a curve point (a percentage of its own max run), and oltp.Merge merges
// only Results of the same flags. The parts' own Results are left as
// they are.
func withTotalRate(results []*oltp.Result, own []PointRecord) []*oltp.Result {
	var total float64
	for _, q := range own {
		total += q.Requested
	}
	rate := "max"
	if total > 0 {
		rate = strconv.FormatFloat(total, 'f', -1, 64)
	}
	with := func(r *oltp.Result) *oltp.Result {
		c := *r
		c.Flags = maps.Clone(r.Flags)
		if _, ok := c.Flags["iorate"]; ok {
			c.Flags["iorate"] = rate
		}
		return &c
	}
	out := make([]*oltp.Result, len(results))
	for i, r := range results {
		out[i] = with(r)
		if r.Precondition != nil {
			out[i].Precondition = with(r.Precondition)
		}
	}
	return out
}
