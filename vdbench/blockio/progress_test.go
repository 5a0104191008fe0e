package blockio

import (
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/parmfile"
)

func TestProgressWriter(t *testing.T) {
	var log, out strings.Builder
	p := NewProgressWriter(&out, &log, 2)
	_ = writeStart(p, "rd1", "max", 0, parmfile.RD{Elapsed: 2e9}, time.Second, oltp.Exponential)
	f := newFigures()
	f.read.Record(100 * time.Microsecond)
	f.length = time.Second
	_ = writeIntervalLine(p, time.Now(), "avg_2-2", f)
	_ = writeStart(p, "rd1", "50%", 2500, parmfile.RD{Elapsed: 2e9}, time.Second, oltp.Exponential)
	_ = writeIntervalLine(p, time.Now(), "avg_2-2", f)
	if _, err := p.Write([]byte("warning: something")); err != nil {
		t.Fatal(err)
	}
	p.Flush()
	want := "    point 1/2 max (Uncontrolled MAX): 1 IOPS, mean response 0.100 ms\n" +
		"    point 2/2 50% (requested 2,500 I/O/s): 1 IOPS, mean response 0.100 ms\n    warning: something\n"
	if log.String() != want {
		t.Errorf("log\n%q\nwant\n%q", log.String(), want)
	}
	if !strings.Contains(out.String(), "Starting RD=rd1 (50%)") {
		t.Errorf("output not passed on: %q", out.String())
	}
}
