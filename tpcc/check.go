package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"vmbench/dialect"
)

// CheckResult is the outcome of one consistency condition of TPC-C clause
// 3.3.2 over every warehouse of the database.
type CheckResult struct {
	// Clause is the condition's clause, "3.3.2.1" to "3.3.2.12".
	Clause string
	// Name says the condition in short words ("W_YTD = sum(D_YTD)").
	Name string
	// Warehouses is how many warehouses were checked (0 when skipped).
	Warehouses int
	// Failures describe the first failing warehouses, districts or rows
	// (at most maxFailures), e.g. "warehouse 2 district 7: d_next_o_id-1 =
	// 3010, max(o_id) = 3011".
	Failures []string
	// Failed counts every failing warehouse, district, order or customer,
	// as the condition is stated.
	Failed int
	// Skipped says why the condition was not checked ("" when it was).
	Skipped string
}

// Passed reports whether the condition was checked and held everywhere. A
// skipped condition has neither passed nor failed.
func (r CheckResult) Passed() bool { return r.Skipped == "" && r.Failed == 0 }

// maxFailures is how many failure descriptions a CheckResult keeps.
const maxFailures = 10

// moneyTolerance is how far two amounts may differ and still be equal:
// half a cent. SQLite keeps DECIMAL columns as binary floating point, so
// its sums are not exact; MySQL's and SQL Server's are.
const moneyTolerance = 0.005

// condition is one consistency condition: its clause, words, the unit it
// is stated per, and the check of one warehouse.
type condition struct {
	clause, name string
	// unit is what Failed counts: "warehouse", "district", "order" or
	// "customer". Warehouses and districts are counted out of all of them.
	unit string
	// loadOnly conditions hold only before the first run (3.3.2.11).
	loadOnly bool
	// check checks warehouse w and calls fail once per failing unit.
	check func(ctx context.Context, k *checker, w int, fail func(format string, args ...any)) error
}

// Check verifies the consistency conditions 3.3.2.1 to 3.3.2.12 of TPC-C
// on the database cfg names, warehouse by warehouse, and prints one line
// per condition to out (nil: nothing is printed), followed by its first
// failures. Condition 3.3.2.11 holds only right after prepare, so it is
// skipped once a run has touched the data. Run it while no workload runs:
// the conditions hold between transactions, not during them.
//
// When --warehouses was given (the flags of prepare and run, given to
// check too), Check first verifies that the database holds that many
// warehouses: if not, that is the one failed result (clause "scale",
// naming both numbers) and no condition is checked.
//
// The error is non-nil when the database cannot be read (the results
// so far are returned with it) or when a condition failed: then it is
// "consistency: N of M conditions failed", M counting the conditions run.
func Check(ctx context.Context, cfg Config, out io.Writer) ([]CheckResult, error) {
	if out == nil {
		out = io.Discard
	}
	if err := sqliteMustExist(cfg.DialectConfig()); err != nil {
		return nil, err
	}
	db, err := open(ctx, cfg.DialectConfig())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	m, err := readMeta(ctx, db, db.Dialect)
	if err != nil {
		return nil, err
	}
	var results []CheckResult
	if cfg.warehousesGiven {
		r, err := checkScale(out, cfg.Warehouses, m.Warehouses, db.Config.String())
		if results = append(results, r); err != nil {
			return results, err
		}
	}
	k := &checker{db: db.DB, d: db.Dialect}
	run, failed := 0, 0
	for _, c := range conditions {
		r := CheckResult{Clause: c.clause, Name: c.name}
		if c.loadOnly && m.Runs > 0 {
			r.Skipped = fmt.Sprintf("%s since the load; it holds only right after prepare", plural(m.Runs, "run"))
		} else {
			if err := k.run(ctx, c, m.Warehouses, &r); err != nil {
				return results, err
			}
			run++
			if !r.Passed() {
				failed++
			}
		}
		results = append(results, r)
		writeCheckLine(out, r, c.unit, total(c.unit, m.Warehouses))
	}
	if failed > 0 {
		return results, fmt.Errorf("consistency: %d of %d conditions failed", failed, run)
	}
	return results, nil
}

