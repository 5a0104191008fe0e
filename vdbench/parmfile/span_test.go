package parmfile

import (
	"strings"
	"testing"
)

func TestSpanOf(t *testing.T) {
	const (
		kib = int64(1) << 10
		mib = int64(1) << 20
		g   = int64(1 << 30)
	)
	for _, tc := range []struct {
		name       string
		capacity   int64
		block      int64
		sd         SD
		wd         WD
		start, end int64
		unit       int64
		err        string
	}{
		{name: "whole target, 4k on 512-byte blocks", capacity: g, block: 512,
			wd: WD{Xfer: Single(4 * kib)}, start: 4 * kib, end: g, unit: 4 * kib},
		{name: "1 GiB + 4 KiB, 25% for 64k", capacity: g + 4*kib, block: 4096,
			sd: SD{Range: [2]float64{0, 25}}, wd: WD{Xfer: Single(64 * kib)},
			// 25% of 1 GiB + 4 KiB is 256 MiB + 1 KiB: rounded down to 64 KiB.
			start: 64 * kib, end: 256 * mib, unit: 64 * kib},
		{name: "second quarter, 4096-byte blocks", capacity: g + 4*kib, block: 4096,
			sd: SD{Range: [2]float64{25, 50}}, wd: WD{Xfer: Single(4 * kib)},
			// 25% = 256 MiB + 1 KiB rounds up to the next 4 KiB; 50% = 512 MiB + 2 KiB rounds down.
			start: 256*mib + 4*kib, end: 512 * mib, unit: 4 * kib},
		{name: "wd range within the sd range", capacity: g, block: 512,
			sd: SD{Range: [2]float64{0, 50}}, wd: WD{Xfer: Single(8 * kib), Range: [2]float64{50, 100}},
			start: 256 * mib, end: 512 * mib, unit: 8 * kib},
		{name: "size= caps the target", capacity: 4 * g, block: 512,
			sd: SD{Size: g, Range: [2]float64{0, 25}}, wd: WD{Xfer: Single(4 * kib)},
			start: 4 * kib, end: 256 * mib, unit: 4 * kib},
		{name: "distribution aligns to the lcm", capacity: g, block: 512,
			wd:    WD{Xfer: XferSize{Sizes: []int64{4 * kib, 12 * kib, 64 * kib}, Pcts: []float64{50, 25, 25}}},
			start: 192 * kib, end: g - 64*kib, unit: 192 * kib},
		{name: "(min,max,align) aligns to align", capacity: g, block: 4096,
			wd:    WD{Xfer: XferSize{Min: 4 * kib, Max: 64 * kib, Align: 8 * kib}},
			start: 8 * kib, end: g, unit: 8 * kib},
		{name: "512-byte transfers on 512-byte blocks", capacity: 10*mib + 512, block: 512,
			wd: WD{Xfer: Single(512)}, start: 512, end: 10*mib + 512, unit: 512},
		{name: "512-byte transfer on 4096-byte blocks", capacity: g, block: 4096,
			wd: WD{Xfer: Single(512)}, err: "xfersize 512 is not a multiple of the logical block size (4096 bytes)"},
		{name: "1000-byte transfer", capacity: g, block: 512,
			wd: WD{Xfer: XferSize{Sizes: []int64{4096, 1000}, Pcts: []float64{50, 50}}}, err: "xfersize 1000 is not a multiple of the logical block size (512 bytes)"},
		{name: "align below the block size", capacity: g, block: 4096,
			wd: WD{Xfer: XferSize{Min: 4 * kib, Max: 8 * kib, Align: 512}}, err: "align 512 is not a multiple of the logical block size (4096 bytes)"},
		{name: "span smaller than a transfer", capacity: 128 * kib, block: 4096,
			sd: SD{Range: [2]float64{0, 25}}, wd: WD{Xfer: Single(64 * kib)}, err: "holds no 65536-byte transfer once aligned to 65536 bytes (the lcm of the transfer sizes and the 4096-byte logical block size"},
		{name: "size= beyond the target", capacity: g, block: 512,
			sd: SD{Size: 2 * g}, wd: WD{Xfer: Single(4 * kib)}, err: "larger than the lun"},
		{name: "bad range", capacity: g, block: 512,
			sd: SD{Range: [2]float64{50, 25}}, wd: WD{Xfer: Single(4 * kib)}, err: "range=(50,25) is not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sd.Name, tc.sd.Lun, tc.wd.Name = "sd1", "/dev/x", "wd1"
			s, err := SpanOf(tc.sd, tc.wd, tc.capacity, tc.block)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Start != tc.start || s.End != tc.end || s.Unit != tc.unit || s.BlockSize != tc.block {
				t.Errorf("span [%d, %d) unit %d, want [%d, %d) unit %d", s.Start, s.End, s.Unit, tc.start, tc.end, tc.unit)
			}
			if s.Start < s.Unit || s.Start%s.Unit != 0 || s.End%s.Unit != 0 || s.Start%tc.block != 0 {
				t.Errorf("span [%d, %d) is not aligned to %d or touches LBA 0", s.Start, s.End, s.Unit)
			}
		})
	}
}

