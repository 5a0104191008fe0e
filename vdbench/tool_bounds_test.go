package vdbench

import (
	"testing"
	"time"

	"vmbench/vdbench/blockio"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// TestBoundsCoverTheGrid: a Config's Bounds().Time is its runs' planned
// grid: per point its warmup and elapsed (as the engine runs them) and
// blockio.PointGap.
func TestBoundsCoverTheGrid(t *testing.T) {
	if b := (&Config{runs: []parmfile.Run{blocktest.GridRun()}}).Bounds().Time; b != 3*(2*time.Second+blockio.PointGap) {
		t.Errorf("Bounds().Time %s, want 3 × (2 s + PointGap)", b)
	}
}
