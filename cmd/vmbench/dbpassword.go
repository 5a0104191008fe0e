package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"vmbench/dialect"
	"vmbench/scenarios"
)

// The password of campaign run --db-dsn: inline in the DSN, where every
// user of the machine sees it in ps, or, for a DSN without one, from
// --db-password-file, else the variable the campaign file's
// database.password-env names, else the client's own variable ($MYSQL_PWD
// as the mysql client reads it, $SQLCMDPASSWORD as sqlcmd does, $PGPASSWORD
// as psql does).

// maxPasswordFile bounds the size of a --db-password-file, in bytes: a
// password is short, a larger file is the wrong file.
const maxPasswordFile = 4096

// dsnPassword is where the password of a --db-dsn without one comes from.
type dsnPassword struct {
	file   string // --db-password-file
	env    string // the campaign file's database.password-env, may be empty
	getenv func(string) string
}

// clientEnv returns the database client's own password variable for drv.
func clientEnv(drv dialect.Driver) string { return scenarios.ServerPasswordEnv(string(drv)) }

// fill sets cfg.Password when the DSN has none, from the file, else the
// campaign's variable, else the client's; a password both inline and in a
// file is refused. Errors name the flag.
func (p dsnPassword) fill(cfg *dialect.Config) error {
	if p.file != "" {
		if cfg.Password != "" {
			return usagef("--db-password-file: --db-dsn has a password of its own; give it once (preferably in the file)")
		}
		pw, err := readPasswordFile(p.file)
		if err != nil {
			return usagef("--db-password-file: %v", err)
		}
		cfg.Password = pw
		return nil
	}
	if cfg.Password != "" || p.getenv == nil {
		return nil
	}
	for _, k := range []string{p.env, clientEnv(cfg.Driver)} {
		if k == "" {
			continue
		}
		if v := p.getenv(k); v != "" {
			cfg.Password = v
			return nil
		}
	}
	return nil
}

// where says, for a hint, where a password of p may come from.
func (p dsnPassword) where(drv dialect.Driver) string {
	var s []string
	if p.env != "" {
		s = append(s, "$"+p.env+" (database.password-env)")
	}
	s = append(s, "$"+clientEnv(drv))
	return "inline in --db-dsn, in --db-password-file, or in " + strings.Join(s, " or ")
}

// readPasswordFile returns the contents of path without its trailing
// newline. A file other users can read is refused, as ssh refuses such a
// key: the password would be no more private than on the command line.
func readPasswordFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	switch {
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file", path)
	case fi.Mode().Perm()&0o004 != 0:
		return "", fmt.Errorf("%s is readable by every user (mode %04o); make it private first: chmod 600 %s", path, fi.Mode().Perm(), path)
	case fi.Size() > maxPasswordFile:
		return "", fmt.Errorf("%s has %d bytes, more than a password (at most %d)", path, fi.Size(), maxPasswordFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPasswordFile+1))
	if err != nil {
		return "", err
	}
	pw := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if pw == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	if strings.ContainsAny(pw, "\r\n") {
		return "", fmt.Errorf("%s has more than one line; put the password alone on the first", path)
	}
	return pw, nil
}

// dsnFlagWords turns the sysbench flag names in the dialect's messages
// into the parts of --db-dsn they mean, so that an error shown by campaign
// run names only flags that command has.
var dsnFlagWords = strings.NewReplacer(
	"--mysql-host", "the host", "--mysql-port", "the port", "--mysql-socket", "the socket",
	"--mysql-user", "the user", "--mysql-password", "the password", "--mysql-db", "the database",
	"--pgsql-host", "the host", "--pgsql-port", "the port", "--pgsql-user", "the user", "--pgsql-password", "the password",
	"--pgsql-db", "the database",
	"--db-driver", "the scheme", "--sqlite-path", "the SQLite file", "--threads", "the connections")

// dsnError returns err, an error of dialect.Validate or dialect.Open for
// the server that label names (--db-dsn, or a campaign file's
// simulate.db-server), as a usage error naming only campaign run's flags:
// a refused login says where the password may come from.
func dsnError(err error, label string, cfg dialect.Config, p dsnPassword) error {
	if dialect.IsAccessDenied(err) {
		return usagef("%s: connecting to %s: %s; check the user and the password (%s)",
			label, cfg, dsnFlagWords.Replace(dialectCause(err).Error()), p.where(cfg.Driver))
	}
	return usagef("%s: %s", label, dsnFlagWords.Replace(err.Error()))
}

// dialectCause returns the driver's error inside an error of dialect.Open,
// without the hint Open adds.
func dialectCause(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		if dialect.Name(u.Unwrap()) != dialect.Name(err) {
			return err
		}
		err = u.Unwrap()
	}
}