func TestPlanXferWeights(t *testing.T) {
	p, unit, err := PlanXfer(XferSize{Sizes: []int64{4096, 8192, 65536}, Pcts: []float64{20, 30, 50}}, 512)
	if err != nil {
		t.Fatal(err)
	}
	if unit != 65536 || p.Largest != 65536 || p.Cum[0] != 0.2 || p.Cum[1] != 0.5 || p.Cum[2] != 1 {
		t.Errorf("plan %+v unit %d", p, unit)
	}
	p, unit, err = PlanXfer(XferSize{Min: 5000, Max: 70000, Align: 4096}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if p.Min != 8192 || p.Max != 69632 || p.Align != 4096 || unit != 4096 {
		t.Errorf("(5000,70000,4k) plan %+v unit %d: want sizes 8k..68k on 4k", p, unit)
	}
}

// MinSize is the least size= on which a workload has a span: twice the
// alignment unit without range= (the span starts one unit in: LBA 0 is
// never used), more with range=; one byte less has no span.
func TestMinSize(t *testing.T) {
	const kib, mib = int64(1) << 10, int64(1) << 20
	for _, tc := range []struct {
		name  string
		block int64
		sd    SD
		wd    WD
		want  int64
	}{
		{name: "4k", block: 512, wd: WD{Xfer: Single(4 * kib)}, want: 8 * kib},
		{name: "32m", block: 512, wd: WD{Xfer: Single(32 * mib)}, want: 64 * mib},
		{name: "64k on 4096-byte blocks", block: 4096, wd: WD{Xfer: Single(64 * kib)}, want: 128 * kib},
		{name: "distribution: the lcm", block: 512, wd: WD{Xfer: XferSize{Sizes: []int64{4 * kib, 12 * kib}, Pcts: []float64{50, 50}}}, want: 24 * kib},
		{name: "(min,max,align) on 4096-byte blocks", block: 4096, wd: WD{Xfer: XferSize{Min: 4 * kib, Max: 64 * kib, Align: 0}}, want: 4*kib + 64*kib},
		{name: "first half of the sd", block: 512, sd: SD{Range: [2]float64{0, 50}}, wd: WD{Xfer: Single(32 * mib)}, want: 128 * mib},
		{name: "second half of the sd", block: 512, sd: SD{Range: [2]float64{50, 100}}, wd: WD{Xfer: Single(32 * mib)}, want: 64 * mib},
		{name: "first quarter of the wd", block: 512, wd: WD{Xfer: Single(4 * kib), Range: [2]float64{0, 25}}, want: 32 * kib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sd.Name, tc.wd.Name = "sd1", "wd1"
			got, err := MinSize(tc.sd, tc.wd, tc.block)
			if err != nil || got != tc.want {
				t.Fatalf("MinSize = %d, %v; want %d", got, err, tc.want)
			}
			at := func(size int64) error {
				sd := tc.sd
				sd.Size = size
				_, err := SpanOf(sd, tc.wd, size, tc.block)
				return err
			}
			if err := at(got); err != nil {
				t.Errorf("size=%d: %v", got, err)
			}
			err = at(got - 1)
			if err == nil || !strings.Contains(err.Error(), "(valid: size= of at least "+FormatSize(got)) {
				t.Errorf("size=%d: %v", got-1, err)
			}
		})
	}
}
