package tpcc

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"vmbench/dialect"
)

// Isolation is --isolation, the transaction isolation level of the run's
// sessions on PostgreSQL: "" keeps the server's default (READ COMMITTED
// unless default_transaction_isolation says otherwise), else
// read-committed, repeatable-read or serializable. Under the last two
// PostgreSQL aborts a transaction that cannot be serialized with 40001,
// which the worker restarts (up to --retries) and counts as a retry.
type Isolation string

// The --isolation values.
const (
	ReadCommitted  Isolation = "read-committed"
	RepeatableRead Isolation = "repeatable-read"
	Serializable   Isolation = "serializable"
)

// isolationLevels maps each value to PostgreSQL's spelling.
var isolationLevels = map[Isolation]string{
	ReadCommitted: "read committed", RepeatableRead: "repeatable read", Serializable: "serializable",
}

// validateIsolation returns what is wrong with --isolation for driver d.
func validateIsolation(i Isolation, d dialect.Driver) error {
	if i == "" {
		return nil
	}
	if _, ok := isolationLevels[i]; !ok {
		return fmt.Errorf("--isolation: %q is not valid (read-committed, repeatable-read, serializable)", string(i))
	}
	if d != dialect.Postgres {
		return errors.New("--isolation: applies to --db-driver postgres; MySQL and SQL Server run at the server's default level")
	}
	return nil
}

// withIsolation returns dc with the session parameter that sets i
// (default_transaction_isolation, sent at connect), Params copied; dc
// itself when i is "".
func withIsolation(dc dialect.Config, i Isolation) dialect.Config {
	level, ok := isolationLevels[i]
	if !ok || dc.Driver != dialect.Postgres {
		return dc
	}
	dc.Params = maps.Clone(dc.Params)
	if dc.Params == nil {
		dc.Params = map[string]string{}
	}
	dc.Params["default_transaction_isolation"] = level
	return dc
}

// isolationWords says the run's isolation level for the header, "" when
// the driver is not PostgreSQL.
func isolationWords(i Isolation, d dialect.Driver) string {
	if d != dialect.Postgres {
		return ""
	}
	if i == "" {
		return "Isolation: the server's default (READ COMMITTED unless default_transaction_isolation says otherwise)"
	}
	return "Isolation: " + strings.ToUpper(isolationLevels[i]) + " (--isolation; serialization failures are restarted and counted as retries)"
}

// isolationValues lists the --isolation values for the help text.
func isolationValues() string {
	v := slices.Sorted(maps.Keys(isolationLevels))
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
