package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/report"
	"vmbench/scenarios/review"
)

// methodologyReferences are the published rows docs/methodology.md's
// tables are generated from: the page's one tie to where the reference
// figures live (package review's References).
var methodologyReferences = review.References

// methodologyCommand regenerates docs/methodology.md's published figures.
const methodologyCommand = "go test ./scenarios/ -run TestMethodologyDoc -update"

// TestMethodologyDoc: docs/methodology.md's tables of published figures
// are the reference rows `vmbench report --reference` compares with, so
// the page cannot drift from them; -update rewrites them.
func TestMethodologyDoc(t *testing.T) {
	type row struct {
		server string
		review.ReferenceRow
	}
	var tests []string
	rows := map[string][]row{}       // test -> its published rows
	columns := map[string][]string{} // test -> figure labels, in order
	for _, ref := range methodologyReferences {
		for _, r := range ref.Rows {
			if _, ok := rows[r.Test]; !ok {
				tests = append(tests, r.Test)
			}
			rows[r.Test] = append(rows[r.Test], row{ref.Server, r})
			for _, f := range r.Figures {
				if !slices.Contains(columns[r.Test], f.Label()) {
					columns[r.Test] = append(columns[r.Test], f.Label())
				}
			}
		}
	}
	var b strings.Builder
	for _, test := range tests {
		cols := columns[test]
		fmt.Fprintf(&b, "### `%s`\n\n| server | ran on | %s |\n|---|---|%s\n", test, strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)))
		var protocols []map[string]string
		for _, r := range rows[test] {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.server, r.Config, figureCells(r.Figures, cols))
			protocols = append(protocols, r.Protocol)
		}
		fmt.Fprintf(&b, "\nCompared with runs of %s.\n\n", protocolText(protocols))
	}
	golden.CheckSection(t, "docs/methodology.md", methodologyCommand, []byte(b.String()))
}

// figureCells are figs' values in the order of cols, "–" for a figure the
// row does not have (the review did not publish it).
func figureCells(figs []report.Figure, cols []string) string {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = "–"
		for _, f := range figs {
			if f.Label() == c {
				cells[i] = report.Grouped(f.Value, f.Digits)
			}
		}
	}
	return strings.Join(cells, " | ")
}

// protocolText says what a run must share with the published rows of a
// test to be compared with them: the protocol values all rows share, and
// the keys whose value is each row's own (the drive count).
func protocolText(protocols []map[string]string) string {
	var same, own []string
	for k, v := range protocols[0] {
		shared := true
		for _, p := range protocols[1:] {
			shared = shared && p[k] == v
		}
		if shared {
			same = append(same, k+"="+v)
		} else {
			own = append(own, k)
		}
	}
	slices.Sort(same)
	slices.Sort(own)
	text := strings.Join(same, ", ")
	if len(own) > 0 {
		text += "; " + strings.Join(own, ", ") + " as in the row (its \"ran on\")"
	}
	return text
}
