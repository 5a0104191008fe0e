package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Document is a report as a reviewer publishes it: a title, warnings
// that must be seen first, facts about the run, and sections of tables,
// charts and preformatted tool output. It holds finished text (cells
// formatted by the caller) and drawn charts, so that every rendering of
// it (WriteHTML, WriteMarkdown, WriteCSV, WriteJSON) shows the same
// figures: the numbers are computed once, by whoever builds it.
type Document struct {
	Title string `json:"title"`
	// Subtitle is one line under the title (what the report covers).
	Subtitle string `json:"subtitle,omitempty"`
	// Warnings are shown at the top, before anything else: a simulated,
	// incomplete or client-bound run, inputs left out of a comparison.
	Warnings []string  `json:"warnings,omitempty"`
	Facts    []Fact    `json:"facts,omitempty"`
	Sections []Section `json:"sections"`
	// Notes are printed at the end (how the figures were computed).
	Notes []string `json:"notes,omitempty"`
}

// Fact is a named fact about the run ("server", "VMs").
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Section is one test of a report (an OLTP campaign, a block suite
// profile, a comparison of one test across inputs).
type Section struct {
	// ID is the section's anchor in HTML: letters, digits and '-'.
	ID      string `json:"id"`
	Heading string `json:"heading"`
	// Warnings are shown at the top of the section.
	Warnings []string `json:"warnings,omitempty"`
	Facts    []Fact   `json:"facts,omitempty"`
	// Text holds paragraphs shown before the tables.
	Text   []string     `json:"text,omitempty"`
	Tables []TableBlock `json:"tables,omitempty"`
	Charts []Chart      `json:"charts,omitempty"`
	Pre    []PreBlock   `json:"pre,omitempty"`
	// Figures are the section's derived figures by name, as numbers (the
	// units are in the names: "tps_sum", "avg_published_ms"); JSON only.
	Figures map[string]float64 `json:"figures,omitempty"`
}

// TableBlock is a Table with its caption.
type TableBlock struct {
	Caption string `json:"caption"`
	Table   *Table `json:"table"`
}

// MarshalJSON writes the table as its headers (units in them), rows and
// notes: a Numeric column's cells as JSON numbers (null where there is
// none), the others as strings.
func (t *Table) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
		Notes   []string `json:"notes,omitempty"`
	}{t.header(), t.jsonRows(), t.Notes})
}

// Chart is a drawn chart: an SVG document (LatencyChart, LineChart) and
// the text that stands for it where it cannot be shown.
type Chart struct {
	Title string `json:"title"`
	// Alt describes what the chart shows, for screen readers.
	Alt string `json:"alt"`
	SVG []byte `json:"-"`
}

// PreBlock is preformatted text: a tool's own report, kept as it prints
// it.
type PreBlock struct {
	Caption string `json:"caption"`
	Text    string `json:"text"`
}

// WriteMarkdown writes d as Markdown: the warnings as quoted bold lines,
// the facts as a list, each section under its heading (unless the
// heading is the title) with its tables (captioned) and tool output
// (fenced); a chart, which Markdown cannot hold inline, is named with its
// description.
func (d *Document) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", d.Title)
	if d.Subtitle != "" {
		fmt.Fprintf(&b, "%s\n\n", d.Subtitle)
	}
	mdWarnings(&b, d.Warnings)
	mdFacts(&b, d.Facts)
	for _, s := range d.Sections {
		if s.Heading != d.Title { // the one test of a report is headed by the title
			fmt.Fprintf(&b, "## %s\n\n", s.Heading)
		}
		mdWarnings(&b, s.Warnings)
		mdFacts(&b, s.Facts)
		for _, p := range s.Text {
			fmt.Fprintf(&b, "%s\n\n", p)
		}
		for _, t := range s.Tables {
			fmt.Fprintf(&b, "**%s**\n\n", t.Caption)
			if err := t.Table.WriteMarkdown(&b); err != nil {
				return fmt.Errorf("%s: %s: %w", s.Heading, t.Caption, err)
			}
			b.WriteString("\n")
		}
		for _, c := range s.Charts {
			fmt.Fprintf(&b, "*Chart (in the HTML report): %s. %s*\n\n", c.Title, c.Alt)
		}
		for _, p := range s.Pre {
			fmt.Fprintf(&b, "**%s**\n\n```\n%s\n```\n\n", p.Caption, strings.TrimRight(p.Text, "\n"))
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func mdWarnings(b *strings.Builder, ws []string) {
	for _, w := range ws {
		fmt.Fprintf(b, "> **Warning:** %s\n\n", w)
	}
}

func mdFacts(b *strings.Builder, fs []Fact) {
	for _, f := range fs {
		fmt.Fprintf(b, "- **%s:** %s\n", f.Name, f.Value)
	}
	if len(fs) > 0 {
		b.WriteString("\n")
	}
}

// WriteCSV writes every table of d for spreadsheets, one after the
// other: a row holding the section heading and the caption, the header
// row, the rows (Numeric columns' cells as plain numbers), then an empty
// record. The document's and the sections' warnings come first, as a
// block of their own ("Warnings", then one per record), so that a
// spreadsheet of a simulated or client-bound run says so. Records end in
// CRLF (RFC 4180).
func (d *Document) WriteCSV(w io.Writer) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.UseCRLF = true
	warnings := [][]string{{"Warnings"}}
	for _, wn := range d.Warnings {
		warnings = append(warnings, []string{wn})
	}
	for _, s := range d.Sections {
		for _, wn := range s.Warnings {
			warnings = append(warnings, []string{s.Heading + ": " + wn})
		}
	}
	if len(warnings) > 1 {
		if err := cw.WriteAll(append(warnings, []string{""})); err != nil {
			return err
		}
	}
	for _, s := range d.Sections {
		for _, t := range s.Tables {
			if err := t.Table.check(); err != nil {
				return fmt.Errorf("%s: %s: %w", s.Heading, t.Caption, err)
			}
			recs := append([][]string{{s.Heading + ": " + t.Caption}, t.Table.header()}, t.Table.csvRows()...)
			if err := cw.WriteAll(append(recs, []string{""})); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes d as indented JSON: its text, tables (headers and
// cells), chart titles and each section's derived figures as numbers;
// the charts' SVG is left out.
func (d *Document) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Figure is one derived figure of a test, as a number: what a
// comparison computes the change of ("peak IOPS", "avg latency,
// published").
type Figure struct {
	Name string `json:"name"`
	// Unit is the value's unit ("ms", "µs", "GB/s"); "" for a rate whose
	// name says it (TPS, IOPS, tpmC).
	Unit  string  `json:"unit,omitempty"`
	Value float64 `json:"value"`
	// Digits is the number of decimals shown.
	Digits int `json:"-"`
}

// Label is the figure's name with its unit in brackets: "avg (ms)".
func (f Figure) Label() string {
	if f.Unit == "" {
		return f.Name
	}
	return f.Name + " (" + f.Unit + ")"
}
