package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Align is how a column's cells line up: Left (names) or Right
// (numbers), in text and in Markdown.
type Align int

const (
	// Left lines cells up on the left (names).
	Left Align = iota
	// Right lines cells up on the right (numbers).
	Right
)

// Column is one column of a Table.
type Column struct {
	// Header is the column's title, with its unit ("avg (ms)").
	Header string
	Align  Align
	// Width, when positive, fixes the column's width in text as a printf
	// width does (%-8s, %10s): shorter cells are padded to it and a longer
	// one overflows its own row only, which is how the peer tools' fixed
	// columns print. 0 fits the column to its widest cell, header
	// included. Markdown and CSV ignore it.
	Width int
	// Gap is the number of spaces before this column in text (none before
	// the first); 0 takes the Table's Gap.
	Gap int
	// Numeric says each cell is one number as shown (grouped by Grouped,
	// or signed: "+34.6"), its unit in Header: CSV writes it plain
	// ("3152.9", no separators) and JSON as a number with the digits
	// shown; a cell that is no number ("", "–", "n/a") is empty in CSV
	// and null in JSON. Text and Markdown show cells as they are.
	Numeric bool
}

// Table is a header row of Columns, rows of cells and notes under them,
// rendered as aligned text (WriteText), Markdown (WriteMarkdown) or CSV
// (WriteCSV). Cells are finished text: the numbers are formatted by the
// caller (Grouped, FormatMillis...), so that every rendering of a table
// shows the same figures.
type Table struct {
	Columns []Column
	// Rows hold one cell per column each.
	Rows [][]string
	// Gap is the number of spaces between text columns; 0 means 2.
	Gap int
	// Notes are lines printed under the table after a blank line: plain
	// in text, a bulleted list in Markdown. CSV leaves them out.
	Notes []string
	// Strong are the indexes in Rows of the rows set apart (the
	// aggregate a review publishes): bold, under a rule, in HTML. Text,
	// Markdown, CSV and JSON show their cells as they are (a Markdown
	// table's maker emphasises the cells it means).
	Strong []int
}

// strong reports whether row i is one of t.Strong.
func (t *Table) strong(i int) bool { return slices.Contains(t.Strong, i) }

// check returns an error naming the first row whose cell count is not
// the number of columns.
func (t *Table) check() error {
	if len(t.Columns) == 0 {
		return fmt.Errorf("table: no columns")
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("table: row %d has %d cells for %d columns", i+1, len(r), len(t.Columns))
		}
	}
	return nil
}

// header is the row of column titles.
func (t *Table) header() []string {
	h := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		h[i] = c.Header
	}
	return h
}

// WriteText writes the header and the rows as columns, each padded to its
// width (counted in runes) on the side its Align says and separated by
// its Gap; trailing spaces are cut from every line. Then the notes, after
// a blank line, one per line. It fails, writing nothing, when a row's
// cells do not match the columns.
func (t *Table) WriteText(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	rows := append([][]string{t.header()}, t.Rows...)
	width := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		width[i] = c.Width
		if c.Width > 0 {
			continue
		}
		for _, r := range rows {
			width[i] = max(width[i], utf8.RuneCountInString(r[i]))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, cell := range r {
			if i > 0 {
				line.WriteString(strings.Repeat(" ", t.gap(i)))
			}
			pad := strings.Repeat(" ", max(0, width[i]-utf8.RuneCountInString(cell)))
			if t.Columns[i].Align == Right {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	writeNotes(&b, t.Notes, "")
	_, err := io.WriteString(w, b.String())
	return err
}

// gap is the number of spaces before column i in text.
func (t *Table) gap(i int) int {
	switch {
	case t.Columns[i].Gap > 0:
		return t.Columns[i].Gap
	case t.Gap > 0:
		return t.Gap
	}
	return 2
}

// WriteMarkdown writes the table as a GitHub-flavoured Markdown table,
// "| a | b |" rows under a "|---|---:|" alignment row ("|" in a cell is
// escaped), then the notes as a bulleted list after a blank line. It
// fails, writing nothing, when a row's cells do not match the columns.
func (t *Table) WriteMarkdown(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	var b strings.Builder
	row := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(esc, " | ") + " |\n")
	}
	row(t.header())
	align := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		align[i] = "---"
		if c.Align == Right {
			align[i] = "---:"
		}
	}
	b.WriteString("|" + strings.Join(align, "|") + "|\n")
	for _, r := range t.Rows {
		row(r)
	}
	writeNotes(&b, t.Notes, "- ")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNotes(b *strings.Builder, notes []string, bullet string) {
	if len(notes) == 0 {
		return
	}
	b.WriteString("\n")
	for _, n := range notes {
		b.WriteString(bullet + n + "\n")
	}
}

// WriteCSV writes the header and the rows as CSV as RFC 4180 has it:
// fields with commas, quotes or line breaks quoted, records ended by CRLF.
// Numeric columns' cells are plain numbers ("7567.3", never quoted); the
// others are as they are. The notes are left out. It fails, writing nothing, when a row's cells do not match the
// columns.
func (t *Table) WriteCSV(w io.Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.UseCRLF = true
	if err := cw.Write(t.header()); err != nil {
		return err
	}
	if err := cw.WriteAll(t.csvRows()); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
