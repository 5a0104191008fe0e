package report

import (
	"encoding/json"
	"regexp"
	"strings"
)

// plainNumber is a number as CSV and JSON write it: an optional minus,
// digits, an optional fraction; no grouping, no exponent.
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// numericValue reads a Numeric column's cell as shown ("3,152.9", "+34.6",
// "8.70") as a plain number with the digits shown ("3152.9", "34.6",
// "8.70"); ok is false for a cell that is not a number ("", "–", "n/a").
func numericValue(cell string) (plain string, ok bool) {
	s := strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(cell), ",", ""), "+")
	if !plainNumber.MatchString(s) {
		return "", false
	}
	return s, true
}

// csvRows are t's rows as CSV writes them: a Numeric column's cells as
// plain numbers (no separators, no '+'), empty where not a number; the
// other cells as they are.
func (t *Table) csvRows() [][]string {
	out := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = c
			if j < len(t.Columns) && t.Columns[j].Numeric {
				out[i][j], _ = numericValue(c)
			}
		}
	}
	return out
}

// jsonRows are t's rows as JSON writes them: a Numeric column's cells as
// numbers with the digits shown (json.Number), null where not a number;
// the other cells as strings.
func (t *Table) jsonRows() [][]any {
	out := make([][]any, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = make([]any, len(r))
		for j, c := range r {
			out[i][j] = c
			if j < len(t.Columns) && t.Columns[j].Numeric {
				if v, ok := numericValue(c); ok {
					out[i][j] = json.Number(v)
				} else {
					out[i][j] = nil
				}
			}
		}
	}
	return out
}
