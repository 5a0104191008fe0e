package parmfile

import (
	"maps"
	"slices"
	"time"
)

// ParseSeconds reads a duration as vdbench's elapsed=, interval= and
// warmup= (and its -e, -i, -w options): whole seconds, or with m or h.
func ParseSeconds(s string) (time.Duration, error) { return parseSeconds(s) }

// Overrides replace the times of every rd of a parameter file, as
// vdbench's -e, -i and -w options do, and the curve points of every
// iorate=curve rd. Nil or empty fields keep the file's values.
type Overrides struct {
	Elapsed, Interval, Warmup *time.Duration
	Curve                     []float64
}

// Override applies o to every rd of p and validates the result. When
// elapsed= is replaced and interval= is not, an interval that no longer
// fits (elapsed under two intervals, or not a multiple of it) becomes
// vdbench's default for the new elapsed: min(elapsed/2, 60 s) in whole
// seconds.
func (p *Params) Override(o Overrides) error {
	for i := range p.RDs {
		rd := &p.RDs[i]
		// An error in a replaced value names the rd's line, not the
		// file's keyword that no longer applies.
		rd.keyLines = maps.Clone(rd.keyLines)
		for kw, set := range map[string]bool{"elapsed": o.Elapsed != nil, "interval": o.Interval != nil,
			"warmup": o.Warmup != nil, "curve": len(o.Curve) > 0 && rd.IORate.Curve} {
			if set {
				delete(rd.keyLines, kw)
			}
		}
		if o.Elapsed != nil {
			rd.Elapsed = *o.Elapsed
			if o.Interval == nil && (rd.Interval <= 0 || rd.Elapsed < 2*rd.Interval || rd.Elapsed%rd.Interval != 0) {
				rd.Interval = max(min(rd.Elapsed/2, DefaultMaxInterval).Truncate(time.Second), time.Second)
			}
		}
		if o.Interval != nil {
			rd.Interval = *o.Interval
		}
		if o.Warmup != nil {
			rd.Warmup, rd.WarmupSet = *o.Warmup, true
		}
		if len(o.Curve) > 0 && rd.IORate.Curve {
			rd.Curve = slices.Clone(o.Curve)
		}
	}
	return p.Validate()
}
