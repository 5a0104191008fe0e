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
	return mapCells(t, func(c string, numeric bool) string {
		if !numeric {
			return c
		}
		v, _ := numericValue(c)
		return v
	})
}

// jsonRows are t's rows as JSON writes them: a Numeric column's cells as
// numbers with the digits shown (json.Number), null where not a number;
// the other cells as strings.
func (t *Table) jsonRows() [][]any {
	return mapCells(t, func(c string, numeric bool) any {
		if !numeric {
			return c
		}
		if v, ok := numericValue(c); ok {
			return json.Number(v)
		}
		return nil
	})
}

// mapCells is t's rows with each cell mapped by f, told whether the
// cell's column is Numeric.
func mapCells[T any](t *Table, f func(cell string, numeric bool) T) [][]T {
	out := make([][]T, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = make([]T, len(r))
		for j, c := range r {
			out[i][j] = f(c, j < len(t.Columns) && t.Columns[j].Numeric)
		}
	}
	return out
}
