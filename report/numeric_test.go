package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestNumericValue(t *testing.T) {
	for _, c := range []struct {
		cell, want string
		ok         bool
	}{{"3,152.9", "3152.9", true}, {"8.70", "8.70", true}, {"+34.6", "34.6", true}, {"-25.0", "-25.0", true}, {"0", "0", true},
		{"1,234,567", "1234567", true}, {"", "", false}, {"–", "", false}, {"n/a", "", false}, {"CLIENT-BOUND", "", false},
		{"1e6", "", false}, {"Inf", "", false}, {"12 ms", "", false}, {"**12.0**", "", false}} {
		got, ok := numericValue(c.cell)
		if got != c.want || ok != c.ok {
			t.Errorf("numericValue(%q) = %q, %v; want %q, %v", c.cell, got, ok, c.want, c.ok)
		}
	}
}

// TestNumericColumnsInJSONAndCSV: a Numeric column's cells are JSON
// numbers with the digits shown (null where none) and plain, unquoted CSV
// numbers (empty where none); text columns stay strings, and Markdown
// shows the cells as they are.
func TestNumericColumnsInJSONAndCSV(t *testing.T) {
	tb := &Table{Columns: []Column{{Header: "VM"}, {Header: "TPS", Align: Right, Numeric: true}, {Header: "change (%)", Align: Right, Numeric: true}, {Header: "client"}},
		Rows: [][]string{{"vm-01", "7,567.3", "+34.6", "CLIENT-BOUND"}, {"1,000", "8.70", "n/a", ""}, {"vm-03", "–", "-2.0", "0"}}}
	d := &Document{Title: "t", Sections: []Section{{ID: "s", Heading: "s", Tables: []TableBlock{{Caption: "c", Table: tb}}}}}
	var js, csv, md bytes.Buffer
	if err := d.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	compact := strings.Join(strings.Fields(js.String()), "")
	for _, want := range []string{`["vm-01",7567.3,34.6,"CLIENT-BOUND"]`, `["1,000",8.70,null,""]`, `["vm-03",null,-2.0,"0"]`, `"columns":["VM","TPS","change(%)","client"]`} {
		if !strings.Contains(compact, want) {
			t.Errorf("JSON lacks %s:\n%s", want, js.String())
		}
	}
	wantCSV := "s: c\r\nVM,TPS,change (%),client\r\nvm-01,7567.3,34.6,CLIENT-BOUND\r\n\"1,000\",8.70,,\r\nvm-03,,-2.0,0\r\n\r\n"
	if csv.String() != wantCSV {
		t.Errorf("CSV:\n%q\nwant\n%q", csv.String(), wantCSV)
	}
	if !strings.Contains(md.String(), "| vm-01 | 7,567.3 | +34.6 | CLIENT-BOUND |") {
		t.Errorf("Markdown changed the cells:\n%s", md.String())
	}
}