// checkScale checks that the database, target, holds the warehouses
// --warehouses gave (want; it holds have) and prints its line to out: a
// failed result and an error naming both numbers when not.
func checkScale(out io.Writer, want, have int, target string) (CheckResult, error) {
	r := CheckResult{Clause: "scale", Name: "--warehouses = warehouses loaded", Warehouses: have}
	if want == have {
		writeCheckLine(out, r, "warehouse", 0)
		return r, nil
	}
	r.Failed = 1
	r.Failures = []string{fmt.Sprintf("--warehouses %d, but %s holds %d", want, target, have)}
	fmt.Fprintf(out, "%-*s%-*sFAIL  --warehouses %d, the database holds %s\n", clauseWidth, r.Clause, nameWidth, r.Name, want, plural(have, "warehouse"))
	return r, fmt.Errorf("consistency: --warehouses %d, but %s holds %s (the conditions were not checked)", want, target, plural(have, "warehouse"))
}

// total returns how many units of kind unit W warehouses have, or 0 when
// the unit is rows that are not counted (orders, customers).
func total(unit string, w int) int {
	switch unit {
	case "warehouse":
		return w
	case "district":
		return w * DistrictsPerWarehouse
	}
	return 0
}

// checker runs the conditions' statements.
type checker struct {
	db *sql.DB
	d  dialect.Dialect
}

// run checks condition c on warehouses 1..w into r.
func (k *checker) run(ctx context.Context, c condition, w int, r *CheckResult) error {
	fail := func(format string, args ...any) {
		r.Failed++
		if len(r.Failures) < maxFailures {
			r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
		}
	}
	for wid := 1; wid <= w; wid++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.check(ctx, k, wid, fail); err != nil {
			return fmt.Errorf("consistency %s, warehouse %d: %w", c.clause, wid, err)
		}
		r.Warehouses = wid
	}
	return nil
}

// query runs stmt, whose every "?" stands for the warehouse id w, and
// scans each row into dest, calling each after every row.
func (k *checker) query(ctx context.Context, stmt string, w int, dest []any, each func()) error {
	text, n := bindWarehouse(k.d, stmt)
	args := make([]any, n)
	for i := range args {
		args[i] = w
	}
	rows, err := k.db.QueryContext(ctx, text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		each()
	}
	return rows.Err()
}

// bindWarehouse replaces each "?" of stmt by the dialect's placeholder
// (numbered from 1 for SQL Server) and returns the text and how many there
// were. The statements of the checks hold no other question marks.
func bindWarehouse(d dialect.Dialect, stmt string) (string, int) {
	var b strings.Builder
	n := 0
	for _, r := range stmt {
		if r == '?' {
			n++
			b.WriteString(d.Placeholder(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), n
}

// moneyEqual reports whether two amounts are equal within half a cent.
func moneyEqual(a, b float64) bool {
	d := a - b
	return d < moneyTolerance && d > -moneyTolerance
}

// plural returns "1 run", "2 runs".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Column widths of the check lines.
var (
	clauseWidth = len("3.3.2.12") + 2
	nameWidth   = func() int {
		n := 0
		for _, c := range conditions {
			n = max(n, len(c.name))
		}
		return n + 2
	}()
)

// writeCheckLine prints r: clause, name, PASS/FAIL/skipped and counts,
// then its failures indented below the name. Units out of a known total
// (warehouses, districts) print as "3 of 20 districts".
func writeCheckLine(w io.Writer, r CheckResult, unit string, of int) {
	head := fmt.Sprintf("%-*s%-*s", clauseWidth, r.Clause, nameWidth, r.Name)
	switch {
	case r.Skipped != "":
		fmt.Fprintf(w, "%sskipped: %s\n", head, r.Skipped)
		return
	case r.Failed == 0:
		fmt.Fprintf(w, "%sPASS  (%s)\n", head, plural(r.Warehouses, "warehouse"))
		return
	case of > 0:
		fmt.Fprintf(w, "%sFAIL  %d of %s\n", head, r.Failed, plural(of, unit))
	default:
		fmt.Fprintf(w, "%sFAIL  %s (%s)\n", head, plural(r.Failed, unit), plural(r.Warehouses, "warehouse"))
	}
	indent := strings.Repeat(" ", clauseWidth)
	for _, f := range r.Failures {
		fmt.Fprintf(w, "%s%s\n", indent, f)
	}
	if more := r.Failed - len(r.Failures); more > 0 {
		fmt.Fprintf(w, "%s... and %d more\n", indent, more)
	}
}
