package dialect

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Defaults of the connection flags, sysbench 1.0's (--mysql-host localhost,
// --mysql-port 3306, --mysql-user sbtest, --mysql-db sbtest). sysbench has
// no SQLite or SQL Server driver: DefaultSQLitePath follows the same naming,
// and SQL Server gets its standard TCP port and its administrator login.
const (
	DefaultMySQLHost      = "localhost"
	DefaultMySQLPort      = 3306
	DefaultMySQLUser      = "sbtest"
	DefaultDatabase       = "sbtest"
	DefaultSQLitePath     = "sbtest.db"
	DefaultSQLServerPort  = 1433
	DefaultSQLServerUser  = "sa"
	defaultSQLServerAppID = "vmbench" // the login's "app name", seen in sys.dm_exec_sessions
)

// Connection settings Open puts into the driver DSN. Config.Params
// overrides any of them by name.
const (
	// mysqlDialTimeout bounds establishing a TCP or socket connection
	// (go-sql-driver "timeout").
	mysqlDialTimeout = 10 * time.Second
	// mysqlWriteTimeout bounds writing one packet to the server
	// (go-sql-driver "writeTimeout"); a bulk INSERT of 512 KiB takes far less.
	// There is deliberately no read timeout: CREATE INDEX or ANALYZE on a
	// large table legitimately runs for minutes. Runs bound statements with
	// their context instead.
	mysqlWriteTimeout = 60 * time.Second
	// sqliteBusyTimeout is how long, in milliseconds, a SQLite connection
	// waits for another connection's lock before failing with SQLITE_BUSY.
	sqliteBusyTimeout = 5000
	// sqlserverDialTimeout bounds establishing a TCP connection to SQL
	// Server (go-mssqldb "dial timeout", whole seconds). The login after it
	// has no timeout of its own ("connection timeout" stays 0): Open's
	// context bounds it.
	sqlserverDialTimeout = 10 * time.Second
)

// Config says how to reach a database. Field names follow sysbench's flags:
// --db-driver, --mysql-host, --mysql-port, --mysql-socket, --mysql-user,
// --mysql-password, --mysql-db, and vmbench's --sqlite-path. SQL Server
// uses the same fields (and so the same flags): Host, Port, User, Password,
// Database, plus Instance from a DSN. Build one with DefaultConfig and
// flags, or with ParseDSN; check it with Validate.
type Config struct {
	// Driver selects the database family (--db-driver).
	Driver Driver
	// Host is the server's host name or IP address (--mysql-host, default
	// "localhost"). Unlike libmysqlclient, go-sql-driver connects to
	// "localhost" over TCP; give Socket to use a Unix socket.
	Host string
	// Port is the server's TCP port (--mysql-port). For MySQL 0 means 3306.
	// For SQL Server 0 means 1433, or with Instance set, asking the SQL
	// Server Browser (UDP 1434) for the port. A port given is never
	// replaced.
	Port int
	// Socket is the path of the MySQL server's Unix socket (--mysql-socket).
	// When set, it is used instead of TCP; Host must then be empty or
	// "localhost", as with libmysqlclient.
	Socket string
	// User and Password are the account (--mysql-user, --mysql-password):
	// for SQL Server a SQL Server authentication login such as "sa".
	// String never shows the password.
	User, Password string
	// Database is the database (--mysql-db); empty connects without a
	// default database (SQL Server: the login's default database).
	Database string
	// Instance is a SQL Server named instance, the path of
	// "sqlserver://host/instance"; empty for the default instance. Only
	// ParseDSN sets it. Other drivers ignore it.
	Instance string
	// SQLitePath is the SQLite database file (--sqlite-path); its directory
	// must exist. Relative paths are relative to the working directory.
	SQLitePath string
	// Params are extra driver DSN parameters, applied after (and so
	// overriding) the ones Open sets. For MySQL they are go-sql-driver
	// parameters or session variables (e.g. "readTimeout": "30s",
	// "interpolateParams": "true", "innodb_lock_wait_timeout": "5"); for
	// SQLite they are modernc.org/sqlite or SQLite URI parameters (e.g.
	// "_busy_timeout": "0", "_txlock": "immediate", "_synchronous": "NORMAL");
	// for SQL Server they are go-mssqldb connection-string keys, matched
	// without regard to case (e.g. "encrypt": "disable", "packet size":
	// "32767", "dial timeout": "5"), except the ones the fields above set.
	Params map[string]string
}

