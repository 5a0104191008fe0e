package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sample is a table with a left and a right column, a multi-byte cell
// (widths count runes) and notes.
func sample() *Table {
	return &Table{
		Columns: []Column{{Header: "name"}, {Header: "rate", Align: Right}, {Header: "range"}},
		Rows:    [][]string{{"a", "1,234.5", "0.9–1.1%"}, {"longer name", "7.0", ""}, {"b|c", "", "x"}},
		Notes:   []string{"rate: per second.", "range: as specified."},
	}
}

func TestTableText(t *testing.T) {
	var b bytes.Buffer
	if err := sample().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"name            rate  range\n" +
		"a            1,234.5  0.9–1.1%\n" +
		"longer name      7.0\n" + // trailing spaces cut
		"b|c                   x\n" +
		"\n" +
		"rate: per second.\n" +
		"range: as specified.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Fixed widths behave as printf's: padding to the width, a longer cell
// overflowing its own row only; gaps per table and per column.
func TestTableTextFixedWidths(t *testing.T) {
	tb := &Table{Gap: 1, Columns: []Column{{Header: "pt", Width: 4}, {Header: "v", Align: Right, Width: 5}, {Header: "flag", Gap: 2}},
		Rows: [][]string{{"1", "2.5", "ok"}, {"long-label", "123456", ""}}}
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, r := range append([][]string{{"pt", "v", "flag"}}, tb.Rows...) {
		want.WriteString(strings.TrimRight(fmtRow("%-4s %5s  %s", r), " ") + "\n")
	}
	if b.String() != want.String() {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want.String())
	}
}

func fmtRow(format string, cells []string) string {
	var b bytes.Buffer
	args := make([]any, len(cells))
	for i, c := range cells {
		args[i] = c
	}
	fmt.Fprintf(&b, format, args...)
	return b.String()
}

func TestTableMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := sample().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"| name | rate | range |\n" +
		"|---|---:|---|\n" +
		"| a | 1,234.5 | 0.9–1.1% |\n" +
		"| longer name | 7.0 |  |\n" +
		"| b\\|c |  | x |\n" +
		"\n" +
		"- rate: per second.\n" +
		"- range: as specified.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTableCSV(t *testing.T) {
	var b bytes.Buffer
	if err := sample().WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "name,rate,range\r\na,\"1,234.5\",0.9–1.1%\r\nlonger name,7.0,\r\nb|c,,x\r\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || !slices.Equal(recs[1], sample().Rows[0]) {
		t.Errorf("read back %q", recs)
	}
}

func TestTableRefusesRaggedRows(t *testing.T) {
	tb := sample()
	tb.Rows[1] = tb.Rows[1][:2]
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text": func(b *bytes.Buffer) error { return tb.WriteText(b) }, "markdown": func(b *bytes.Buffer) error { return tb.WriteMarkdown(b) },
		"csv": func(b *bytes.Buffer) error { return tb.WriteCSV(b) },
	} {
		var b bytes.Buffer
		err := write(&b)
		if err == nil || !strings.Contains(err.Error(), "row 2 has 2 cells for 3 columns") || b.Len() != 0 {
			t.Errorf("%s: err %v, wrote %q; want the row named and nothing written", name, err, b.String())
		}
	}
	if err := (&Table{}).WriteText(&bytes.Buffer{}); err == nil {
		t.Error("a table without columns was written")
	}
}
