package dialect

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// PostgreSQL connection defaults: sysbench 1.0's pgsql driver's
// (--pgsql-host localhost, --pgsql-port 5432, --pgsql-user sbtest,
// --pgsql-db sbtest).
const (
	DefaultPostgresPort = 5432
	// postgresAdminDatabase is the database an administrative connection
	// (CREATE DATABASE, DROP DATABASE) goes to: every cluster has it.
	postgresAdminDatabase = "postgres"
	// postgresConnectTimeout bounds establishing one connection, in
	// seconds (libpq's connect_timeout); Config.Params may set another.
	postgresConnectTimeout = "10"
	// postgresAppName is the application_name of vmbench's sessions, seen
	// in pg_stat_activity.
	postgresAppName = "vmbench"
)

// postgresCancelDeadline bounds how long a statement whose context ended
// waits for the server to answer the CancelRequest sent for it (see
// pgxConfig); past it the socket's deadline ends the read, and pgx closes
// the connection. As Killer's KillTimeout for MySQL.
const postgresCancelDeadline = KillTimeout

// libpq's environment variables (PostgreSQL manual, "Environment
// Variables") that PostgresEnv reads, by the Config field each fills.
const (
	EnvPGHost     = "PGHOST"
	EnvPGPort     = "PGPORT"
	EnvPGUser     = "PGUSER"
	EnvPGPassword = "PGPASSWORD"
	EnvPGDatabase = "PGDATABASE"
	EnvPGSSLMode  = "PGSSLMODE"
)

// pgSSLModes are libpq's sslmode values (PostgreSQL's libpq docs, "SSL
// Support"), which pgx takes too.
var pgSSLModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// PostgresEnv fills the connection fields of c that given reports as not
// given on the command line from libpq's environment variables, read
// through getenv (nil reads nothing): Host from $PGHOST (a path starting
// with '/' is a Unix socket directory and goes to Socket), Port from
// $PGPORT, User from $PGUSER, Password from $PGPASSWORD, Database from
// $PGDATABASE, and Params["sslmode"] from $PGSSLMODE unless Params has one.
// given takes the field names "host", "port", "user", "password" and "db".
// A $PGPORT that is not a number is an error naming it; nothing is changed
// then.
func (c *Config) PostgresEnv(getenv func(string) string, given func(field string) bool) error {
	if getenv == nil {
		return nil
	}
	env := func(field, name string) (string, bool) {
		v := getenv(name)
		return v, v != "" && (given == nil || !given(field))
	}
	if v, ok := env("port", EnvPGPort); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("$%s: %q is not a port (1..65535)", EnvPGPort, v)
		}
		c.Port = n
	}
	if v, ok := env("host", EnvPGHost); ok {
		if strings.HasPrefix(v, "/") {
			c.Host, c.Socket = "", v
		} else {
			c.Host, c.Socket = v, ""
		}
	}
	if v, ok := env("user", EnvPGUser); ok {
		c.User = v
	}
	if v, ok := env("password", EnvPGPassword); ok && c.Password == "" {
		c.Password = v
	}
	if v, ok := env("db", EnvPGDatabase); ok {
		c.Database = v
	}
	if v := getenv(EnvPGSSLMode); v != "" {
		if !slices.Contains(pgSSLModes, v) {
			return fmt.Errorf("$%s: %q is not an sslmode (valid: %s)", EnvPGSSLMode, v, strings.Join(pgSSLModes, ", "))
		}
		if _, ok := c.Params["sslmode"]; !ok {
			c.Params = maps.Clone(c.Params)
			if c.Params == nil {
				c.Params = map[string]string{}
			}
			c.Params["sslmode"] = v
		}
	}
	return nil
}

// validatePostgres checks the fields a PostgreSQL connection uses; flags
// are named by sysbench's pgsql names.
func (c Config) validatePostgres(bad func(flag, format string, args ...any)) {
	if c.Port < 0 || c.Port > 65535 {
		bad("--pgsql-port", "%d is not a port (1..65535)", c.Port)
	}
	switch h := c.Host; {
	case c.Socket != "":
		if !strings.HasPrefix(c.Socket, "/") {
			bad("PGHOST", "%q: a Unix socket directory must be an absolute path", c.Socket)
		}
		if h != "" && h != "localhost" {
			bad("--pgsql-host", "%q given with the socket directory %s; drop one of them", h, c.Socket)
		}
	case h == "":
		bad("--pgsql-host", "empty (give a host name or IP address)")
	case strings.Contains(h, ","):
		bad("--pgsql-host", "%q is a list; give one host", h)
	case strings.ContainsAny(h, "/\\()@ \t'"):
		bad("--pgsql-host", "%q is not a host name or IP address", h)
	case strings.Contains(h, ":") && net.ParseIP(h) == nil:
		bad("--pgsql-host", "%q is not a host name or IP address (give the port with --pgsql-port)", h)
	}
	if c.User == "" {
		bad("--pgsql-user", "empty")
	}
	switch db := c.Database; {
	case len(db) > 63:
		bad("--pgsql-db", "%q is longer than 63 bytes (PostgreSQL's NAMEDATALEN)", db)
	case strings.ContainsRune(db, 0):
		bad("--pgsql-db", "%q contains NUL", db)
	}
	if _, err := c.pgxConfig(); err != nil && len(c.Params) > 0 {
		bad("DSN parameters", "%v", err)
	}
}