// DefaultConfig returns d with every connection flag at its default:
// sysbench's for MySQL and PostgreSQL (port DefaultPostgresPort, 5432);
// host localhost, port DefaultSQLServerPort (1433),
// user DefaultSQLServerUser ("sa") and DefaultDatabase for SQL Server;
// DefaultSQLitePath for SQLite. The server fields and SQLitePath are both
// filled, so flags for either kind of driver can be parsed into the same
// Config.
func DefaultConfig(d Driver) Config {
	c := Config{
		Driver:     d,
		Host:       DefaultMySQLHost,
		Port:       DefaultMySQLPort,
		User:       DefaultMySQLUser,
		Database:   DefaultDatabase,
		SQLitePath: DefaultSQLitePath,
	}
	switch d {
	case SQLServer:
		c.Port, c.User = DefaultSQLServerPort, DefaultSQLServerUser
	case Postgres:
		c.Port = DefaultPostgresPort
	case MySQL, SQLite: // MySQL's, as above
	}
	return c
}

// Dialect returns the dialect of c.Driver, or nil for an unknown driver.
func (c Config) Dialect() Dialect { return c.Driver.Dialect() }

// WithDatabase returns a copy of c whose Database is name; Params is copied,
// not shared.
func (c Config) WithDatabase(name string) Config {
	c.Database = name
	c.Params = maps.Clone(c.Params)
	return c
}

// port returns the effective TCP port; 0 for a SQL Server named instance
// whose port the SQL Server Browser reports.
func (c Config) port() int {
	switch c.Driver {
	case SQLServer:
		return c.sqlserverPort()
	case Postgres:
		return c.postgresPort()
	default: // MySQL (SQLite has no port)
		if c.Port == 0 {
			return DefaultMySQLPort
		}
		return c.Port
	}
}

// useSocket reports whether a MySQL connection goes over the Unix socket.
func (c Config) useSocket() bool { return c.Socket != "" }

// Validate checks c and returns every problem at once (errors.Join), each
// naming the flag it concerns, e.g. "--mysql-port: 70000 is not a port
// (1..65535)". It returns nil when c can be opened as far as can be told
// without connecting. Fields of the other driver are not checked.
func (c Config) Validate() error {
	var errs []error
	bad := func(flag, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", flag, fmt.Sprintf(format, args...)))
	}
	switch c.Driver {
	case MySQL:
		c.validateMySQL(bad)
	case SQLServer:
		c.validateSQLServer(bad)
	case SQLite:
		c.validateSQLite(bad)
	case Postgres:
		c.validatePostgres(bad)
	case "":
		bad("--db-driver", "empty (valid: %s)", driverList())
	default:
		bad("--db-driver", "unknown driver %q (valid: %s)", string(c.Driver), driverList())
	}
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		if strings.TrimSpace(k) == "" {
			bad("DSN parameters", "a parameter has an empty name")
		}
	}
	return errors.Join(errs...)
}

func (c Config) validateMySQL(bad func(flag, format string, args ...any)) {
	if c.Port < 0 || c.Port > 65535 {
		bad("--mysql-port", "%d is not a port (1..65535)", c.Port)
	}
	switch h := c.Host; {
	case c.useSocket():
		if h != "" && h != "localhost" {
			bad("--mysql-socket", "given with --mysql-host=%s; a socket is only used with --mysql-host=localhost (or empty): drop one of them", h)
		}
	case h == "":
		bad("--mysql-host", "empty (give a host name or IP address, or --mysql-socket)")
	default:
		checkHost(h, bad)
	}
	if c.User == "" {
		bad("--mysql-user", "empty")
	}
	if msg := checkMySQLDatabase(c.Database); msg != "" {
		bad("--mysql-db", "%s", msg)
	}
	// Try each parameter alone, so that the message names the bad one.
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		one := c
		one.Params = map[string]string{k: c.Params[k]}
		if _, err := one.mysqlConfig(); err != nil && strings.TrimSpace(k) != "" {
			bad("DSN parameter "+k+"="+c.Params[k], "%v", err)
		}
	}
}

// checkHost reports a Host that is not one host name or IP address.
func checkHost(h string, bad func(flag, format string, args ...any)) {
	switch {
	case strings.Contains(h, ","):
		bad("--mysql-host", "%q is a list; give one host per Config", h)
	case strings.ContainsAny(h, "/\\()@ \t"):
		bad("--mysql-host", "%q is not a host name or IP address", h)
	case strings.Contains(h, ":") && net.ParseIP(h) == nil:
		bad("--mysql-host", "%q is not a host name or IP address (give the port with --mysql-port)", h)
	}
}

