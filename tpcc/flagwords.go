package tpcc

import (
	"context"
	"strings"

	"vmbench/dialect"
)

// flagWords turns the sysbench option names in the dialect's messages
// ("check --pgsql-db", "--mysql-port: ...") into tpcc's own (go-tpc's):
// -H/--host, -P/--port, -U/--user, -p/--password, -D/--db.
var flagWords = strings.NewReplacer(
	"--mysql-host", "--host", "--mysql-port", "--port", "--mysql-user", "--user", "--mysql-password", "--password", "--mysql-db", "--db",
	"--pgsql-host", "--host", "--pgsql-port", "--port", "--pgsql-user", "--user", "--pgsql-password", "--password", "--pgsql-db", "--db")

// renamedError is an error of the dialect with its option names in
// tpcc's words; errors.Is and errors.As see the original.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// inTPCCWords returns err with the sysbench option names in its message
// replaced by tpcc's (flagWords); nil stays nil.
func inTPCCWords(err error) error {
	if err == nil {
		return nil
	}
	msg := flagWords.Replace(err.Error())
	if msg == err.Error() {
		return err
	}
	return &renamedError{msg: msg, err: err}
}

// open is dialect.Open with its errors in tpcc's option names.
func open(ctx context.Context, cfg dialect.Config) (*dialect.DB, error) {
	db, err := dialect.Open(ctx, cfg)
	return db, inTPCCWords(err)
}
