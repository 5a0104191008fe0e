package agent

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"vmbench/internal/atomicfile"
	"vmbench/oltp/hist"
)

// hlog builds intervals.hlog in memory, one line per op and interval, with
// hdrhistogram-go's log writer. The file is written whole and atomically
// (flush) when the run step ends, so a reader never sees part of it and
// the measured machine does no extra I/O during the run.
//
// Values are latencies in nanoseconds, as oltp/hist records them (the
// Interval_Max column is in milliseconds, the writer's default ratio for
// nanosecond values). Timestamps are seconds relative to the BaseTime line:
// the first interval's start on the guest's clock, in whole seconds since
// the epoch, so a reader's absolute times are exact to the millisecond.
type hlog struct {
	buf    bytes.Buffer
	w      *hdr.HistogramLogWriter
	header bool
}

// add appends iv's lines, tagged "<phase>/<op>" (a comma, space or line
// break in a name becomes '_', which the format does not allow), each
// spanning [End-Length, End] in milliseconds.
func (l *hlog) add(iv Interval) error {
	start := iv.End.Add(-iv.Length)
	if !l.header {
		base := start.Unix() * 1000 // whole seconds: the BaseTime line holds no fraction
		l.w = hdr.NewHistogramLogWriter(&l.buf)
		l.w.SetBaseTime(base)
		for _, err := range []error{
			l.w.OutputLogFormatVersion(),
			l.w.OutputComment("[vmbench agent: latencies in nanoseconds; Interval_Max in milliseconds; tag <phase>/<op>]"),
			l.w.OutputStartTime(base),
			l.w.OutputBaseTime(base),
			l.w.OutputLegend(),
		} {
			if err != nil {
				return fmt.Errorf("%s: %w", HlogFile, err)
			}
		}
		l.header = true
	}
	for i, op := range iv.Ops {
		h, err := hdrOf(iv.Latency[i])
		if err != nil {
			return fmt.Errorf("%s: %s of %s: %w", HlogFile, IntervalPath(iv.Seq), op, err)
		}
		h.SetTag(tagName(string(iv.Phase) + "/" + op))
		h.SetStartTimeMs(start.UnixMilli())
		h.SetEndTimeMs(iv.End.UnixMilli())
		if err := l.w.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("%s: %w", HlogFile, err)
		}
	}
	return nil
}

// flush writes the log to dir atomically; a log with no interval is not
// written.
func (l *hlog) flush(dir string) error {
	if !l.header {
		return nil
	}
	if err := atomicfile.Write(filepath.Join(dir, HlogFile), l.buf.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", HlogFile, err)
	}
	return nil
}

// hdrOf decodes a snapshot's HDR counts; an empty snapshot is an empty
// histogram of oltp/hist's geometry.
func hdrOf(s hist.Snapshot) (*hdr.Histogram, error) {
	if s.Count == 0 {
		return hdr.New(1, int64(hist.Highest), hist.SignificantDigits), nil
	}
	return hdr.Decode([]byte(s.HDR))
}

func tagName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || r == ' ' || r == '\r' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}
