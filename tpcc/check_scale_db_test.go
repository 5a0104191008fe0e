package tpcc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"vmbench/workload"
)

// TestCheckWarehousesGiven: check with --warehouses verifies that the
// database holds that many warehouses. On the shared load of 2 (read
// only), --warehouses 3 is a failed check (workload.ErrCheckFailed: exit
// status 1) naming both numbers, and no condition is checked; without
// --warehouses nothing is verified (the scale is the database's).
func TestCheckWarehousesGiven(t *testing.T) {
	l := mariaTemplate(t)
	ctx := checkContext(t)
	c := l.cfg
	c.Warehouses, c.warehousesGiven = 3, true
	var out bytes.Buffer
	err := (&toolConfig{Config: c}).Check(ctx, workload.Env{Log: &out})
	if !errors.Is(err, workload.ErrCheckFailed) || !strings.Contains(err.Error(), "--warehouses 3, but") || !strings.Contains(err.Error(), "holds 2 warehouses") {
		t.Errorf("check --warehouses 3 on a load of 2: %v, want a failed check naming 3 and 2", err)
	}
	if got := out.String(); !strings.Contains(got, "FAIL  --warehouses 3, the database holds 2 warehouses") || strings.Contains(got, "3.3.2.1 ") {
		t.Errorf("check --warehouses 3 on a load of 2 printed:\n%s", got)
	}
	results, err := Check(ctx, c, nil)
	if err == nil || len(results) != 1 || results[0].Clause != "scale" || results[0].Passed() {
		t.Errorf("check --warehouses 3: results %+v, error %v; want the one failed scale check", results, err)
	}
}
