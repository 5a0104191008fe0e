package blockio

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"vmbench/report"
)

// ProgressWriter is an io.Writer for Options.Out: it passes the engine's
// output on to out (when set) and turns its "Starting RD=" and "avg_"
// lines into one progress line per point on log ("point 2/13 10% ...: N
// IOPS, mean response M ms"), and its warnings and preformat lines into
// log lines. It is safe for concurrent use.
type ProgressWriter struct {
	mu         sync.Mutex
	out, log   io.Writer
	buf        []byte
	points, k  int
	label, req string
}

// NewProgressWriter returns a ProgressWriter for a run of points points
// (Run.PointCount) that writes to out (nil: nowhere) and log.
func NewProgressWriter(out, log io.Writer, points int) *ProgressWriter {
	return &ProgressWriter{out: out, log: log, points: points}
}

// Write passes b on to out, then reads its complete lines; an error is
// out's.
func (p *ProgressWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.out != nil {
		if _, err := p.out.Write(b); err != nil {
			return 0, err
		}
	}
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		p.line(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

// Flush reads a last line that has no newline.
func (p *ProgressWriter) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.line(string(p.buf))
		p.buf = nil
	}
}

// line reads one line of the engine's output (see writeStart and
// writeIntervalLine).
func (p *ProgressWriter) line(l string) {
	if rest, ok := strings.CutPrefix(l, "Starting RD="); ok {
		p.k++
		p.label, p.req = "", ""
		if i, j := strings.Index(rest, " ("), strings.Index(rest, "); I/O rate: "); i >= 0 && j > i {
			p.label = rest[i+2 : j]
			p.req, _, _ = strings.Cut(rest[j+len("); I/O rate: "):], ";")
		}
		return
	}
	if strings.HasPrefix(l, "warning: ") || strings.HasPrefix(l, "preformatting ") {
		fmt.Fprintf(p.log, "    %s\n", l)
		return
	}
	f := strings.Fields(l)
	if len(f) >= 7 && strings.HasPrefix(f[1], "avg_") {
		var rate float64
		_, _ = fmt.Sscan(f[2], &rate) // the engine's own line; 0 if it has none
		req := p.req
		if r, _, ok := strings.Cut(req, " ("); ok {
			var v float64
			if _, err := fmt.Sscan(r, &v); err == nil {
				req = "requested " + report.Grouped(v, 0) + " I/O/s"
			}
		}
		fmt.Fprintf(p.log, "    point %d/%d %s (%s): %s IOPS, mean response %s ms\n", p.k, p.points, p.label, req, report.Grouped(rate, 0), f[6])
	}
}
