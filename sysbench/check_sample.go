package sysbench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"vmbench/dialect"
	"vmbench/internal/textfmt"
)

// The row count of a table is checked by counting the rows in a few
// windows of ids (COUNT(*) ... WHERE id BETWEEN lo AND hi: a primary-key
// range scan each), spread evenly over the ids the run draws. sysbench's
// prepare loads every id from 1 to --table-size, so in a complete table
// each window holds as many rows as it has ids, and the share of ids
// present in the windows estimates the share in the whole table. The
// engines' own figures would cost nothing but are not counts: InnoDB's
// TABLE_ROWS is an estimate from sampled pages (off by up to about half),
// PostgreSQL's reltuples is as old as the last ANALYZE (autovacuum runs
// it minutes after a mass DELETE, if at all), SQLite keeps none.
const (
	// sampleWindowIDs is the width of a window.
	sampleWindowIDs = 500
	// sampleWindows is how many windows are counted: 5,000 ids in all,
	// some 100 to 200 pages of a table (a sysbench row is about 200
	// bytes), where COUNT(*) of a table of 10 million rows reads them
	// all; a table of at most that many ids is counted whole. For rows
	// missing at random, the share found is within 0.5 percentage points
	// of the table's 19 times in 20 when up to 3% are missing.
	sampleWindows = 10
)

// idSample is what counting the rows in id windows of one table found:
// windows windows of width ids each spread over ids 1..span (one window of
// them all when span is at most sampleWindows x sampleWindowIDs), ids ids
// in all, found rows in them.
type idSample struct {
	windows, width, span, ids, found int64
}

// sampleRanges returns the windows counted over ids 1..span: the first
// starts at 1, the last ends at span, the others are spread evenly
// between them; one window 1..span when span is small enough.
func sampleRanges(span int64) [][2]int64 {
	if span <= sampleWindows*sampleWindowIDs {
		return [][2]int64{{1, span}}
	}
	out := make([][2]int64, sampleWindows)
	for i := range out {
		lo := 1 + int64(i)*(span-sampleWindowIDs)/(sampleWindows-1)
		out[i] = [2]int64{lo, lo + sampleWindowIDs - 1}
	}
	return out
}

// countSample counts the rows of sbtest<n> in the windows of
// sampleRanges(span), in one statement: SELECT (SELECT COUNT(*) FROM
// sbtest<n> WHERE id BETWEEN lo AND hi) + ... (each subquery a range scan
// of the primary key on every engine, where one WHERE of ORed ranges may
// make PostgreSQL's planner choose a sequential scan).
func countSample(ctx context.Context, q queryer, d dialect.Dialect, n int, span int64) (idSample, error) {
	ranges := sampleRanges(span)
	s := idSample{windows: int64(len(ranges)), width: ranges[0][1] - ranges[0][0] + 1, span: span}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, r := range ranges {
		if i > 0 {
			b.WriteString(" + ")
		}
		fmt.Fprintf(&b, "(SELECT COUNT(*) FROM %s WHERE %s BETWEEN %d AND %d)", d.QuoteIdent(tableName(n)), d.QuoteIdent("id"), r[0], r[1])
		s.ids += r[1] - r[0] + 1
	}
	if err := q.QueryRowContext(ctx, b.String()).Scan(&s.found); err != nil {
		return s, fmt.Errorf("counting the rows of %s: %s: %w", tableName(n), b.String(), err)
	}
	return s, nil
}

// atLeast reports whether the rows found are at least num/den of the ids
// counted.
func (s idSample) atLeast(num, den int64) bool { return s.found*den >= s.ids*num }

// estimate is the number of rows of ids 1..span the sample implies.
func (s idSample) estimate() int64 {
	if s.ids == s.span {
		return s.found
	}
	return (s.found*s.span + s.ids/2) / s.ids
}

// method says how the rows were counted and what was found, e.g.
// "COUNT(*) in 10 windows of 500 ids spread evenly over ids 1..10,000
// found 501 rows in their 5,000 ids (10.0%): about 1,002 rows in ids
// 1..10,000" or "COUNT(*) of ids 1..300 found 300 rows".
func (s idSample) method() string {
	if s.windows == 1 {
		return fmt.Sprintf("COUNT(*) of ids 1..%s found %s rows", textfmt.Thousands(s.span), textfmt.Thousands(s.found))
	}
	return fmt.Sprintf("COUNT(*) in %d windows of %s ids spread evenly over ids 1..%s found %s rows in their %s ids (%s%%): about %s rows in ids 1..%s",
		s.windows, textfmt.Thousands(s.width), textfmt.Thousands(s.span), textfmt.Thousands(s.found), textfmt.Thousands(s.ids),
		strconv.FormatFloat(100*float64(s.found)/float64(s.ids), 'f', 1, 64), textfmt.Thousands(s.estimate()), textfmt.Thousands(s.span))
}
