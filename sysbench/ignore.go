package sysbench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vmbench/dialect"
)

// IgnoreErrors is --mysql-ignore-errors: the server errors after which
// sysbench 1.0 restarts the whole event instead of ending the run.
// Default "1213,1020,1205" (deadlock, record changed since last read, lock
// wait timeout), as in sysbench 1.0.20 and master; "all" restarts after
// any error. Whatever the list, vmbench also restarts after SQLite's
// SQLITE_BUSY/SQLITE_LOCKED (sysbench has no SQLite driver) and always
// reconnects after a lost connection, counted as a reconnect (sysbench
// does so only for 2013/2006/2011/2055 listed explicitly).
type IgnoreErrors struct {
	All   bool
	Codes []int
}

// DefaultIgnoreErrors is sysbench's default list.
func DefaultIgnoreErrors() IgnoreErrors { return IgnoreErrors{Codes: []int{1213, 1020, 1205}} }

// String renders the list as sysbench's option value.
func (ie IgnoreErrors) String() string {
	if ie.All {
		return "all"
	}
	s := make([]string, len(ie.Codes))
	for i, c := range ie.Codes {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// restart reports whether err from a database of driver d (not a lost
// connection, not a cancellation) restarts the event. The list holds MySQL
// error numbers; on SQLite the busy and locked errors restart, on
// PostgreSQL sysbench's pgsql set (restartPostgres).
func (ie IgnoreErrors) restart(err error, d dialect.Driver) bool {
	switch {
	case ie.All:
		return true
	case d == dialect.SQLite:
		return dialect.Classify(err) == dialect.Retry
	case d == dialect.Postgres:
		return restartPostgres(err)
	default:
		code := dialect.Code(err)
		return code != 0 && slices.Contains(ie.Codes, code)
	}
}

type ignoreValue struct{ p *IgnoreErrors }

func (v ignoreValue) String() string { return v.p.String() }

// Recorded is String, with the empty list spelled "none": a recorded
// value is never empty (workload.RecordedFlags leaves those out, and
// left out this option would be its default list).
func (v ignoreValue) Recorded() string {
	if s := v.p.String(); s != "" {
		return s
	}
	return "none"
}

func (v ignoreValue) Type() string { return "codes|all" }

// Set parses "1213,1205", "all" or "none" (an empty list).
func (v ignoreValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "all":
		*v.p = IgnoreErrors{All: true}
		return nil
	case "", "none":
		*v.p = IgnoreErrors{}
		return nil
	}
	var codes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not an error number (a list such as 1213,1020,1205, or all, or none)", f)
		}
		codes = append(codes, n)
	}
	*v.p = IgnoreErrors{Codes: codes}
	return nil
}
