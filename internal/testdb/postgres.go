package testdb

// A throwaway PostgreSQL server, as Server is a throwaway MariaDB: initdb
// into a temp dir, a free TCP port on 127.0.0.1, the Unix socket in the
// same dir, settings for speed rather than durability, and nothing of the
// machine's own clusters read or touched (no server on 5432 is ever
// contacted: the port is always a free one).

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// ErrNoPostgresBinary is returned by StartPostgres when no PostgreSQL
// server binary (postgres, with initdb beside it) exists on this machine.
// SharedPostgres turns it into a skipped test.
var ErrNoPostgresBinary = errors.New("internal/testdb: no PostgreSQL server binary (postgres and initdb) found; install postgresql (make test does this when run as root)")

// EnvPostgres names an environment variable that, when set, is the
// directory holding the postgres and initdb binaries to use instead of
// searching for them.
const EnvPostgres = "VMBENCH_TESTDB_POSTGRES"

// postgresDirs are searched, after PATH, for postgres and initdb; a glob
// that matches several directories tries the highest version first
// (Debian and Ubuntu: /usr/lib/postgresql/<major>/bin; the PGDG RPMs:
// /usr/pgsql-<major>/bin; a source build: /usr/local/pgsql/bin). The
// Makefile's PG_DIRS lists the same.
var postgresDirs = []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin"}

// PGServer is one running throwaway PostgreSQL server. Its methods are
// safe for concurrent use.
type PGServer struct {
	proc           // admin: the superuser "postgres" over TCP, database postgres
	bindir  string // holds postgres and initdb
	datadir string
	port    int
	version string
}

// findPostgres returns the directory holding postgres and initdb.
func findPostgres() (string, error) {
	both := func(d string) bool {
		return isExecutable(filepath.Join(d, "postgres")) && isExecutable(filepath.Join(d, "initdb"))
	}
	if d := os.Getenv(EnvPostgres); d != "" {
		if both(d) {
			return d, nil
		}
		return "", fmt.Errorf("internal/testdb: %s=%s does not hold the postgres and initdb binaries", EnvPostgres, d)
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if resolved, err := filepath.EvalSymlinks(p); err == nil && both(filepath.Dir(resolved)) {
			return filepath.Dir(resolved), nil
		}
		if both(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	for _, pattern := range postgresDirs {
		dirs, _ := filepath.Glob(pattern)
		slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
		for _, d := range dirs {
			if both(d) {
				return d, nil
			}
		}
	}
	return "", ErrNoPostgresBinary
}

// versionOf returns the major version in a directory such as
// /usr/lib/postgresql/15/bin or /usr/pgsql-16/bin: its first run of digits,
// 0 when there is none.
func versionOf(dir string) int {
	n, _ := strconv.Atoi(digits.FindString(dir))
	return n
}

var digits = regexp.MustCompile(`[0-9]+`)

// StartPostgres initialises a new data directory with initdb and starts a
// server on it, listening on a free port of 127.0.0.1 and on a Unix socket
// in its temp dir. Run as root, initdb and postgres (which refuse root)
// run as the user "postgres", or "nobody" when there is none, and the temp
// dir is given to that user. It returns ErrNoPostgresBinary when no binary
// is found, and otherwise an error with the tail of the server's log when
// the server does not start within a minute. The caller must call Stop.
func StartPostgres() (*PGServer, error) {
	bindir, err := findPostgres()
	if err != nil {
		return nil, err
	}
	s := &PGServer{bindir: bindir, proc: proc{name: "postgres", stopSig: syscall.SIGINT}}
	err = s.create(dirPrefix+"pg-", func(deadline time.Time) error {
		s.datadir = filepath.Join(s.dir, "data")
		if err := giveToServerUser(s.dir); err != nil {
			return err
		}
		return s.initdb(deadline)
	}, s.start)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Host returns the address the server listens on: "127.0.0.1".
func (s *PGServer) Host() string { return "127.0.0.1" }

// Port returns the server's TCP port on Host, never 5432's cluster.
func (s *PGServer) Port() int { return s.port }

// SocketDir returns the directory of the server's Unix socket
// (.s.PGSQL.<port>).
func (s *PGServer) SocketDir() string { return s.dir }

// User returns the superuser, "postgres"; every login is trusted (no
// password).
func (s *PGServer) User() string { return "postgres" }

// Version returns the server's SHOW server_version, e.g. "15.14 (Debian
// 15.14-0+deb12u1)".
func (s *PGServer) Version() string { return s.version }

// DSN returns a URL for the superuser over TCP with db as the database
// (empty: postgres): "postgres://postgres@127.0.0.1:PORT/db?sslmode=disable".
func (s *PGServer) DSN(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", s.User(), net.JoinHostPort(s.Host(), strconv.Itoa(s.port)), db)
}

// Admin returns the server's administrative pool (the superuser, database
// postgres), for tests that look at pg_stat_activity or end backends. Do
// not close it.
func (s *PGServer) Admin() *sql.DB { return s.admin }

// NewDatabase creates a database with a name unique on this server,
// derived from the test's name, and drops it (WITH (FORCE), ending the
// sessions left in it) when the test and its subtests finish. It fails
// the test if the database cannot be created.
func (s *PGServer) NewDatabase(t testing.TB) string {
	t.Helper()
	return s.newDatabase(t,
		func(name string) string { return `CREATE DATABASE "` + name + `"` },
		func(name string) string { return `DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)` })
}

// sharedPG is the one PostgreSQL server of this test binary.
var sharedPG sharedServer[*PGServer]

// SharedPostgres returns the test binary's PostgreSQL server, starting it
// on first use. It skips the test when no server binary exists
// (ErrNoPostgresBinary) and fails it when one exists but the server does
// not start. Main stops it.
func SharedPostgres(t testing.TB) *PGServer {
	t.Helper()
	return sharedPG.get(t, StartPostgres, ErrNoPostgresBinary)
}
