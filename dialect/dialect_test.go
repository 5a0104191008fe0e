package dialect

import (
	"strings"
	"testing"
)

func TestParseDriver(t *testing.T) {
	for in, want := range map[string]Driver{
		"mysql": MySQL, "MySQL": MySQL, "mariadb": MySQL, "percona": MySQL, " mysql ": MySQL,
		"sqlite": SQLite, "sqlite3": SQLite, "SQLite": SQLite,
	} {
		got, err := ParseDriver(in)
		if err != nil || got != want {
			t.Errorf("ParseDriver(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "pgsql", "sqlserver", "my sql"} {
		_, err := ParseDriver(in)
		if err == nil {
			t.Errorf("ParseDriver(%q) succeeded", in)
			continue
		}
		if !strings.Contains(err.Error(), "mysql, sqlite") {
			t.Errorf("ParseDriver(%q) error %q does not list the valid values", in, err)
		}
	}
	if Driver("nope").Dialect() != nil {
		t.Error("unknown driver has a dialect")
	}
}

// TestStatements pins the exact text each dialect produces.
func TestStatements(t *testing.T) {
	type stmts struct {
		placeholder, quote, autoInc, tableOpts, begin, commit, rollback, createIndex, createIndex2, drop string
	}
	tests := map[Driver]stmts{
		MySQL: {
			placeholder:  "?,?",
			quote:        "`we``ird`",
			autoInc:      "INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY",
			tableOpts:    " ENGINE=InnoDB",
			begin:        "BEGIN",
			commit:       "COMMIT",
			rollback:     "ROLLBACK",
			createIndex:  "CREATE INDEX `k_1` ON `sbtest1` (`k`)",
			createIndex2: "CREATE INDEX `idx_customer` ON `customer` (`c_w_id`, `c_d_id`, `c_last`)",
			drop:         "DROP TABLE IF EXISTS `sbtest1`",
		},
		SQLite: {
			placeholder:  "?,?",
			quote:        `"we""ird"`,
			autoInc:      "INTEGER PRIMARY KEY",
			tableOpts:    "",
			begin:        "BEGIN",
			commit:       "COMMIT",
			rollback:     "ROLLBACK",
			createIndex:  `CREATE INDEX "k_1" ON "sbtest1" ("k")`,
			createIndex2: `CREATE INDEX "idx_customer" ON "customer" ("c_w_id", "c_d_id", "c_last")`,
			drop:         `DROP TABLE IF EXISTS "sbtest1"`,
		},
	}
	for drv, want := range tests {
		d := drv.Dialect()
		if d.Driver() != drv {
			t.Errorf("%s: Driver() = %q", drv, d.Driver())
		}
		got := stmts{
			placeholder:  d.Placeholder(1) + "," + d.Placeholder(7),
			quote:        d.QuoteIdent(map[Driver]string{MySQL: "we`ird", SQLite: `we"ird`}[drv]),
			autoInc:      d.AutoIncrementPK(),
			tableOpts:    d.TableOptions(),
			begin:        d.Begin(),
			commit:       d.Commit(),
			rollback:     d.Rollback(),
			createIndex:  d.CreateIndex("sbtest1", "k_1", "k"),
			createIndex2: d.CreateIndex("customer", "idx_customer", "c_w_id", "c_d_id", "c_last"),
			drop:         d.DropTableIfExists("sbtest1"),
		}
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", drv, got, want)
		}
	}
}

func TestCapabilities(t *testing.T) {
	my, lite := MySQL.Dialect().Capabilities(), SQLite.Dialect().Capabilities()
	if !my.MultiRowInsert || my.MaxPlaceholders != 65535 || !my.ServerSidePrepare || !my.ForceIndexHint ||
		!my.SelectForUpdate || !my.ConcurrentWriters || !my.Databases || !my.AutoIncrementKeyword {
		t.Errorf("mysql capabilities %+v", my)
	}
	if !lite.MultiRowInsert || lite.MaxPlaceholders != 32766 || lite.ServerSidePrepare || lite.ForceIndexHint ||
		lite.SelectForUpdate || lite.ConcurrentWriters || lite.Databases || !lite.AutoIncrementKeyword {
		t.Errorf("sqlite capabilities %+v", lite)
	}
}
