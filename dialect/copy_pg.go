package dialect

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// This file copies a PostgreSQL database for CopyDatabase: CREATE
// DATABASE ... TEMPLATE, the server's own file-level copy.

// templateWait bounds how long copyPostgres keeps trying while other
// sessions are connected to the template database: PostgreSQL refuses to
// copy a database that anyone else is connected to (SQLSTATE 55006,
// object_in_use, "source database ... is being accessed by other users")
// after waiting 5 s itself for them to leave (CountOtherDBBackends). A
// var so that tests can make one attempt only.
var templateWait = 30 * time.Second

// pgObjectInUse is SQLSTATE 55006 (object_in_use).
const pgObjectInUse = "55006"

// copyPostgres makes dst a copy of src with CREATE DATABASE "dst"
// TEMPLATE "src" (tables, indexes, sequences at their values, owned by
// the connecting user, who must own src or be a superuser). dst must
// exist and hold no tables, as on MySQL; it is dropped and made again
// as the copy. While other sessions are connected to src the copy is
// tried again for templateWait, then refused with an error listing them
// (pid, user, application, client) so that they can be closed; dst is
// left dropped then. Concurrent copies of one template do not block one
// another: each holds a share lock on it and connects to the database
// postgres, not to src.
func copyPostgres(ctx context.Context, src, dst Config) error {
	if have, err := Tables(ctx, dst); err != nil {
		return err
	} else if len(have) > 0 {
		return fmt.Errorf("copy to %s: it holds tables already (%s)", dst.Database, strings.Join(have, ", "))
	}
	admin, err := Open(ctx, dst.WithDatabase(postgresAdminDatabase))
	if err != nil {
		return err
	}
	defer admin.Close()
	drop := dropDatabaseSQL(Postgres, dst.Database)
	if _, err := admin.ExecContext(ctx, drop); err != nil {
		return fmt.Errorf("%s: %w", drop, err)
	}
	d := admin.Dialect
	create := "CREATE DATABASE " + d.QuoteIdent(dst.Database) + " TEMPLATE " + d.QuoteIdent(src.Database)
	deadline := time.Now().Add(templateWait)
	for {
		_, err := admin.ExecContext(ctx, create)
		if err == nil {
			break
		}
		if SQLState(err) != pgObjectInUse || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", create, err)
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%s: %w; sessions on %s: %s (close them: a database is copied only while no one is connected to it)",
				create, err, src.Database, pgSessions(ctx, admin, src.Database))
		}
	}
	names, err := Tables(ctx, dst)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("copy from %s: it has no tables", src.Database)
	}
	return nil
}

// pgSessions describes the sessions pg_stat_activity lists on database,
// "pid 123 user postgres application psql from 10.0.0.5", joined by
// "; ", or says why it cannot.
func pgSessions(ctx context.Context, db *DB, database string) string {
	rows, err := db.QueryContext(ctx, `SELECT pid, COALESCE(usename, ''), COALESCE(application_name, ''), COALESCE(host(client_addr), 'a local socket')
FROM pg_stat_activity WHERE datname = $1 ORDER BY pid`, database)
	if err != nil {
		return "(not listed: " + err.Error() + ")"
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid int
		var user, app, from string
		if err := rows.Scan(&pid, &user, &app, &from); err != nil {
			return "(not listed: " + err.Error() + ")"
		}
		out = append(out, fmt.Sprintf("pid %d user %s application %q from %s", pid, user, app, from))
	}
	if len(out) == 0 {
		return "none left"
	}
	return strings.Join(out, "; ")
}