// pgxConfig builds the pgx connection configuration Open uses: host (or
// the socket directory), port, user, database, connect_timeout 10 s,
// application_name vmbench, then c.Params as libpq keywords (sslmode,
// connect_timeout, options, ...; pgx's own "default_query_exec_mode",
// "statement_cache_capacity"). The password is set on the parsed
// configuration, never written into the connection string, so no pgx
// error can show it. Keywords not given here (sslmode without a Param,
// passfile) take pgx's libpq defaults: $PGSSLMODE and the other PG*
// variables, else sslmode=prefer; an empty Password lets pgx read
// $PGPASSWORD or ~/.pgpass. TCP connections dial blocking sockets, as
// MySQL's do (blockConn; $VMBENCH_NETPOLL=1 keeps Go's netpoller).
//
// A statement whose context ends (Ctrl-C, the end of a run's graceful
// stop, a timeout) is cancelled on the server: pgconn's
// CancelRequestContextWatcherHandler sends a CancelRequest for the
// session at once, so a statement waiting for a lock or scanning ends
// with SQLSTATE 57014 and the connection stays usable for the ROLLBACK
// that settles it (TxRunner). pgx's default handler only sets the
// socket's deadline: the statement returns at once, but its backend goes
// on waiting, holding its transaction's locks, and pgx's CancelRequest on
// closing the connection runs in a goroutine that a process exiting right
// after the run never lets finish. The handler covers every connection
// of the pool: database/sql's (pgx/v5/stdlib), PGExec's and CopyFrom's.
func (c Config) pgxConfig() (*pgx.ConnConfig, error) {
	kv := map[string]string{
		"host":             c.Host,
		"port":             strconv.Itoa(c.postgresPort()),
		"user":             c.User,
		"connect_timeout":  postgresConnectTimeout,
		"application_name": postgresAppName,
	}
	if c.Socket != "" {
		kv["host"] = c.Socket
	}
	db := c.Database
	if db == "" {
		db = postgresAdminDatabase
	}
	kv["dbname"] = db
	for k, v := range c.Params {
		if k == "password" {
			continue
		}
		kv[k] = v
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteString("='")
		b.WriteString(strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(kv[k]))
		b.WriteByte('\'')
	}
	pc, err := pgx.ParseConfig(b.String())
	if err != nil {
		return nil, err
	}
	if c.Password != "" {
		pc.Password = c.Password // pgconn's fallbacks (sslmode=prefer) use it too
	}
	pc.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pg, DeadlineDelay: postgresCancelDeadline}
	}
	if dial := mysqlDial(); dial != nil && c.Socket == "" {
		// The blocking sockets of MySQL's connections (blockConn): a
		// round trip costs no netpoller wake-up and no thread switch.
		pc.DialFunc = dial
	}
	return pc, nil
}

// postgresPort returns Port, or 5432 when it is 0.
func (c Config) postgresPort() int {
	if c.Port == 0 {
		return DefaultPostgresPort
	}
	return c.Port
}

// postgresString renders c as "postgres://user:xxxxx@host:port/db?k=v",
// with "?host=/socket/dir" for a Unix socket.
func (c Config) postgresString() string {
	q := maps.Clone(c.Params)
	delete(q, "password")
	host := net.JoinHostPort(c.Host, strconv.Itoa(c.postgresPort()))
	if c.Socket != "" {
		host = ""
		if q == nil {
			q = map[string]string{}
		}
		q["host"] = c.Socket
	}
	return c.serverURL("postgres", host, q)
}