// checkMySQLDatabase returns what is wrong with a database name, or "".
// Names are limited to 64 characters and may not contain '/', '\' or '.'
// (MySQL reference manual, "Schema Object Names").
func checkMySQLDatabase(name string) string {
	switch {
	case name == "":
		return ""
	case len(name) > 64:
		return fmt.Sprintf("%q is longer than 64 characters", name)
	case strings.ContainsAny(name, "/\\.\x00"):
		return fmt.Sprintf("%q contains '/', '\\', '.' or NUL, which database names cannot", name)
	case strings.HasSuffix(name, " "):
		return fmt.Sprintf("%q ends with a space, which database names cannot", name)
	}
	return ""
}

func (c Config) validateSQLite(bad func(flag, format string, args ...any)) {
	p := c.SQLitePath
	switch {
	case p == "":
		bad("--sqlite-path", "empty (give the database file, e.g. %s)", DefaultSQLitePath)
	case p == ":memory:" || strings.HasPrefix(p, "file::memory:") || c.Params["mode"] == "memory":
		bad("--sqlite-path", "%q is an in-memory database, which every pooled connection would see as its own empty database; give a file", p)
	case strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)):
		bad("--sqlite-path", "%q names a directory; give a file in it", p)
	}
}

// mysqlConfig builds the go-sql-driver configuration Open uses: parseTime,
// interpolateParams=false (server-side prepared statements, like
// sysbench's default --db-ps-mode=auto), timeouts, then c.Params; its
// DialFunc is mysqlDial's (blocking sockets on Linux, see blockConn).
func (c Config) mysqlConfig() (*mysql.Config, error) {
	mc := mysql.NewConfig()
	mc.User = c.User
	mc.Passwd = c.Password
	if c.useSocket() {
		mc.Net, mc.Addr = "unix", c.Socket
	} else {
		mc.Net, mc.Addr = "tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.port()))
	}
	mc.DBName = c.Database
	mc.ParseTime = true
	mc.InterpolateParams = false
	mc.Timeout = mysqlDialTimeout
	mc.WriteTimeout = mysqlWriteTimeout
	mc.DialFunc = mysqlDial()
	if len(c.Params) == 0 {
		return mc, nil
	}
	// Let go-sql-driver interpret the parameters exactly as in a DSN: the
	// ones it knows set fields, the rest become session variables.
	dsn := mc.FormatDSN()
	sep := "?"
	if strings.Contains(dsn[strings.LastIndexByte(dsn, '/'):], "?") {
		sep = "&"
	}
	var b strings.Builder
	b.WriteString(dsn)
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		b.WriteString(sep)
		sep = "&"
		b.WriteString(url.QueryEscape(k))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(c.Params[k]))
	}
	mc, err := mysql.ParseDSN(b.String())
	if err != nil {
		return nil, err
	}
	mc.DialFunc = mysqlDial()
	return mc, nil
}

// sqliteDSN builds the modernc.org/sqlite DSN Open uses: a file: URI of the
// absolute path with WAL journaling and a busy timeout, then c.Params.
// Synchronous stays at SQLite's default (FULL), so a commit is as durable as
// InnoDB's with innodb_flush_log_at_trx_commit=1; "_synchronous": "NORMAL"
// trades that for speed.
func (c Config) sqliteDSN() (string, error) {
	abs, err := filepath.Abs(c.SQLitePath)
	if err != nil {
		return "", fmt.Errorf("--sqlite-path: %w", err)
	}
	q := url.Values{}
	if !hasAny(c.Params, "_busy_timeout", "_timeout") {
		q.Set("_busy_timeout", strconv.Itoa(sqliteBusyTimeout))
	}
	if !hasAny(c.Params, "_journal_mode", "_journal") {
		q.Set("_journal_mode", "WAL")
	}
	for k, v := range c.Params {
		q.Set(k, v)
	}
	// SQLite decodes %HH in URI paths and ends the path at '?' or '#'.
	esc := strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")
	return "file:" + esc.Replace(abs) + "?" + q.Encode(), nil
}

func hasAny(m map[string]string, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// sqliteBusyTimeout returns the busy_timeout, in milliseconds, that
// sqliteDSN gives the connections: c.Params' "_busy_timeout" or "_timeout"
// when it is an integer, else sqliteBusyTimeout. A negative value counts
// as 0, as in SQLite.
func (c Config) sqliteBusyTimeout() int {
	for _, k := range []string{"_busy_timeout", "_timeout"} {
		if v, ok := c.Params[k]; ok {
			if n, err := strconv.Atoi(v); err == nil {
				return max(n, 0)
			}
		}
	}
	return sqliteBusyTimeout
}
