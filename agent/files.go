package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"

	"vmbench/internal/atomicfile"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// IntervalVersion is the version of an interval file's JSON (Interval)
// that this vmbench writes; version 2 added CPU. Report reads versions
// OldestIntervalVersion to IntervalVersion.
const IntervalVersion = 2

// OldestIntervalVersion is the oldest interval file version Report reads.
const OldestIntervalVersion = 1

// Bounds on the files of a run directory as a campaign reads them back
// from the guest (target.Target.ReadFileMax), which the guest can change:
// a larger file is refused after at most the bound and one byte of it,
// and, where the host can tell, one that is not a regular file unread.
// result.json (and record.json, which holds Results) is bounded by
// oltp.MaxResultFileSize.
const (
	// MaxStatusSize bounds status.json, and LockFile, read to see
	// whether an agent holds a directory: a status is about 200 bytes,
	// its error's message included; 1 MiB leaves room for any message.
	MaxStatusSize = 1 << 20
	// MaxIntervalSize bounds an interval file: 8 MiB. It holds a
	// service-time and at most a response-time HDR histogram per op (5
	// for TPC-C); one of vmbench's geometry has 38,912 counts of at most
	// 9 bytes each, under 0.5 MiB in base64, so ten are under 5 MiB. A 1
	// s interval of 8 VMs' TPC-C rates takes 25 KiB.
	MaxIntervalSize = 8 << 20
	// MaxLogSize bounds log.txt as a campaign copies the check step's
	// into its log, and the output of `vmbench agent stop`: the check's
	// lines are a few KiB.
	MaxLogSize = 16 << 20
)

// IntervalPath is the path of interval seq (1, 2, ...) in a run
// directory, slash-separated and relative to it: "intervals/000001.json".
func IntervalPath(seq int) string {
	return fmt.Sprintf("%s/%06d.json", IntervalDir, seq)
}

// writeJSON writes v as indented JSON, with a newline at the end, to path
// atomically (a temporary file in the same directory, fsync, rename).
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// writeStatus writes status.json in dir atomically.
func writeStatus(dir string, s Status) error {
	return writeJSON(filepath.Join(dir, StatusFile), s)
}

// writeInterval writes iv as intervals/NNNNNN.json in dir atomically; the
// intervals directory must exist.
func writeInterval(dir string, iv Interval) error {
	return writeJSON(filepath.Join(dir, filepath.FromSlash(IntervalPath(iv.Seq))), iv)
}

// writeOutput writes the run step's Result as result.json and, when it has
// one, the Record as record.json, each atomically.
func writeOutput(dir string, res *oltp.Result, record any) error {
	if res != nil {
		if err := res.WriteFile(filepath.Join(dir, ResultFile)); err != nil {
			return fmt.Errorf("writing %s: %w", ResultFile, err)
		}
	}
	if record != nil {
		if err := writeJSON(filepath.Join(dir, RecordFile), record); err != nil {
			return fmt.Errorf("writing %s: %w", RecordFile, err)
		}
	}
	return nil
}

// decodeStrict decodes b into v refusing unknown fields and trailing data;
// errors start with name.
func decodeStrict(name string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: more than one JSON value", name)
	}
	return nil
}

// ParseStatus decodes status.json strictly. A Version other than
// StatusVersion or a State that is not one of the State constants is
// refused; errors start with "status.json: ".
func ParseStatus(b []byte) (Status, error) {
	var s Status
	if err := decodeStrict(StatusFile, b, &s); err != nil {
		return Status{}, err
	}
	if s.Version != StatusVersion {
		return Status{}, fmt.Errorf("%s: version: %d is not supported (this vmbench reads version %d)", StatusFile, s.Version, StatusVersion)
	}
	switch s.State {
	case StateStarting, StatePrepare, StateWaiting, StatePrecondition, StateMeasure,
		StateCheck, StateCleanup, StateDone, StateFailed:
	default:
		return Status{}, fmt.Errorf("%s: state: %q is not a state of this vmbench's agent", StatusFile, s.State)
	}
	return s, nil
}

