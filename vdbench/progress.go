package vdbench

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"vmbench/report"
)

// progressWriter passes the engine's output on to out (when set) and
// turns its "Starting RD=" and "avg_" lines into one progress line per
// point on log, and its warnings into log lines.
type progressWriter struct {
	mu         sync.Mutex
	out, log   io.Writer
	buf        []byte
	points, k  int
	label, req string
}

func newProgressWriter(out, log io.Writer, points int) *progressWriter {
	return &progressWriter{out: out, log: log, points: points}
}

func (p *progressWriter) Write(b []byte) (int, error) {
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

func (p *progressWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.line(string(p.buf))
		p.buf = nil
	}
}

// line reads one line of the engine's output (see writeStart and
// writeIntervalLine).
func (p *progressWriter) line(l string) {
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
