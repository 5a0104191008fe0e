package dialect

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// RowWriter's encoding, value by value.
func TestRowWriterValues(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 30, 15, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, `\N`},
		{42, "42"},
		{int64(-7), "-7"},
		{int32(5), "5"},
		{uint8(255), "255"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{true, "1"},
		{false, "0"},
		{2500.5, "2500.5"},
		{float32(0.25), "0.25"},
		{"plain-123", "plain-123"},
		{"", ""},
		{`a\b`, `a\\b`},
		{"tab\there", `tab\there`},
		{"line\nbreak", `line\nbreak`},
		{"cr\rlf", `cr\rlf`},
		{"nul\x00byte", `nul\0byte`},
		{"\tlead, two\n\\", `\tlead, two\n\\`},
		{`\N`, `\\N`}, // the string, not NULL
		{"ünïcode", "ünïcode"},
		{[]byte("x\ty"), `x\ty`},
		{[]byte(nil), `\N`},
		{at, "2026-03-01 11:30:15"},
		{at.Add(1500 * time.Microsecond), "2026-03-01 11:30:15.001500"},
	} {
		var w RowWriter
		if err := w.Value(tc.v); err != nil {
			t.Errorf("Value(%#v): %v", tc.v, err)
			continue
		}
		if got := string(w.Bytes()); got != tc.want {
			t.Errorf("Value(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), struct{}{}, &[]int{1}} {
		var w RowWriter
		if err := w.Value(bad); err == nil {
			t.Errorf("Value(%#v) = nil error, want one", bad)
		}
	}
}

// Fields are tab-separated, rows newline-ended; BeginField/EndField escape
// what the caller appended in place.
func TestRowWriterRows(t *testing.T) {
	var w RowWriter
	w.Int(1)
	w.EndField(append(w.BeginField(), "12-34"...))
	w.Null()
	w.EndRow()
	w.Str("x")
	w.EndField(append(w.BeginField(), "a\tb\\c\nd"...))
	w.EndField(w.BeginField())
	w.EndRow()
	want := "1\t12-34\t\\N\nx\ta\\tb\\\\c\\nd\t\n"
	if got := string(w.Bytes()); got != want || w.Rows() != 2 {
		t.Errorf("rows = %q (%d rows), want %q (2 rows)", got, w.Rows(), want)
	}
	w.Reset()
	if len(w.Bytes()) != 0 || w.Rows() != 0 {
		t.Errorf("after Reset: %q, %d rows", w.Bytes(), w.Rows())
	}
}

func TestRowsSourceAndEncodedSize(t *testing.T) {
	rows := [][]any{{1, "a\tb", nil}, {2, "c", 1.5}}
	var w RowWriter
	src := RowsSource(rows)
	for src.NextRow(&w) {
	}
	want := "1\ta\\tb\t\\N\n2\tc\t1.5\n"
	if got := string(w.Bytes()); got != want || src.Err() != nil {
		t.Errorf("RowsSource wrote %q (err %v), want %q", got, src.Err(), want)
	}
	if n := EncodedSize(rows); n != int64(len(want)) {
		t.Errorf("EncodedSize = %d, want %d", n, len(want))
	}
	w.Reset()
	bad := RowsSource([][]any{{1}, {struct{}{}}, {3}})
	for bad.NextRow(&w) {
	}
	if bad.Err() == nil || string(w.Bytes()) != "1\n" {
		t.Errorf("a bad value: wrote %q, err %v; want the rows before it and an error", w.Bytes(), bad.Err())
	}
}

func TestIsLoadDataRefused(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&mysql.MySQLError{Number: 1148, Message: "The used command is not allowed with this MariaDB version"}, true},
		{fmt.Errorf("load data into t: %w", &mysql.MySQLError{Number: 3948}), true},
		{&mysql.MySQLError{Number: 4166}, true},
		{&mysql.MySQLError{Number: 1062}, false},
		{errors.New("1148"), false},
		{nil, false},
	} {
		if got := IsLoadDataRefused(tc.err); got != tc.want {
			t.Errorf("IsLoadDataRefused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestLoadStatsLines(t *testing.T) {
	s := LoadStats{Rows: 400_000, Bytes: 75_200_000}
	if got, want := s.Size(), "400,000 rows (75.2 MB)"; got != want {
		t.Errorf("Size = %q, want %q", got, want)
	}
	if got, want := s.Rate(1520*time.Millisecond), "1.52 s: 263,157 rows/s, 49.5 MB/s (MB = 10^6 bytes)"; got != want {
		t.Errorf("Rate = %q, want %q", got, want)
	}
	if got, want := (LoadStats{}).Rate(0), "0.00 s: 0 rows/s, 0.0 MB/s (MB = 10^6 bytes)"; got != want {
		t.Errorf("Rate(0) = %q, want %q", got, want)
	}
	s.Add(LoadStats{Rows: 1, Bytes: 2})
	if s.Rows != 400_001 || s.Bytes != 75_200_002 {
		t.Errorf("Add: %+v", s)
	}
}

func TestLoadDataStatement(t *testing.T) {
	got := LoadDataStatement(MySQL.Dialect(), "vmbench-1", "sbtest1", []string{"k", "c"})
	want := "LOAD DATA LOCAL INFILE 'Reader::vmbench-1' INTO TABLE `sbtest1` CHARACTER SET utf8mb4 " +
		`FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (` + "`k`, `c`)"
	if got != want {
		t.Errorf("LoadDataStatement =\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkRowsSource encodes BulkInsert-shaped rows (tpcc's path) for
// LoadData; allocations per row should be 0.
func BenchmarkRowsSource(b *testing.B) {
	at := time.Date(2026, 3, 1, 12, 30, 15, 0, time.UTC)
	rows := make([][]any, 1000)
	for i := range rows {
		rows[i] = []any{i, 7, 3, "abcdefghijklmnopqrstuvwx", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", at, nil, "10.00"}
	}
	var w RowWriter
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		src := RowsSource(rows)
		for src.NextRow(&w) {
		}
	}
	b.SetBytes(int64(len(w.Bytes())))
}