// NewInterval converts report r, interval seq of a run step, to its
// file's form: the histograms become snapshots (exact count, sum, min,
// max, HDR counts). Intended is left empty when r has none; a nil
// histogram in r is an empty snapshot. r's histograms are only read.
func NewInterval(seq int, r oltp.IntervalReport) Interval {
	iv := Interval{
		Version: IntervalVersion, Seq: seq, Phase: r.Phase, At: r.At, End: r.End,
		Length: r.Length, Threads: r.Threads, Ops: append([]string(nil), r.Ops...),
		Counters: maps.Clone(r.Counters), Backlog: r.Backlog,
	}
	if r.CPU != nil {
		c := *r.CPU
		iv.CPU = &c
	}
	iv.Latency = snapshots(r.Latency)
	if r.Intended != nil {
		iv.Intended = snapshots(r.Intended)
	}
	return iv
}

func snapshots(hs []*hist.Histogram) []hist.Snapshot {
	out := make([]hist.Snapshot, len(hs))
	for i, h := range hs {
		if h != nil {
			out[i] = h.Snapshot()
		}
	}
	return out
}

// ParseInterval decodes an interval file strictly and checks it as Report
// does; errors start with "intervals/NNNNNN.json: " when the Seq is
// readable, else "interval: ".
func ParseInterval(b []byte) (Interval, error) {
	var iv Interval
	if err := decodeStrict("interval", b, &iv); err != nil {
		return Interval{}, err
	}
	if _, err := iv.Report(); err != nil {
		return Interval{}, err
	}
	return iv, nil
}

// Report converts iv back to the oltp.IntervalReport it was made from,
// exactly: the same counts, sums, minima, maxima and HDR counts (so the
// same percentiles), and the same CPU figures. It refuses an iv of a
// version outside OldestIntervalVersion..IntervalVersion, a Seq below 1,
// Latency (or a non-empty Intended) not one per op, a snapshot that does
// not decode, or CPU figures oltp.IntervalCPU.Validate refuses; errors
// start with the interval file's name.
func (iv Interval) Report() (oltp.IntervalReport, error) {
	name := "interval"
	if iv.Seq >= 1 {
		name = IntervalPath(iv.Seq)
	}
	switch {
	case iv.Version < OldestIntervalVersion || iv.Version > IntervalVersion:
		return oltp.IntervalReport{}, fmt.Errorf("%s: version: %d is not supported (this vmbench reads versions %d to %d)",
			name, iv.Version, OldestIntervalVersion, IntervalVersion)
	case iv.Seq < 1:
		return oltp.IntervalReport{}, fmt.Errorf("%s: seq: %d is not valid (1 or more)", name, iv.Seq)
	case len(iv.Latency) != len(iv.Ops):
		return oltp.IntervalReport{}, fmt.Errorf("%s: latency: %d histograms for %d ops", name, len(iv.Latency), len(iv.Ops))
	case len(iv.Intended) != 0 && len(iv.Intended) != len(iv.Ops):
		return oltp.IntervalReport{}, fmt.Errorf("%s: intended: %d histograms for %d ops", name, len(iv.Intended), len(iv.Ops))
	}
	if iv.CPU != nil {
		if err := iv.CPU.Validate(); err != nil {
			return oltp.IntervalReport{}, fmt.Errorf("%s: cpu: %w", name, err)
		}
	}
	r := oltp.IntervalReport{
		Phase: iv.Phase, At: iv.At, End: iv.End, Length: iv.Length, Threads: iv.Threads,
		Ops: append([]string(nil), iv.Ops...), Counters: iv.Counters, Backlog: iv.Backlog,
	}
	if iv.CPU != nil {
		c := *iv.CPU
		r.CPU = &c
	}
	var err error
	if r.Latency, err = histograms(name, "latency", iv.Ops, iv.Latency); err != nil {
		return oltp.IntervalReport{}, err
	}
	if len(iv.Intended) > 0 {
		if r.Intended, err = histograms(name, "intended", iv.Ops, iv.Intended); err != nil {
			return oltp.IntervalReport{}, err
		}
	}
	return r, nil
}

func histograms(name, field string, ops []string, ss []hist.Snapshot) ([]*hist.Histogram, error) {
	hs := make([]*hist.Histogram, len(ss))
	for i, s := range ss {
		h, err := s.Histogram()
		if err != nil {
			return nil, fmt.Errorf("%s: %s of %s: %w", name, field, ops[i], err)
		}
		hs[i] = h
	}
	return hs, nil
}

// ParseResult decodes result.json (oltp.DecodeResult: version first, then
// strictly, then validated); errors start with name, the file's name as
// the caller read it.
func ParseResult(name string, b []byte) (*oltp.Result, error) {
	return oltp.DecodeResult(name, b)
}
