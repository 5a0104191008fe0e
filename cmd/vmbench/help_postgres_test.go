package main

import (
	"strings"
	"testing"
)

// The help of the commands that reach a database names PostgreSQL beside
// the others: its driver, the SQLSTATEs that restart a transaction, and
// the password variable read when no flag gives one.
func TestHelpNamesPostgreSQL(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"MySQL/MariaDB, PostgreSQL, SQL Server or SQLite", "against MySQL/MariaDB, PostgreSQL or SQLite",
			"against MySQL/MariaDB, PostgreSQL, SQL Server or SQLite", "--db-driver pgsql"}},
		{[]string{"sysbench", "--help"}, []string{"pgsql (PostgreSQL", "--db-driver pgsql", "--pgsql-password, else $PGPASSWORD"}},
		{[]string{"sysbench", "prepare", "--help"}, []string{"COPY (PostgreSQL)", "--db-driver pgsql"}},
		{[]string{"sysbench", "run", "--help"}, []string{"PostgreSQL 40P01, 40001, 55P03 and 23505"}},
		{[]string{"tpcc", "--help"}, []string{"postgres (PostgreSQL", "$PGPASSWORD (PostgreSQL)", "--db-driver postgres"}},
		{[]string{"tpcc", "prepare", "--help"}, []string{"COPY on PostgreSQL"}},
		{[]string{"tpcc", "run", "--help"}, []string{"PostgreSQL 40P01/55P03, and 40001"}},
		{[]string{"campaign", "run", "--help"}, []string{"(MySQL/MariaDB, PostgreSQL or SQL Server)", "$PGPASSWORD", "postgres://"}},
		{[]string{"campaign", "resume", "--help"}, []string{"$PGPASSWORD"}},
		{[]string{"campaign", "teardown", "--help"}, []string{"$PGPASSWORD"}},
	} {
		code, stdout, stderr := runCLI(t, nil, tc.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.args, code, stderr)
		}
		text := strings.Join(strings.Fields(stdout), " ") // the lines' breaks aside
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("vmbench %s lacks %q:\n%s", strings.Join(tc.args, " "), w, stdout)
			}
		}
	}
}
