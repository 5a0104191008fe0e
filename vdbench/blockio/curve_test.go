package blockio

import (
	"slices"
	"strings"
	"testing"
	"time"

	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

func TestCurveRate(t *testing.T) {
	for _, tc := range []struct {
		max, pct, want float64
	}{
		{4000, 50, 2000},       // exact multiple of 100
		{4000, 120, 4800},      // above 100% is allowed
		{20000, 10, 2000},      // 2000.0000000000002 in float: not rounded up to 2100
		{10005, 10, 1100},      // 1000.5 is above 1,000: up to a multiple of 100
		{10000, 10, 1000},      // exactly 1,000: multiple of 10
		{9999, 10, 1000},       // 999.9: up to a multiple of 10
		{3333, 10, 340},        // 333.3 -> 340
		{123456, 70, 86500},    // 86419.2 -> 86500
		{2358609, 50, 1179400}, // 1179304.5 -> 1179400
		{50, 10, 10},           // 5 -> 10
		{1, 10, 10},            // 0.1 -> 10
		{TooShortMax, 50, 5000},
	} {
		if got := CurveRate(tc.max, tc.pct); got != tc.want {
			t.Errorf("CurveRate(%g, %g) = %g, want %g", tc.max, tc.pct, got, tc.want)
		}
	}
}

// fakePoints returns a pointRunner that achieves min(rate, ceiling)
// (ceiling for max) with the mean service time lat(rate), and records
// what it was asked for.
func fakePoints(ceiling float64, lat func(rate float64) time.Duration, asked *[]string) pointRunner {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func(label string, rate float64) (Point, error) {
		*asked = append(*asked, label+"="+RateLabel(rate))
		got := ceiling
		if rate > 0 {
			got = min(rate, ceiling)
		}
		l := lat(got)
		if rate == 0 {
			l = lat(ceiling)
		}
		return Point{Label: label, Achieved: got, Result: blocktest.Result(t0, time.Second, blocktest.Repeat(l, 10), nil, rate > 0)}, nil
	}
}

func TestRunPoints(t *testing.T) {
	linear := func(r float64) time.Duration { return time.Duration(r) * time.Microsecond / 10 } // 4000 IOPS -> 400 µs
	for _, tc := range []struct {
		name      string
		rd        parmfile.RD
		ceiling   float64
		asked     []string
		saturated []string
		warning   string
	}{
		{name: "default points", rd: parmfile.RD{IORate: parmfile.IORate{Curve: true}}, ceiling: 4000,
			asked: []string{"max=0", "10%=400", "50%=2000", "70%=2800", "80%=3200", "90%=3600", "100%=4000"}},
		{name: "curve= with points above 100%", rd: parmfile.RD{IORate: parmfile.IORate{Curve: true}, Curve: []float64{10, 100, 110, 120}}, ceiling: 123456,
			asked: []string{"max=0", "10%=12400", "100%=123500", "110%=135900", "120%=148200"}, saturated: []string{"110%", "120%"}},
		{name: "stopcurve skips the rest", rd: parmfile.RD{IORate: parmfile.IORate{Curve: true}, StopCurve: 250 * time.Microsecond}, ceiling: 4000,
			// 70% = 2800 IOPS has a mean of 280 µs > 250 µs: 80..100% are skipped.
			asked: []string{"max=0", "10%=400", "50%=2000", "70%=2800"}, warning: "stopcurve=0.250 ms: the mean response time at 70% was 0.280 ms; the 3 remaining points were skipped"},
		{name: "max run too short", rd: parmfile.RD{IORate: parmfile.IORate{Curve: true}, Curve: []float64{10, 50}}, ceiling: 0,
			asked: []string{"max=0", "10%=1000", "50%=5000"}, saturated: []string{"10%", "50%"}, warning: "Was run too short?"},
		{name: "fixed rates", rd: parmfile.RD{IORate: parmfile.IORate{Rates: []float64{1000, 5000}}}, ceiling: 4000,
			asked: []string{"1000=1000", "5000=5000"}, saturated: []string{"5000"}},
		{name: "max", rd: parmfile.RD{IORate: parmfile.IORate{Max: true}}, ceiling: 4000, asked: []string{"max=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rd.Name = "rd1"
			var asked []string
			points, warnings, err := runPoints(tc.rd, fakePoints(tc.ceiling, linear, &asked))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(asked, tc.asked) {
				t.Errorf("points run %v, want %v", asked, tc.asked)
			}
			var sat []string
			for _, p := range points {
				if p.Saturated {
					sat = append(sat, p.Label)
				}
			}
			if !slices.Equal(sat, tc.saturated) {
				t.Errorf("saturated %v, want %v", sat, tc.saturated)
			}
			if tc.warning == "" && len(warnings) > 0 || tc.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.warning)) {
				t.Errorf("warnings %q, want %q", warnings, tc.warning)
			}
		})
	}
}