// parsePostgresURL parses "postgres://user:pass@host:port/db?k=v" (also
// "postgresql://"); a "host" parameter that is a path sets Socket, a
// "password" parameter the password, other parameters go to Params. A
// non-empty string is the problem.
func parsePostgresURL(s string) (Config, string) {
	c, problem := parseDatabaseURL(s, Postgres, DefaultPostgresPort)
	if problem != "" {
		return Config{}, problem
	}
	return c.takePostgresParams(), ""
}

// parsePostgresKeywords parses a libpq keyword/value string,
// "host=db1 port=5432 user=sbtest dbname=sbtest sslmode=disable", values
// optionally single-quoted with \' and \\ escapes. A non-empty string is
// the problem.
func parsePostgresKeywords(s string) (Config, string) {
	c := Config{Driver: Postgres, Port: DefaultPostgresPort, Params: map[string]string{}}
	for rest := strings.TrimSpace(s); rest != ""; rest = strings.TrimSpace(rest) {
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return Config{}, fmt.Sprintf("%q is not keyword=value", strings.Fields(rest)[0])
		}
		key := strings.TrimSpace(rest[:eq])
		val, after, problem := postgresKeywordValue(key, strings.TrimLeft(rest[eq+1:], " \t"))
		if problem != "" {
			return Config{}, problem
		}
		c.Params[key], rest = val, after
	}
	c, problem := c.takePostgresKeywords()
	if problem != "" {
		return Config{}, problem
	}
	return c.takePostgresParams(), ""
}

// postgresKeywordValue reads the value of key at the start of rest:
// single-quoted with \' and \\ escapes, or up to the next blank. It
// returns the value and what follows it; a non-empty problem says why
// there is none.
func postgresKeywordValue(key, rest string) (val, after, problem string) {
	if !strings.HasPrefix(rest, "'") {
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		return rest[:end], rest[end:], ""
	}
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		if rest[i] == '\\' && i+1 < len(rest) {
			i++
			b.WriteByte(rest[i])
			continue
		}
		if rest[i] == '\'' {
			return b.String(), rest[i+1:], ""
		}
		b.WriteByte(rest[i])
	}
	return "", "", fmt.Sprintf("the value of %s has no closing quote", key)
}

// takePostgresKeywords moves the keywords host (unless a socket
// directory; localhost when not given), user, dbname and port from
// c.Params into their fields. A non-empty string is the problem.
func (c Config) takePostgresKeywords() (Config, string) {
	c.Host = "localhost"
	if h, ok := c.Params["host"]; ok && !strings.HasPrefix(h, "/") {
		c.Host = h
		delete(c.Params, "host")
	}
	for _, k := range []string{"user", "dbname", "port"} {
		v, ok := c.Params[k]
		if !ok {
			continue
		}
		delete(c.Params, k)
		switch k {
		case "user":
			c.User = v
		case "dbname":
			c.Database = v
		case "port":
			n, err := strconv.Atoi(v)
			if err != nil {
				return Config{}, fmt.Sprintf("port %q is not a number", v)
			}
			c.Port = n
		}
	}
	return c, ""
}

// takePostgresParams moves the "host" parameter when it is a socket
// directory into Socket and "password" into Password.
func (c Config) takePostgresParams() Config {
	if h, ok := c.Params["host"]; ok && strings.HasPrefix(h, "/") {
		c.Socket = h
		if c.Host == "" {
			c.Host = "localhost"
		}
		delete(c.Params, "host")
	}
	if p, ok := c.Params["password"]; ok {
		c.Password = p
		delete(c.Params, "password")
	}
	if len(c.Params) == 0 {
		c.Params = nil
	}
	return c
}

// looksLikePostgresKeywords reports whether s is a libpq keyword/value
// string: it starts with one of libpq's usual keywords and '='.
func looksLikePostgresKeywords(s string) bool {
	for _, k := range []string{"host=", "hostaddr=", "port=", "user=", "dbname=", "password=", "sslmode="} {
		if strings.HasPrefix(s, k) {
			return true
		}
	}
	return false
}

// postgresOpenHint returns what to check after a failed first connection
// to PostgreSQL, or "" (LimitHint's sentence comes first).
func postgresOpenHint(cfg Config, err error) string {
	switch Name(err) {
	case "access_denied":
		return "check --pgsql-user and --pgsql-password (or $PGPASSWORD), and the server's pg_hba.conf"
	case "unknown_database":
		return "create the database first (prepare does) or check --pgsql-db"
	}
	if Classify(err) != ConnLost {
		return ""
	}
	if cfg.Socket != "" {
		return "is a server listening on the Unix socket in " + cfg.Socket + "?"
	}
	return fmt.Sprintf("is a server listening on %s port %d?", cfg.Host, cfg.postgresPort())
}
