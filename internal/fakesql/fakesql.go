// Package fakesql is a database/sql driver that runs nothing: for tests of
// what a workload does with its connection when no server of the kind
// (SQL Server here) can run. Every statement succeeds with no rows and no
// rows affected, except a ROLLBACK when the Connector says it fails; the
// Connector logs each statement with the state of its context and counts
// the connections it opened and closed.
package fakesql

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"sync"
)

// Stmt is one statement run, with what its context said.
type Stmt struct {
	Conn        int    // connection number, from 1
	SQL         string // the text
	CtxErr      error  // ctx.Err() when it ran
	HasDeadline bool   // ctx had a deadline
}

// ErrRollback is the error of a failing ROLLBACK.
var ErrRollback = errors.New("fakesql: ROLLBACK failed")

// Connector opens fake connections. Its fields may be read once the
// connections are idle; use Log for the statements.
type Connector struct {
	// FailRollback makes every statement containing ROLLBACK fail with
	// ErrRollback.
	FailRollback bool

	mu             sync.Mutex
	log            []Stmt
	opened, closed int
}

// Log returns the statements run so far.
func (c *Connector) Log() []Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Stmt(nil), c.log...)
}

// Counts returns how many connections were opened and closed.
func (c *Connector) Counts() (opened, closed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened, c.closed
}

// Connect opens a connection.
func (c *Connector) Connect(context.Context) (driver.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opened++
	return &conn{k: c, n: c.opened}, nil
}

// Driver returns a driver that opens connections of c.
func (c *Connector) Driver() driver.Driver { return drv{c} }

type drv struct{ c *Connector }

func (d drv) Open(string) (driver.Conn, error) { return d.c.Connect(context.Background()) }

type conn struct {
	k *Connector
	n int
}

func (c *conn) run(ctx context.Context, q string) error {
	_, dl := ctx.Deadline()
	c.k.mu.Lock()
	c.k.log = append(c.k.log, Stmt{Conn: c.n, SQL: q, CtxErr: ctx.Err(), HasDeadline: dl})
	fail := c.k.FailRollback
	c.k.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if fail && strings.Contains(strings.ToUpper(q), "ROLLBACK") {
		return ErrRollback
	}
	return nil
}

func (c *conn) Prepare(q string) (driver.Stmt, error) { return &stmt{c, q}, nil }
func (c *conn) PrepareContext(_ context.Context, q string) (driver.Stmt, error) {
	return &stmt{c, q}, nil
}
func (c *conn) Begin() (driver.Tx, error) { return nil, errors.New("fakesql: no driver transactions") }
func (c *conn) Close() error {
	c.k.mu.Lock()
	defer c.k.mu.Unlock()
	c.k.closed++
	return nil
}
func (c *conn) ExecContext(ctx context.Context, q string, _ []driver.NamedValue) (driver.Result, error) {
	if err := c.run(ctx, q); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

type stmt struct {
	c *conn
	q string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }
func (s *stmt) Exec([]driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), nil)
}
func (s *stmt) Query([]driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), nil)
}
func (s *stmt) ExecContext(ctx context.Context, _ []driver.NamedValue) (driver.Result, error) {
	return s.c.ExecContext(ctx, s.q, nil)
}
func (s *stmt) QueryContext(ctx context.Context, _ []driver.NamedValue) (driver.Rows, error) {
	if err := s.c.run(ctx, s.q); err != nil {
		return nil, err
	}
	return rows{}, nil
}

type rows struct{}

func (rows) Columns() []string         { return nil }
func (rows) Close() error              { return nil }
func (rows) Next([]driver.Value) error { return io.EOF }
