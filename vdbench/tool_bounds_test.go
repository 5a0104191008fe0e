package vdbench

import (
	"testing"
	"time"
)

// TestBoundsCoverTheGrid: a Config's Bounds().Time is its runs' planned
// grid: per point its warmup and elapsed (as the engine runs them) and
// PointGap.
func TestBoundsCoverTheGrid(t *testing.T) {
	if b := (&Config{runs: []Run{gridRun()}}).Bounds().Time; b != 3*(2*time.Second+PointGap) {
		t.Errorf("Bounds().Time %s, want 3 × (2 s + PointGap)", b)
	}
}
