package vdbench

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/report"
	"vmbench/vdbench/blockio"
	"vmbench/workload"
)

// TestReviewRowAndFigures: the review row's numeric cells are its
// figures as shown, under their labels, in the columns' units; a crossing
// the curve does not make is in words there and absent from the figures;
// a start that fell short of its request is noted; a run without points
// has no figures.
func TestReviewRowAndFigures(t *testing.T) {
	cfg := profileConfig(t, "4k-random-read", "--target", "/dev/null")
	cols := cfg.ReviewColumns()
	var headers []string
	for _, c := range cols {
		headers = append(headers, c.Header)
	}
	if got := strings.Join(headers, "|"); got != "profile|start IOPS|start latency (µs)|IOPS at 100 µs|IOPS at 1 ms|peak IOPS|peak throughput (GB/s)|peak latency (µs)" {
		t.Errorf("columns %s", got)
	}
	out := func(c *blockio.CurveResult) *workload.Output { return &workload.Output{Record: &RunRecord{curve: c}} }
	tbl := &report.Table{}
	for _, c := range cols {
		tbl.Columns = append(tbl.Columns, report.Column{Header: c.Header, Numeric: c.Numeric})
	}
	check := func(name string, o *workload.Output, want string, notes int) {
		t.Helper()
		row, figs := cfg.ReviewRow(o), cfg.ReviewFigures(o)
		tbl.Rows, tbl.Notes = append(tbl.Rows, row.Cells), append(tbl.Notes, row.Notes...)
		if got := strings.Join(row.Cells, "|"); got != want || len(row.Notes) != notes {
			t.Errorf("%s: row %s, notes %q; want %s, %d notes", name, got, row.Notes, want, notes)
		}
		k := 0
		for i, c := range row.Cells[1:] {
			if _, err := strconv.ParseFloat(strings.ReplaceAll(c, ",", ""), 64); err != nil {
				continue // in words: no figure
			}
			if k >= len(figs) || figs[k].Label() != cols[i+1].Header || report.Grouped(figs[k].Value, figs[k].Digits) != c {
				t.Errorf("%s: cell %q under %q is not the figure %+v", name, c, cols[i+1].Header, figs[min(k, len(figs)-1)])
			}
			k++
		}
		if k != len(figs) {
			t.Errorf("%s: %d figures for %d numeric cells: %+v", name, len(figs), k, figs)
		}
	}
	check("whole curve", out(testCurve()), "4K random read|400|60.0|2,134|3,995|4,000|0.02|999.7", 0)
	c := testCurve()
	c.Points = c.Points[:3] // max, 10%, 50%: neither line is crossed
	check("not reached", out(c), "4K random read|400|60.0|not reached (up to 2,000 IOPS)|not reached (up to 2,000 IOPS)|4,000|0.02|999.7", 0)
	c.Points = c.Points[:1] // iorate=max alone: above 100 µs at its start
	check("above at the start", out(c), "4K random read|4,000|999.7|above at the start|not reached (up to 4,000 IOPS)|4,000|0.02|999.7", 0)
	c = testCurve()
	c.Points[1].Achieved = 100 // the 10% point fell short of its 400
	check("saturated start", out(c), "4K random read|100|60.0|2,134|3,995|4,000|0.02|999.7", 1)
	if n := cfg.ReviewRow(out(c)).Notes[0]; !strings.HasPrefix(n, "4K random read: the start point achieved 25% of the 400 IOPS it requested (saturated)") {
		t.Errorf("note %q", n)
	}
	check("no point", out(&blockio.CurveResult{}), "4K random read|–|–|–|–|–|–|–", 0)
	// The rows as the review shows them and as CSV has them.
	var b strings.Builder
	if err := tbl.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	if err := tbl.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "review_row.golden"), []byte(b.String()))
}
