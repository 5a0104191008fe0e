package vdbench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/oltp"
	"vmbench/vdbench/blockio"
	"vmbench/vdbench/parmfile"
)

// RecordKind and RecordVersion identify a RunRecord file. Version 2 added
// the points' Overshot and Flag, and holds oltp.Result version 2 or later (status,
// overruns, backlog). ReadRunRecord reads versions 1 and 2 (a version 1
// point has no flag but its saturation); a newer version is refused.
const (
	RecordKind    = "vdbench-curve"
	RecordVersion = 2
	// oldestRecordVersion is the oldest version ReadRunRecord reads.
	oldestRecordVersion = 1
)

// RunRecord is the JSON file of one run (`vmbench vdbench run`) or one
// suite profile: each point's figures, its merged oltp.Result and the
// per-SD Results it was merged from (so points of several hosts merge
// with oltp.Merge as any Result does), and the review summary.
// Durations are integer nanoseconds.
type RunRecord struct {
	Version       int      `json:"version"`
	Kind          string   `json:"kind"`
	Run           string   `json:"run"`
	Profile       string   `json:"profile,omitempty"`
	Title         string   `json:"title,omitempty"`
	Approximation bool     `json:"approximation,omitempty"`
	Targets       []string `json:"targets"`
	// Parameters is the run as a parameter file (sd, wd and rd lines).
	Parameters  string        `json:"parameters"`
	Start       time.Time     `json:"start"`
	End         time.Time     `json:"end"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Error       string        `json:"error,omitempty"`
	Points      []PointRecord `json:"points"`
	Warnings    []string      `json:"warnings,omitempty"`
	Summary     SummaryRecord `json:"summary"`
	// VMs names the VMs whose records MergeVMRecords merged into this
	// one, in their order; empty for a run in one place.
	VMs []string `json:"vms,omitempty"`

	// curve is the CurveResult NewRunRecord described, with each point's
	// intervals (nil for a record read back).
	curve *blockio.CurveResult
}

// Partial implements workload.PartialRecord: the run was interrupted or
// failed after its record was started, so some of its points are missing
// or cut short.
func (r *RunRecord) Partial() bool { return r.Interrupted || r.Error != "" }

// curveResult is the run's CurveResult: the one measured, else the one
// the record holds.
func (r *RunRecord) curveResult() *blockio.CurveResult {
	if r.curve != nil {
		return r.curve
	}
	return r.Curve()
}

// Latencies are the figures of one latency histogram.
type Latencies struct {
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// PointRecord is one point of a RunRecord.
type PointRecord struct {
	Label string `json:"label"`
	// Requested is the rate asked for, 0 for the max run.
	Requested float64 `json:"requested_iops,omitempty"`
	Achieved  float64 `json:"achieved_iops"`
	// MBps is in MiB (1024²) per second, as vdbench's MB/sec.
	MBps      float64 `json:"mb_per_sec"`
	Saturated bool    `json:"saturated,omitempty"`
	// Overshot and Flag are Point's: above the request, and why the point
	// is flagged in words.
	Overshot bool   `json:"above_request,omitempty"`
	Flag     string `json:"flag,omitempty"`
	// Service is the service time of each I/O; Intended the latency from
	// its intended start (rate-controlled points only).
	Service  Latencies      `json:"service_time"`
	Intended *Latencies     `json:"from_intended_start,omitempty"`
	Targets  []TargetPoint  `json:"targets,omitempty"`
	Result   *oltp.Result   `json:"result"`
	PerSD    []*oltp.Result `json:"per_sd,omitempty"`
	// VMRange is the spread of the point across the VMs of a merged
	// record (MergeVMRecords); nil for a run in one place.
	VMRange *blockio.VMRange `json:"vm_range,omitempty"`
	// Scheduled is Point.Scheduled: the planned start on the common grid
	// (absent without a common start).
	Scheduled time.Time `json:"scheduled,omitzero"`
}

// TargetPoint is one SD's share of a point.
type TargetPoint struct {
	SD       string    `json:"sd"`
	Lun      string    `json:"lun"`
	Achieved float64   `json:"achieved_iops"`
	Service  Latencies `json:"service_time"`
}

// CrossingRecord is a Crossing in a RunRecord.
type CrossingRecord struct {
	Threshold    time.Duration `json:"threshold_ns"`
	IOPS         float64       `json:"iops"`
	NotReached   bool          `json:"not_reached,omitempty"`
	AboveAtStart bool          `json:"above_at_start,omitempty"`
}

// SummaryRecord is a Summary in a RunRecord.
type SummaryRecord struct {
	StartIOPS    float64        `json:"start_iops"`
	StartLatency time.Duration  `json:"start_latency_ns"`
	Cross100us   CrossingRecord `json:"cross_100us"`
	Cross1ms     CrossingRecord `json:"cross_1ms"`
	PeakIOPS     float64        `json:"peak_iops"`
	PeakGBps     float64        `json:"peak_gb_per_sec"`
	PeakLatency  time.Duration  `json:"peak_latency_ns"`
	PeakLabel    string         `json:"peak_point"`
}

func latencies(res *oltp.Result, intended bool) (*Latencies, error) {
	h, err := blockio.Latency(res, intended)
	if err != nil || h.Count() == 0 {
		return nil, err
	}
	return &Latencies{Mean: h.Mean(), P50: h.Percentile(50), P99: h.Percentile(99), Max: h.Max()}, nil
}

func crossingRecord(c Crossing) CrossingRecord {
	return CrossingRecord(c)
}

// NewRunRecord describes cr, the outcome of run; runErr, if set, is why
// the run stopped early.
func NewRunRecord(run parmfile.Run, cr *blockio.CurveResult, runErr error) (*RunRecord, error) {
	r := &RunRecord{Version: RecordVersion, Kind: RecordKind, Run: run.Name, Points: []PointRecord{}, Warnings: cr.Warnings, curve: cr,
		Parameters: (&parmfile.Params{SDs: run.SDs, WDs: run.WDs, RDs: []parmfile.RD{run.RD}}).Text()}
	for _, sd := range run.SDs {
		r.Targets = append(r.Targets, sd.Lun)
	}
	if runErr != nil {
		r.Error = runErr.Error()
		r.Interrupted = errors.Is(runErr, oltp.ErrInterrupted)
	}
	for _, p := range cr.Points {
		if p.Result == nil {
			continue
		}
		pr := PointRecord{Label: p.Label, Requested: p.Requested, Achieved: p.Achieved, Saturated: p.Saturated, Overshot: p.Overshot, Flag: p.Flag,
			MBps: bytesPerSec(p.Result) / (1 << 20), Result: p.Result, PerSD: p.PerSD, Scheduled: p.Scheduled}
		s, err := latencies(p.Result, false)
		if err != nil {
			return nil, fmt.Errorf("point %s: %w", p.Label, err)
		}
		if s != nil {
			pr.Service = *s
		}
		if pr.Intended, err = latencies(p.Result, true); err != nil {
			return nil, fmt.Errorf("point %s: %w", p.Label, err)
		}
		if pr.Targets, err = targetPoints(run, p); err != nil {
			return nil, err
		}
		start := p.Result.Start
		if p.Result.Precondition != nil {
			start = p.Result.Precondition.Start
		}
		if r.Start.IsZero() || start.Before(r.Start) {
			r.Start = start
		}
		if p.Result.End.After(r.End) {
			r.End = p.Result.End
		}
		r.Interrupted = r.Interrupted || p.Result.Interrupted
		r.Points = append(r.Points, pr)
	}
	r.Summary = summaryRecord(Summarize(cr))
	return r, nil
}

// targetPoints returns the per-SD figures of point p of run.
func targetPoints(run parmfile.Run, p blockio.Point) ([]TargetPoint, error) {
	var tps []TargetPoint
	for i, sdr := range p.PerSD {
		tp := TargetPoint{SD: sdr.Labels["sd"], Lun: sdr.Labels["lun"]}
		if i < len(run.SDs) && tp.SD == "" {
			tp.SD, tp.Lun = run.SDs[i].Name, run.SDs[i].Lun
		}
		var n int64
		for _, o := range sdr.Ops {
			n += o.Latency.Count
		}
		tp.Achieved = sdr.PerSecond(n)
		if s, err := latencies(sdr, false); err != nil {
			return nil, fmt.Errorf("point %s, sd=%s: %w", p.Label, tp.SD, err)
		} else if s != nil {
			tp.Service = *s
		}
		tps = append(tps, tp)
	}
	return tps, nil
}

// summaryRecord is s as a RunRecord holds it.
func summaryRecord(s Summary) SummaryRecord {
	return SummaryRecord{StartIOPS: s.StartIOPS, StartLatency: s.StartLatency, Cross100us: crossingRecord(s.Cross100us),
		Cross1ms: crossingRecord(s.Cross1ms), PeakIOPS: s.PeakIOPS, PeakGBps: s.PeakGBps, PeakLatency: s.PeakLatency, PeakLabel: s.PeakLabel}
}

// Curve returns the record's points as a CurveResult (for WriteCurve,
// blockio.WriteIntervals and Summarize).
func (r *RunRecord) Curve() *blockio.CurveResult {
	c := &blockio.CurveResult{Run: r.Run, Warnings: r.Warnings}
	for _, p := range r.Points {
		c.Points = append(c.Points, blockio.Point{Label: p.Label, Requested: p.Requested, Achieved: p.Achieved,
			Saturated: p.Saturated, Overshot: p.Overshot, Flag: p.Flag, Result: p.Result, PerSD: p.PerSD, Scheduled: p.Scheduled, VMRange: p.VMRange})
	}
	return c
}

// CurveOrder returns the points in the order a latency curve joins them:
// by requested rate, the max run (the closed-loop ceiling) last.
func (r *RunRecord) CurveOrder() []PointRecord {
	ps := slices.Clone(r.Points)
	slices.SortStableFunc(ps, func(a, b PointRecord) int {
		if (a.Requested == 0) != (b.Requested == 0) {
			if a.Requested == 0 {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Requested, b.Requested)
	})
	return ps
}

// WriteFile writes the record as indented JSON, atomically
// (atomicfile.Write): an interrupted write never leaves a partial file.
func (r *RunRecord) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// MaxRecordFileSize bounds a RunRecord file as ReadRunRecord reads it:
// oltp.MaxResultFileSize (384 MiB; a record holds a Result per point and
// per target). The largest vmbench writes: measured on a simulated
// suite's record with HDR histograms of realistic rates, repeated to a
// profile's 13 points (the max run and a curve of 12) of 70 s on 4 drives
// at 200,000 I/O/s each, 16 MiB at the shipped 5 s intervals; at 1 s
// intervals (interval=1) on 24 drives, 319 MiB.
const MaxRecordFileSize = oltp.MaxResultFileSize

// ReadRunRecord reads and checks a RunRecord file: a regular file (not a
// symlink, a FIFO or a device) of at most MaxRecordFileSize bytes, checked
// before it is read (boundedread.ReadFile), then strict JSON, its kind and
// version, and every Result. A missing file's error wraps fs.ErrNotExist.
func ReadRunRecord(path string) (*RunRecord, error) {
	b, err := boundedread.ReadFile(path, MaxRecordFileSize)
	if err != nil {
		return nil, err
	}
	return parseRunRecord(path, b)
}

// parseRunRecord is ReadRunRecord of b, read from path.
func parseRunRecord(path string, b []byte) (*RunRecord, error) {
	var v struct {
		Kind    string `json:"kind"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench vdbench record: %w", path, err)
	}
	if v.Kind != RecordKind || v.Version < oldestRecordVersion || v.Version > RecordVersion {
		return nil, fmt.Errorf("%s: kind %q version %d is not a %s record of version %d to %d", path, v.Kind, v.Version, RecordKind, oldestRecordVersion, RecordVersion)
	}
	var r RunRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench vdbench record: %w", path, err)
	}
	for _, p := range r.Points {
		if p.Result == nil {
			return nil, fmt.Errorf("%s: point %s has no result", path, p.Label)
		}
		for _, res := range append([]*oltp.Result{p.Result}, p.PerSD...) {
			if err := res.Validate(); err != nil {
				return nil, fmt.Errorf("%s: point %s: %w", path, p.Label, err)
			}
		}
	}
	return &r, nil
}
