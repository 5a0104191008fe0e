package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestDocumentHTML: the page escapes text, inlines the chart without its
// XML prolog, scopes header cells, forbids loading anything and has no
// script; Markdown and CSV hold the same cells.
func TestDocumentHTML(t *testing.T) {
	var svg bytes.Buffer
	if err := LineChart(&svg, "TPS <over> time", []Series{{Name: "vm-01", Points: []XY{{1, 10}, {2, 20}}}}, LineOptions{XLabel: "s", YLabel: "TPS"}); err != nil {
		t.Fatal(err)
	}
	tbl := &Table{Columns: []Column{{Header: "VM"}, {Header: "TPS", Align: Right}}, Rows: [][]string{{"vm-01 <b>", "1,234.5"}}, Notes: []string{"a note"}}
	d := &Document{Title: "A & B", Warnings: []string{"simulated"}, Sections: []Section{{ID: "t-a", Heading: "test",
		Tables: []TableBlock{{Caption: "review", Table: tbl}}, Charts: []Chart{{Title: "TPS", Alt: "TPS per VM", SVG: svg.Bytes()}}}}}
	var b bytes.Buffer
	if err := d.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>A &amp; B</title>", `<th scope="row">vm-01 &lt;b&gt;</th>`, `<th scope="col" class="num">TPS</th>`,
		`<td class="num">1,234.5</td>`, "default-src 'none'", `role="alert"`, "<svg ", "TPS &lt;over&gt; time", "<caption", "<li>a note</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<?xml", "https://", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("page has %q", bad)
		}
	}
	var md, csv bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| vm-01 <b> | 1,234.5 |") || !strings.Contains(md.String(), "> **Warning:** simulated") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if want := "Warnings\r\nsimulated\r\n\r\ntest: review\r\nVM,TPS\r\nvm-01 <b>,\"1,234.5\"\r\n\r\n"; csv.String() != want {
		t.Errorf("csv %q, want %q", csv.String(), want)
	}
}

func TestNines(t *testing.T) {
	for _, c := range []struct{ p, want float64 }{{0, 0}, {90, 1}, {99, 2}, {99.9, 3}} {
		if got := Nines(c.p); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("Nines(%g) = %g, want %g", c.p, got, c.want)
		}
	}
	if ticks := NinesTicks(2); len(ticks) != 4 || ticks[3].Label != "99" {
		t.Errorf("NinesTicks(2) = %v", ticks)
	}
	// Five nines are labelled as written, not as the float computed
	// (99.99900000000001, which ran into the 99.99 beside it).
	var labels []string
	for _, tk := range NinesTicks(5) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0 50 90 99 99.9 99.99 99.999" {
		t.Errorf("NinesTicks(5) labels %q", got)
	}
}
