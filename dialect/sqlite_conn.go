package dialect

import (
	"context"
	"database/sql/driver"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// sqliteConnector opens modernc.org/sqlite connections to one file and
// wraps each in a sqliteConn, which queues the file's writers through the
// file's writeGate.
type sqliteConnector struct {
	base driver.Connector
	gate *writeGate
	// wait is how long a writer waits for the gate before it fails as
	// SQLITE_BUSY: the connection's busy_timeout.
	wait time.Duration
	// txWrites: database/sql's BeginTx starts a writing transaction
	// (_txlock=immediate or exclusive).
	txWrites bool
}

// newSQLiteConnector returns the connector of dsn, the file at absolute
// path abs, with busy_timeout busyMS milliseconds and _txlock txlock.
func newSQLiteConnector(dsn, abs string, busyMS int, txlock string) (*sqliteConnector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	tl := strings.ToLower(txlock)
	return &sqliteConnector{base: base, gate: gateFor(abs), wait: time.Duration(busyMS) * time.Millisecond,
		txWrites: tl == "immediate" || tl == "exclusive"}, nil
}

// Connect opens a connection.
func (c *sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &sqliteConn{c: dc, k: c}, nil
}

// Driver returns modernc.org/sqlite's driver.
func (c *sqliteConnector) Driver() driver.Driver { return c.base.Driver() }

// sqlKind is what a statement does to the transaction state and the write
// gate, from its first keywords.
type sqlKind uint8

const (
	sqlOther      sqlKind = iota // reads, PRAGMA, SAVEPOINT, ...: no gate
	sqlBegin                     // BEGIN [DEFERRED]: a transaction that takes the gate at its first write
	sqlBeginWrite                // BEGIN IMMEDIATE or EXCLUSIVE: takes the gate first
	sqlCommit                    // COMMIT, END: releases it once it succeeds
	sqlRollback                  // ROLLBACK (not ROLLBACK TO): releases it
	sqlWrite                     // INSERT, UPDATE, DELETE, REPLACE, DDL: needs it
)

// classifySQL returns the kind of statement q by its first keywords.
// Statements starting with a comment or WITH count as sqlOther.
func classifySQL(q string) sqlKind {
	f := strings.Fields(strings.ToUpper(strings.TrimLeft(q, " \t\r\n(")))
	if len(f) == 0 {
		return sqlOther
	}
	word := func(i int) string {
		if i < len(f) {
			return strings.TrimRight(f[i], ";")
		}
		return ""
	}
	switch word(0) {
	case "BEGIN":
		if w := word(1); w == "IMMEDIATE" || w == "EXCLUSIVE" {
			return sqlBeginWrite
		}
		return sqlBegin
	case "COMMIT", "END":
		return sqlCommit
	case "ROLLBACK":
		for _, w := range f[1:] {
			if strings.TrimRight(w, ";") == "TO" {
				return sqlOther // to a savepoint: the transaction goes on
			}
		}
		return sqlRollback
	case "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "VACUUM", "REINDEX":
		return sqlWrite
	}
	return sqlOther
}

// sqliteConn is a modernc.org/sqlite connection that takes its file's
// write gate for the span of each write transaction (see writeGate), and
// is discarded rather than pooled when it is left inside a transaction.
//
// The transaction state is followed from the statements this connection
// runs (classifySQL): BEGIN IMMEDIATE takes the gate before SQLite sees the
// statement; a deferred BEGIN takes it at its first write; COMMIT and END
// release it once they succeed (a failed COMMIT keeps the transaction and
// the gate until the ROLLBACK that follows), ROLLBACK whatever it returns
// (it fails only when no transaction is open); an autocommit write holds
// it for the statement. Writes through Query (INSERT ... RETURNING outside a
// transaction) are not queued and rely on busy_timeout alone.
//
// database/sql uses a connection from one goroutine at a time, so the
// state needs no lock.
type sqliteConn struct {
	c     driver.Conn
	k     *sqliteConnector
	inTx  bool // an explicit transaction is open
	holds bool // this connection holds the gate
}

// Interfaces every modernc.org/sqlite connection implements, forwarded.
var (
	_ driver.ConnBeginTx        = (*sqliteConn)(nil)
	_ driver.ConnPrepareContext = (*sqliteConn)(nil)
	_ driver.ExecerContext      = (*sqliteConn)(nil)
	_ driver.QueryerContext     = (*sqliteConn)(nil)
	_ driver.Pinger             = (*sqliteConn)(nil)
	_ driver.SessionResetter    = (*sqliteConn)(nil)
	_ driver.Validator          = (*sqliteConn)(nil)
)

// Unwrap returns the driver's connection (sqlite.Limit looks through it).
func (c *sqliteConn) Unwrap() driver.Conn { return c.c }

// run runs f, a statement of kind k, keeping the gate and the transaction
// state in step.
func (c *sqliteConn) run(ctx context.Context, k sqlKind, f func() error) error {
	switch k {
	case sqlBeginWrite, sqlWrite:
		if !c.holds {
			if err := c.k.gate.acquire(ctx, c.k.wait); err != nil {
				return err
			}
			c.holds = true
		}
	case sqlOther:
		return f()
	case sqlBegin, sqlCommit, sqlRollback: // no gate to take: a write takes it, the end of the transaction lets it go (below)
	}
	err := f()
	switch {
	case k == sqlBeginWrite || k == sqlBegin:
		if err == nil {
			c.inTx = true
		}
	case k == sqlRollback:
		c.inTx = false // a failed ROLLBACK means there was no transaction
	case k == sqlCommit:
		// A failed COMMIT may leave the transaction open (SQLITE_BUSY, a
		// deferred foreign key), to be rolled back next.
		if err == nil || noActiveTransaction(err) {
			c.inTx = false
		}
	}
	if !c.inTx && c.holds {
		c.holds = false
		c.k.gate.release()
	}
	return err
}

// noActiveTransaction reports SQLite's "cannot commit/rollback - no
// transaction is active".
func noActiveTransaction(err error) bool {
	return strings.Contains(err.Error(), "no transaction is active")
}

// Prepare prepares query.
func (c *sqliteConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares query on the driver's connection.
func (c *sqliteConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.c.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &sqliteStmt{s: st, c: c, kind: classifySQL(query)}, nil
}

// ExecContext runs query.
func (c *sqliteConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	var res driver.Result
	err := c.run(ctx, classifySQL(query), func() (err error) {
		res, err = c.c.(driver.ExecerContext).ExecContext(ctx, query, args)
		return err
	})
	return res, err
}

// QueryContext runs query (see sqliteConn on writes through Query).
func (c *sqliteConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.c.(driver.QueryerContext).QueryContext(ctx, query, args)
}

// Begin starts a transaction with default options.
func (c *sqliteConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a transaction: a writing one (the gate first) when the
// DSN sets _txlock=immediate or exclusive and opts is not read-only.
func (c *sqliteConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	k := sqlBegin
	if c.k.txWrites && !opts.ReadOnly {
		k = sqlBeginWrite
	}
	var tx driver.Tx
	err := c.run(ctx, k, func() (err error) {
		tx, err = c.c.(driver.ConnBeginTx).BeginTx(ctx, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &sqliteTx{tx: tx, c: c}, nil
}

// Ping checks the connection.
func (c *sqliteConn) Ping(ctx context.Context) error { return c.c.(driver.Pinger).Ping(ctx) }

// ResetSession refuses a connection that was left inside a transaction
// (database/sql then discards it) and otherwise asks the driver.
func (c *sqliteConn) ResetSession(ctx context.Context) error {
	if c.inTx || c.holds {
		return driver.ErrBadConn
	}
	return c.c.(driver.SessionResetter).ResetSession(ctx)
}

// IsValid reports false for a connection handed back inside a
// transaction, so that database/sql closes it (SQLite rolls the
// transaction back, and Close releases the gate) instead of pooling it.
func (c *sqliteConn) IsValid() bool {
	return !c.inTx && !c.holds && c.c.(driver.Validator).IsValid()
}

// Close closes the driver's connection, which rolls back an open
// transaction, and releases the gate if this connection holds it.
func (c *sqliteConn) Close() error {
	err := c.c.Close()
	c.inTx = false
	if c.holds {
		c.holds = false
		c.k.gate.release()
	}
	return err
}

// sqliteTx is a transaction begun by BeginTx.
type sqliteTx struct {
	tx driver.Tx
	c  *sqliteConn
}

func (t *sqliteTx) Commit() error   { return t.c.run(context.Background(), sqlCommit, t.tx.Commit) }
func (t *sqliteTx) Rollback() error { return t.c.run(context.Background(), sqlRollback, t.tx.Rollback) }

// sqliteStmt is a prepared statement whose executions take the gate as its
// text requires (see sqliteConn).
type sqliteStmt struct {
	s    driver.Stmt
	c    *sqliteConn
	kind sqlKind
}

var (
	_ driver.StmtExecContext  = (*sqliteStmt)(nil)
	_ driver.StmtQueryContext = (*sqliteStmt)(nil)
)

func (s *sqliteStmt) Close() error  { return s.s.Close() }
func (s *sqliteStmt) NumInput() int { return s.s.NumInput() }

// Exec runs the statement with positional args.
func (s *sqliteStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

// Query runs the statement with positional args.
func (s *sqliteStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

// ExecContext runs the statement, taking the gate for a write.
func (s *sqliteStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	var res driver.Result
	err := s.c.run(ctx, s.kind, func() (err error) {
		res, err = s.s.(driver.StmtExecContext).ExecContext(ctx, args)
		return err
	})
	return res, err
}

// QueryContext runs the statement (see sqliteConn on writes through Query).
func (s *sqliteStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.s.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}
