package sysbench

import (
	"context"
	"fmt"
	"strconv"

	"vmbench/dialect"
	"vmbench/internal/textfmt"
	"vmbench/workload"
)

// This file is what a campaign needs to restore sysbench's data instead
// of loading it: the flags that shape it, and a check of restored data.

var (
	_ workload.DataShaper = (*toolConfig)(nil)
	_ workload.Checker    = (*toolConfig)(nil)
)

// DataShape returns the flags that shape the data Prepare loads:
// --tables, --table-size (0 when the workload's prepare leaves the tables
// empty: oltp_insert with --auto-inc=off, as sysbench 1.0), --auto-inc,
// --create-secondary, --rand-seed (0: from the clock, so two loads
// differ in their random strings but not in their shape) and the
// distribution column k is drawn from (--rand-type and its parameters).
func (c *toolConfig) DataShape() map[string]string {
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	size := c.TableSize
	if c.Workload == Insert && !c.AutoInc {
		size = 0
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	r := c.Rand
	return map[string]string{
		"tables": strconv.Itoa(c.Tables), "table-size": strconv.FormatInt(size, 10),
		"auto-inc": onOff(c.AutoInc), "create-secondary": onOff(c.CreateSecondary),
		"rand-seed": strconv.FormatInt(r.Seed, 10),
		// column k is drawn with the run's distribution (sysbench 1.0's
		// sysbench.rand.default), so its parameters shape the data too
		"rand-type": string(r.Type), "rand-spec-iter": strconv.Itoa(r.SpecIter), "rand-spec-pct": f(r.SpecPct),
		"rand-spec-res": f(r.SpecRes), "rand-pareto-h": f(r.ParetoH), "rand-zipfian-exp": f(r.ZipfianExp),
	}
}

// Check verifies the data as Prepare leaves it, one line per table to
// env.Log: sbtest1..N each hold exactly --table-size rows with ids 1 to
// --table-size (none when the workload's prepare leaves them empty), as
// Prepare's own check after a load. A table that does not, or cannot be
// read, wraps workload.ErrCheckFailed; a cancelled ctx is returned as is.
func (c *toolConfig) Check(ctx context.Context, env workload.Env) error {
	db, err := dialect.Open(ctx, c.DialectConfig())
	if err != nil {
		return err
	}
	defer db.Close()
	size, _ := strconv.ParseInt(c.DataShape()["table-size"], 10, 64)
	var bad []string
	for n := 1; n <= c.Tables; n++ {
		err := checkTable(ctx, db, db.Dialect, n, size)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		verdict := "ok"
		if err != nil {
			verdict = "FAILED: " + err.Error()
			bad = append(bad, tableName(n))
		}
		if env.Log != nil {
			fmt.Fprintf(env.Log, "%s: want %s rows, ids 1..%s: %s\n", tableName(n), textfmt.Thousands(size), textfmt.Thousands(size), verdict)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %d of %d tables do not hold --table-size %s rows: %v", workload.ErrCheckFailed, len(bad), c.Tables, textfmt.Thousands(size), bad)
	}
	return nil
}
