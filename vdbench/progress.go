package vdbench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// CrossingText says where a crossing is, briefly: "at 123,456 IOPS",
// "not reached (up to 98,765 IOPS)", "above at the start (1,201 IOPS)".
func CrossingText(c Crossing) string {
	switch {
	case c.AboveAtStart:
		return "above at the start (" + fmtIOPS(c.IOPS) + " IOPS)"
	case c.NotReached:
		return "not reached (up to " + fmtIOPS(c.IOPS) + " IOPS)"
	}
	return "at " + fmtIOPS(c.IOPS) + " IOPS"
}

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
				req = "requested " + fmtIOPS(v) + " I/O/s"
			}
		}
		fmt.Fprintf(p.log, "    point %d/%d %s (%s): %s IOPS, mean response %s ms\n", p.k, p.points, p.label, req, fmtIOPS(rate), f[6])
	}
}

// sdFlags returns each lun's SD as the runs open it, and whether any run
// writes to it.
func sdFlags(runs []Run) (sds []SD, writes map[string]bool) {
	writes = map[string]bool{}
	for _, r := range runs {
		for _, sd := range r.SDs {
			if !slices.ContainsFunc(sds, func(x SD) bool { return x.Lun == sd.Lun }) {
				sds = append(sds, sd)
			}
			for _, wd := range r.WDs {
				if wd.RdPct < 100 && slices.Contains(wd.SDs, sd.Name) {
					writes[sd.Lun] = true
				}
			}
		}
	}
	return sds, writes
}

// CheckTargets opens every lun the runs use as they would (for writing
// when a run writes to it or extends it, with the safety checks of
// OpenTarget: in use, mounted, signature unless o.Force, a file vmbench
// did not make unless o.OverwriteFiles), and closes it again. It creates
// and changes nothing: a missing file is accepted only when its sd has
// size= and its directory exists (the run creates it), and an existing
// file is opened without growing it. Every workload on an existing target
// must have a span on it (SpanOf, with the target's block size and
// capacity: an 8 KiB file holds no 64 KiB transfer). Every problem is
// reported.
func CheckTargets(runs []Run, o TargetOptions) error {
	sds, writes := sdFlags(runs)
	var errs []error
	for _, sd := range sds {
		st, err := os.Stat(sd.Lun)
		switch {
		case errors.Is(err, os.ErrNotExist) && sd.Size > 0:
			if dir, derr := os.Stat(filepath.Dir(sd.Lun)); derr != nil || !dir.IsDir() {
				errs = append(errs, fmt.Errorf("sd=%s: %s does not exist, and neither does its directory %s", sd.Name, sd.Lun, filepath.Dir(sd.Lun)))
			}
			continue
		case errors.Is(err, os.ErrNotExist):
			errs = append(errs, fmt.Errorf("sd=%s: target %s does not exist (valid: an existing block device or file; a new file needs size=)", sd.Name, sd.Lun))
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("sd=%s: %w", sd.Name, err))
			continue
		}
		probe := sd.clone()
		write := writes[sd.Lun]
		if st.Mode().IsRegular() {
			write = write || sd.Size > st.Size() // the run extends it: a write too
			probe.Size = 0                       // never grow (preformat) a file while checking
		}
		t, err := OpenTarget(probe, TargetOptions{Write: write, Force: o.Force, OverwriteFiles: o.OverwriteFiles, checkOnly: true})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		capacity := t.Capacity()
		if !t.Device {
			capacity = max(capacity, sd.Size) // the run grows a smaller file to size=
		}
		errs = append(errs, checkSpans(runs, sd.Lun, capacity, t.BlockSize())...)
		if err := t.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sd=%s: closing %s: %w", sd.Name, sd.Lun, err))
		}
	}
	return errors.Join(errs...)
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
