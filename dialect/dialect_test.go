package dialect

import (
	"strings"
	"testing"
)

func TestParseDriver(t *testing.T) {
	for in, want := range map[string]Driver{
		"mysql": MySQL, "MySQL": MySQL, "mariadb": MySQL, "percona": MySQL, " mysql ": MySQL,
		"sqlite": SQLite, "sqlite3": SQLite, "SQLite": SQLite,
		"sqlserver": SQLServer, "SQLServer": SQLServer, "mssql": SQLServer, " MSSQL ": SQLServer,
		"postgres": Postgres, "pgsql": Postgres, "PostgreSQL": Postgres, "pg": Postgres,
	} {
		got, err := ParseDriver(in)
		if err != nil || got != want {
			t.Errorf("ParseDriver(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "pgsqlx", "sql server", "my sql", "tsql"} {
		_, err := ParseDriver(in)
		if err == nil {
			t.Errorf("ParseDriver(%q) succeeded", in)
			continue
		}
		if !strings.Contains(err.Error(), "(valid: mysql, postgres, sqlserver, sqlite)") {
			t.Errorf("ParseDriver(%q) error %q does not list the valid values", in, err)
		}
	}
	if Driver("nope").Dialect() != nil {
		t.Error("unknown driver has a dialect")
	}
	if got := Drivers(); len(got) != 4 || got[0] != MySQL || got[1] != Postgres || got[2] != SQLServer || got[3] != SQLite {
		t.Errorf("Drivers() = %v", got)
	}
	for _, d := range Drivers() {
		if d.Dialect() == nil || d.Dialect().Driver() != d {
			t.Errorf("%s: dialect %v", d, d.Dialect())
		}
	}
}

// TestStatements pins the exact text each dialect produces.
func TestStatements(t *testing.T) {
	type stmts struct {
		placeholder, quote, autoInc, tableOpts, begin, beginWrite, commit, rollback, createIndex, createIndex2, drop string
		timestamp, forUpdate, updLock                                                                                string
	}
	tests := map[Driver]stmts{
		MySQL: {
			placeholder:  "?,?",
			quote:        "`we``ird`",
			autoInc:      "INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY",
			tableOpts:    " ENGINE=InnoDB",
			begin:        "BEGIN",
			beginWrite:   "BEGIN",
			commit:       "COMMIT",
			rollback:     "ROLLBACK",
			createIndex:  "CREATE INDEX `k_1` ON `sbtest1` (`k`)",
			createIndex2: "CREATE INDEX `idx_customer` ON `customer` (`c_w_id`, `c_d_id`, `c_last`)",
			drop:         "DROP TABLE IF EXISTS `sbtest1`",
			timestamp:    "DATETIME",
			forUpdate:    " FOR UPDATE",
			updLock:      "",
		},
		// SQL Server cannot run here: these golden texts are its only test.
		SQLServer: {
			placeholder:  "@p1,@p7",
			quote:        "[we]]ird]",
			autoInc:      "INT IDENTITY(1,1) NOT NULL PRIMARY KEY",
			tableOpts:    "",
			begin:        "BEGIN TRANSACTION",
			beginWrite:   "BEGIN TRANSACTION",
			commit:       "COMMIT TRANSACTION",
			rollback:     "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION",
			createIndex:  "CREATE INDEX [k_1] ON [sbtest1] ([k])",
			createIndex2: "CREATE INDEX [idx_customer] ON [customer] ([c_w_id], [c_d_id], [c_last])",
			drop:         "IF OBJECT_ID(N'[sbtest1]', N'U') IS NOT NULL DROP TABLE [sbtest1]",
			timestamp:    "DATETIME2(3)",
			forUpdate:    "",
			updLock:      " WITH (UPDLOCK, ROWLOCK)",
		},
		Postgres: {
			placeholder:  "$1,$7",
			quote:        `"we""ird"`,
			autoInc:      "SERIAL PRIMARY KEY",
			tableOpts:    "",
			begin:        "BEGIN",
			beginWrite:   "BEGIN",
			commit:       "COMMIT",
			rollback:     "ROLLBACK",
			createIndex:  `CREATE INDEX "k_1" ON "sbtest1" ("k")`,
			createIndex2: `CREATE INDEX "idx_customer" ON "customer" ("c_w_id", "c_d_id", "c_last")`,
			drop:         `DROP TABLE IF EXISTS "sbtest1"`,
			timestamp:    "TIMESTAMP",
			forUpdate:    " FOR UPDATE",
			updLock:      "",
		},
		SQLite: {
			placeholder:  "?,?",
			quote:        `"we""ird"`,
			autoInc:      "INTEGER PRIMARY KEY",
			tableOpts:    "",
			begin:        "BEGIN",
			beginWrite:   "BEGIN IMMEDIATE",
			commit:       "COMMIT",
			rollback:     "ROLLBACK",
			createIndex:  `CREATE INDEX "k_1" ON "sbtest1" ("k")`,
			createIndex2: `CREATE INDEX "idx_customer" ON "customer" ("c_w_id", "c_d_id", "c_last")`,
			drop:         `DROP TABLE IF EXISTS "sbtest1"`,
			timestamp:    "TIMESTAMP",
			forUpdate:    "",
			updLock:      "",
		},
	}
	for drv, want := range tests {
		d := drv.Dialect()
		if d.Driver() != drv {
			t.Errorf("%s: Driver() = %q", drv, d.Driver())
		}
		got := stmts{
			placeholder:  d.Placeholder(1) + "," + d.Placeholder(7),
			quote:        d.QuoteIdent(map[Driver]string{MySQL: "we`ird", SQLServer: "we]ird", SQLite: `we"ird`, Postgres: `we"ird`}[drv]),
			autoInc:      d.AutoIncrementPK(),
			tableOpts:    d.TableOptions(),
			begin:        d.Begin(),
			beginWrite:   d.BeginWrite(),
			commit:       d.Commit(),
			rollback:     d.Rollback(),
			createIndex:  d.CreateIndex("sbtest1", "k_1", "k"),
			createIndex2: d.CreateIndex("customer", "idx_customer", "c_w_id", "c_d_id", "c_last"),
			drop:         d.DropTableIfExists("sbtest1"),
			timestamp:    d.Timestamp(),
			forUpdate:    d.ForUpdate(),
			updLock:      d.UpdateLockHint(),
		}
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", drv, got, want)
		}
	}
}

// TestSQLServerQuoting pins the SQL Server quoting of awkward names: a
// name with a dot, a quote or brackets stays one identifier, also inside
// OBJECT_ID's string.
func TestSQLServerQuoting(t *testing.T) {
	d := SQLServer.Dialect()
	for in, want := range map[string]string{
		"sbtest1": "[sbtest1]",
		"a.b":     "[a.b]",
		"[x]":     "[[x]]]",
		"o'brien": "[o'brien]",
		"":        "[]",
	} {
		if got := d.QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := d.DropTableIfExists("o'b]r"), "IF OBJECT_ID(N'[o''b]]r]', N'U') IS NOT NULL DROP TABLE [o'b]]r]"; got != want {
		t.Errorf("DropTableIfExists = %q, want %q", got, want)
	}
	for n, want := range map[int]string{1: "@p1", 2: "@p2", 10: "@p10", 2098: "@p2098"} {
		if got := d.Placeholder(n); got != want {
			t.Errorf("Placeholder(%d) = %q, want %q", n, got, want)
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
	want := Capabilities{
		MultiRowInsert: true, MaxPlaceholders: 2098, MaxRowsPerInsert: 1000, AutoIncrementKeyword: true,
		ServerSidePrepare: false, ForceIndexHint: false, SelectForUpdate: false, ConcurrentWriters: true, Databases: true,
	}
	if got := SQLServer.Dialect().Capabilities(); got != want {
		t.Errorf("sqlserver capabilities\n got %+v\nwant %+v", got, want)
	}
	want = Capabilities{
		MultiRowInsert: true, MaxPlaceholders: 65535, AutoIncrementKeyword: true,
		ServerSidePrepare: true, SelectForUpdate: true, ConcurrentWriters: true, Databases: true,
	}
	if got := Postgres.Dialect().Capabilities(); got != want {
		t.Errorf("postgres capabilities\n got %+v\nwant %+v", got, want)
	}
	// A dialect that cannot SELECT ... FOR UPDATE locks another way: an
	// update-lock hint, or (SQLite) a write lock taken by BeginWrite.
	for _, drv := range Drivers() {
		d := drv.Dialect()
		caps := d.Capabilities()
		if caps.SelectForUpdate != (d.ForUpdate() != "") {
			t.Errorf("%s: SelectForUpdate %v but ForUpdate %q", drv, caps.SelectForUpdate, d.ForUpdate())
		}
		if !caps.SelectForUpdate && d.UpdateLockHint() == "" && caps.ConcurrentWriters {
			t.Errorf("%s: concurrent writers but no way to lock rows read", drv)
		}
	}
}
