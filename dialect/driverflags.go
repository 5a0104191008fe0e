package dialect

import (
	"errors"
	"fmt"
)

// DriverFlags refuses connection options given for another kind of
// database than driver d, which would otherwise be ignored without a
// word: --sqlite-path unless d is SQLite, and with SQLite each of flags
// (a tool's connection flags' names, without dashes) but --db-driver and
// --sqlite-path: the server's host, port, socket, user, password and
// database. changed reports whether a flag was given; servers names the
// drivers the server flags apply to ("mysql", "mysql or sqlserver"). It
// returns one error per such flag, joined, each naming the flag and the
// --db-driver it needs.
func DriverFlags(d Driver, changed func(string) bool, flags []string, servers string) error {
	var errs []error
	for _, f := range flags {
		switch {
		case f == "db-driver":
		case f == "sqlite-path" && d != SQLite && changed(f):
			errs = append(errs, errors.New("--sqlite-path applies to --db-driver sqlite; add --db-driver sqlite"))
		case f != "sqlite-path" && d == SQLite && changed(f):
			errs = append(errs, fmt.Errorf("--%s applies to --db-driver %s, not sqlite; drop it, or give --db-driver %s", f, servers, servers))
		}
	}
	return errors.Join(errs...)
}
