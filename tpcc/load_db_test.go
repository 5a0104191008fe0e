package tpcc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// loadSample keeps every sampleEvery-th row of the first chunk of each
// table the generator emits, at most sampleMax per table.
const (
	sampleEvery = 7
	sampleMax   = 60
)

// sampleRows generates item and warehouse w with the meta m and returns
// the sampled rows per table.
func sampleRows(t *testing.T, m meta, w int) map[string][][]any {
	t.Helper()
	out := map[string][][]any{}
	seen := map[string]bool{}
	g := &loadRows{seed: m.Seed, cLoad: m.Load, at: m.LoadTime, emit: func(b *rowBatch) error {
		if seen[b.table] {
			return nil
		}
		seen[b.table] = true
		for i, r := range b.Rows() {
			if i%sampleEvery == 0 && len(out[b.table]) < sampleMax {
				out[b.table] = append(out[b.table], append([]any(nil), r...))
			}
		}
		return nil
	}}
	if err := g.items(); err != nil {
		t.Fatal(err)
	}
	if err := g.warehouse(w); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadedText renders a generated or a scanned value for comparison: NULL,
// integers and decimals as digits, times in UTC.
func loadedText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.DateTime)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}

// TestLoadedValuesMatchTheGenerator reads back a sample of every table of
// the shared MariaDB load (loaded by LOAD DATA, one warehouse twice after
// a killed connection) and compares each value with what the generator
// gives the same seed, C-Load and load time.
func TestLoadedValuesMatchTheGenerator(t *testing.T) {
	t.Parallel()
	l := mariaTemplate(t)
	if !strings.Contains(l.out, "by LOAD DATA LOCAL INFILE") {
		t.Errorf("the shared load did not use LOAD DATA:\n%s", l.out)
	}
	db := loadOpen(t, l.cfg)
	ctx := loadTestContext(t)
	m, err := readMeta(ctx, db, db.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	for name, rows := range sampleRows(t, m, 2) {
		tb := tableByName(name)
		key := tb.pk
		if len(key) == 0 {
			key = tb.columnNames()[:3] // history: customer, district, warehouse
		}
		var where []string
		for i, k := range key {
			where = append(where, db.Dialect.QuoteIdent(k)+" = "+db.Dialect.Placeholder(i+1))
		}
		q := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(tb.columnNames(), ", "), name, strings.Join(where, " AND "))
		idx := map[string]int{}
		for i, c := range tb.columnNames() {
			idx[c] = i
		}
		for _, want := range rows {
			args := make([]any, len(key))
			for i, k := range key {
				args[i] = want[idx[k]]
			}
			got := make([]any, len(want))
			ptrs := make([]any, len(want))
			for i := range got {
				ptrs[i] = &got[i]
			}
			if err := db.QueryRowContext(ctx, q, args...).Scan(ptrs...); err != nil {
				t.Fatalf("%s %v: %v", name, args, err)
			}
			for i := range want {
				if g, w := loadedText(got[i]), loadedText(want[i]); g != w {
					t.Errorf("%s %v: %s is %q, the generator's %q", name, args, tb.columnNames()[i], g, w)
				}
			}
		}
		t.Logf("%s: %d rows compared", name, len(rows))
	}
}
