package blockio

import (
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// TestPointAboveItsRequestIsFlagged: issue 8's point that ran at 32,363
// IOPS for a requested 29,900 is flagged with its reason, like a saturated
// one, and warned about; a point within 3% of its request is not.
func TestPointAboveItsRequestIsFlagged(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	achieved := map[float64]float64{29900: 32363, 1000: 1020}
	run := func(label string, rate float64) (Point, error) {
		return Point{Label: label, Achieved: achieved[rate], Result: blocktest.Result(t0, time.Second, blocktest.Repeat(time.Millisecond, 10), nil, true)}, nil
	}
	points, warnings, err := runPoints(parmfile.RD{Name: "rd1", IORate: parmfile.IORate{Rates: []float64{29900, 1000}}}, run)
	if err != nil {
		t.Fatal(err)
	}
	over, fine := points[0], points[1]
	if !over.Overshot || over.Saturated || over.Flag != "above the request (108.2% of it)" {
		t.Errorf("29900: overshot %v saturated %v flag %q", over.Overshot, over.Saturated, over.Flag)
	}
	if fine.Overshot || fine.Flag != "" {
		t.Errorf("1000 at 1020: overshot %v flag %q, want none", fine.Overshot, fine.Flag)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "point 29900 achieved 32,363 IOPS for a requested 29,900 (108.2%): above its request") {
		t.Errorf("warnings %q", warnings)
	}
}

// TestLateRunnerIsFlagged: a point whose phase overran says so in its flag.
func TestLateRunnerIsFlagged(t *testing.T) {
	res := blocktest.Result(time.Now(), time.Second, blocktest.Repeat(time.Millisecond, 10), nil, false)
	res.Overruns = []oltp.Overrun{{Planned: time.Second, Ran: 3 * time.Second}}
	if got := PointFlag(Point{Result: res}); got != "runner late (overran)" {
		t.Errorf("flag %q", got)
	}
}
