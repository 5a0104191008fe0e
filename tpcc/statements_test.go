package tpcc

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/golden"
)

// TestStatementsGolden writes every statement of each dialect to
// testdata/statements.<driver>.golden (go test -run StatementsGolden
// -update rewrites them). No SQL Server runs where the tests run: these
// files are the review of its SQL.
func TestStatementsGolden(t *testing.T) {
	for _, drv := range dialect.Drivers() {
		t.Run(string(drv), func(t *testing.T) {
			s := newStatements(drv.Dialect())
			var b strings.Builder
			for id, text := range s.text {
				fmt.Fprintf(&b, "%s: %s\n", stmtID(id), text)
			}
			golden.Check(t, filepath.Join("testdata", "statements."+string(drv)+".golden"), []byte(b.String()))
		})
	}
}

var sqlServerParam = regexp.MustCompile(`@p(\d+)`)

// TestStatementsPortable: every dialect's statements take the same
// parameters in the same order (SQL Server's @p1..@pN numbered from 1 as
// MySQL's "?" count them), use no LIMIT or TOP, name every statement
// uniquely, and lock exactly the rows read for update, each in its own
// way.
func TestStatementsPortable(t *testing.T) {
	my := newStatements(dialect.MySQL.Dialect())
	ms := newStatements(dialect.SQLServer.Dialect())
	lite := newStatements(dialect.SQLite.Dialect())
	names := map[string]bool{}
	locked := map[stmtID]bool{stNODistrict: true, stNOStocks: true, stPayWarehouse: true, stPayDistrict: true, stPayCustomer: true,
		stDLOldestNewOrder: true, stDLOrderCustomer: true}
	for i := range numStmts {
		id := stmtID(i)
		if id.String() == "" || names[id.String()] {
			t.Errorf("statement %d: name %q empty or used twice", i, id)
		}
		names[id.String()] = true
		n := strings.Count(my.text[id], "?")
		if lite.text[id] != my.text[id] && strings.Count(lite.text[id], "?") != n {
			t.Errorf("%s: SQLite has other parameters than MySQL", id)
		}
		if strings.Contains(ms.text[id], "?") {
			t.Errorf("%s: SQL Server text has a ?: %s", id, ms.text[id])
		}
		m := sqlServerParam.FindAllStringSubmatch(ms.text[id], -1)
		if len(m) != n {
			t.Errorf("%s: %d SQL Server parameters, %d MySQL ones", id, len(m), n)
		}
		for j, p := range m {
			if p[1] != fmt.Sprint(j+1) {
				t.Errorf("%s: parameter %d is @p%s", id, j+1, p[1])
			}
		}
		for _, s := range []*statements{my, ms, lite} {
			up := strings.ToUpper(s.text[id])
			if strings.Contains(up, " LIMIT ") || strings.Contains(up, " TOP ") || strings.Contains(s.text[id], "{") {
				t.Errorf("%s: not portable: %s", id, s.text[id])
			}
		}
		if got := strings.HasSuffix(my.text[id], " FOR UPDATE"); got != locked[id] {
			t.Errorf("%s: MySQL FOR UPDATE %v, want %v", id, got, locked[id])
		}
		if got := strings.Contains(ms.text[id], " WITH (UPDLOCK, ROWLOCK) WHERE "); got != locked[id] {
			t.Errorf("%s: SQL Server UPDLOCK %v, want %v", id, got, locked[id])
		}
		if strings.Contains(ms.text[id], "FOR UPDATE") || strings.Contains(lite.text[id], "FOR UPDATE") || strings.Contains(lite.text[id], "UPDLOCK") {
			t.Errorf("%s: a lock clause the database rejects", id)
		}
	}
}

// TestStatementDecimalScan: decimals read exactly from each driver's form.
func TestStatementDecimalScan(t *testing.T) {
	for _, tc := range []struct {
		src   any
		scale int
		want  int64
	}{
		{[]byte("300000.00"), 2, 30000000}, {"-10.00", 2, -1000}, {"0.05", 2, 5}, {"12.3400", 2, 1234},
		{"12.345", 2, 1235}, {"-12.345", 2, -1235}, {"7", 2, 700}, {".5", 2, 50},
		{"0.1234", 4, 1234}, {[]byte("0.0500"), 4, 500}, {"0.2", 4, 2000},
		{3e+06, 2, 300000000}, {0.1 + 0.2, 2, 30}, {-9.99, 2, -999}, {0.0123, 4, 123},
		{int64(42), 2, 4200}, {"1e+06", 2, 100000000},
	} {
		var got int64
		if err := (&decimalScan{p: &got, scale: tc.scale}).Scan(tc.src); err != nil || got != tc.want {
			t.Errorf("Scan(%#v) scale %d = %d, %v; want %d", tc.src, tc.scale, got, err, tc.want)
		}
	}
	var v int64 = 99
	if err := moneyScan(&v).Scan(nil); err == nil {
		t.Error("NULL scanned into money without error")
	}
	if err := (&decimalScan{p: &v, scale: 2, nullOK: true}).Scan(nil); err != nil || v != 0 {
		t.Errorf("NULL sum: %d, %v", v, err)
	}
	if err := moneyScan(&v).Scan("12a"); err == nil {
		t.Error("12a scanned")
	}
}
