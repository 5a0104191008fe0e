package dialect

// Connection strings: Config.String renders a Config as a DSN with the
// password masked, ParseDSN reads every DSN form the flags accept.

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// String returns c as a DSN that ParseDSN accepts, with the password
// replaced by "xxxxx": "mysql://sbtest:xxxxx@localhost:3306/sbtest",
// "mysql://root@localhost/db?socket=/run/mysqld/mysqld.sock",
// "sqlserver://sa:xxxxx@db1:1433?database=tpcc&encrypt=disable",
// "postgres://sbtest:xxxxx@db1:5432/sbtest?sslmode=disable",
// "sqlite:///var/lib/x.db", "sqlite:rel/x.db".
func (c Config) String() string {
	switch c.Driver {
	case SQLServer:
		return c.sqlserverString()
	case Postgres:
		return c.postgresString()
	case MySQL:
		q := maps.Clone(c.Params)
		host := net.JoinHostPort(c.Host, strconv.Itoa(c.port()))
		if c.useSocket() {
			host = c.Host
			if q == nil {
				q = map[string]string{}
			}
			q["socket"] = c.Socket
		}
		return c.serverURL("mysql", host, q)
	case SQLite:
		p := c.SQLitePath
		if strings.HasPrefix(p, "/") {
			return "sqlite://" + p + encodeQuery(c.Params)
		}
		return "sqlite:" + p + encodeQuery(c.Params)
	}
	return fmt.Sprintf("%s://(invalid driver)", string(c.Driver))
}

// serverURL returns "scheme://user:xxxxx@host/database?q" (the password
// masked, the user part left out when there is neither).
func (c Config) serverURL(scheme, host string, q map[string]string) string {
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	if c.User != "" || c.Password != "" {
		b.WriteString(url.User(c.User).String())
		if c.Password != "" {
			b.WriteString(":xxxxx")
		}
		b.WriteString("@")
	}
	b.WriteString(host)
	b.WriteString("/")
	b.WriteString(url.PathEscape(c.Database))
	b.WriteString(encodeQuery(q))
	return b.String()
}

// encodeQuery returns "?k=v&..." sorted by key, or "" for no parameters. '/'
// and ':' are left readable; both are legal in a query.
func encodeQuery(q map[string]string) string {
	if len(q) == 0 {
		return ""
	}
	readable := strings.NewReplacer("%2F", "/", "%3A", ":")
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(q)) {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(readable.Replace(url.QueryEscape(k)))
		b.WriteByte('=')
		b.WriteString(readable.Replace(url.QueryEscape(q[k])))
	}
	return b.String()
}

// dsnForms names the DSN forms ParseDSN accepts, for its errors.
const dsnForms = "mysql://user:pass@host:port/db?param=v, user:pass@tcp(host:port)/db, postgres://user:pass@host:port/db?sslmode=v, host=h port=p user=u dbname=db (libpq), sqlserver://user:pass@host:port?database=db, sqlite:///path/file.db or file:path/file.db"

// ParseDSN parses a connection string into a Config. It accepts
//
//   - "mysql://user:pass@host:port/db?param=v" (also "mariadb://"); a
//     "socket" parameter sets Socket; the port defaults to 3306;
//   - go-sql-driver's own form "user:pass@tcp(host:port)/db?param=v" or
//     "user:pass@unix(/path/mysqld.sock)/db";
//   - go-mssqldb's URL form "sqlserver://user:pass@host:port?database=db&k=v"
//     (also "mssql://"), and "sqlserver://user:pass@host/instance?..." for a
//     named instance (Instance; without a port the SQL Server Browser is
//     asked for it); the port defaults to 1433; the "database", "user id"
//     and "password" parameters set Database, User and Password;
//   - "postgres://user:pass@host:port/db?k=v" (also "postgresql://"), the
//     port defaulting to 5432, a "host" parameter that is a directory
//     naming the Unix socket directory, and libpq's keyword/value form
//     "host=db1 port=5432 user=sbtest dbname=sbtest sslmode=disable";
//     other parameters are libpq keywords kept in Params;
//   - "sqlite:///abs/path/file.db", "sqlite:rel/file.db" and SQLite URIs
//     "file:/abs/file.db", "file:///abs/file.db", "file:rel/file.db".
//
// Other query parameters go to Params. Errors quote the DSN with the
// password replaced by "xxxxx". ParseDSN does not call Validate.
func ParseDSN(s string) (Config, error) {
	s = strings.TrimSpace(s)
	fail := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("DSN %q: %s", maskDSN(s), fmt.Sprintf(format, args...))
	}
	lower := strings.ToLower(s)
	switch {
	case s == "":
		return Config{}, fmt.Errorf("empty DSN (give %s)", dsnForms)
	case strings.HasPrefix(lower, "mysql://"), strings.HasPrefix(lower, "mariadb://"):
		c, msg := parseMySQLURL(s)
		if msg != "" {
			return fail("%s", msg)
		}
		return c, nil
	case strings.HasPrefix(lower, "sqlserver://"), strings.HasPrefix(lower, "mssql://"):
		c, msg := parseSQLServerURL(s)
		if msg != "" {
			return fail("%s", msg)
		}
		return c, nil
	case strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		c, msg := parsePostgresURL(s)
		if msg != "" {
			return fail("%s", msg)
		}
		return c, nil
	case looksLikePostgresKeywords(s):
		c, msg := parsePostgresKeywords(s)
		if msg != "" {
			return fail("%s", msg)
		}
		return c, nil
	case strings.HasPrefix(lower, "sqlite:"), strings.HasPrefix(lower, "file:"):
		c, msg := parseSQLiteURI(s)
		if msg != "" {
			return fail("%s", msg)
		}
		return c, nil
	}
	if scheme, _, ok := strings.Cut(lower, "://"); ok && !strings.ContainsAny(scheme, "@/()") {
		return fail("scheme %q is not one vmbench connects with (accepted forms: %s)", scheme+"://", dsnForms)
	}
	mc, err := mysql.ParseDSN(s)
	if err != nil {
		return fail("%v (accepted forms: %s)", err, dsnForms)
	}
	c := Config{Driver: MySQL, User: mc.User, Password: mc.Passwd, Database: mc.DBName}
	switch mc.Net {
	case "unix":
		c.Socket = mc.Addr
	case "tcp", "tcp4", "tcp6":
		host, port, err := net.SplitHostPort(mc.Addr)
		if err != nil {
			return fail("address %q: %v", mc.Addr, err)
		}
		c.Host = host
		if c.Port, err = strconv.Atoi(port); err != nil {
			return fail("port %q is not a number", port)
		}
	default:
		return fail("network %q is not supported (use tcp or unix)", mc.Net)
	}
	// go-sql-driver moves the parameters it knows into fields; keep the
	// caller's text instead, so that String and Open see what was given.
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		if j := strings.IndexByte(s[i:], '?'); j >= 0 {
			q, err := url.ParseQuery(s[i+j+1:])
			if err != nil {
				return fail("parameters: %v", err)
			}
			c.Params = lastValues(q)
		}
	}
	return c, nil
}

// parseServerURL parses the URL form of a server's DSN (mysql://,
// sqlserver://) and returns it with a Config of driver d holding its host,
// user and password; a non-empty string is the problem.
func parseServerURL(s string, d Driver) (*url.URL, Config, string) {
	u, err := url.Parse(s)
	if err != nil {
		// url.Error repeats the whole URL, password included; keep its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, Config{}, err.Error()
	}
	c := Config{Driver: d, Host: u.Hostname()}
	if u.User != nil {
		c.User = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	return u, c, ""
}

// parseDatabaseURL parses the URL form of a server's DSN whose path is
// the database (mysql://, postgres://): host, port (defaultPort when none
// is given), user, password, database and the query parameters in Params.
// A non-empty string is the problem.
func parseDatabaseURL(s string, d Driver, defaultPort int) (Config, string) {
	u, c, problem := parseServerURL(s, d)
	if problem != "" {
		return Config{}, problem
	}
	c.Port = defaultPort
	var err error
	if p := u.Port(); p != "" {
		if c.Port, err = strconv.Atoi(p); err != nil {
			return Config{}, fmt.Sprintf("port %q is not a number", p)
		}
	}
	c.Database = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(c.Database, "/") {
		return Config{}, fmt.Sprintf("database name %q contains '/'", c.Database)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Config{}, "parameters: " + err.Error()
	}
	c.Params = lastValues(q)
	return c, ""
}

// parseMySQLURL parses the mysql:// form; a non-empty string is the problem.
func parseMySQLURL(s string) (Config, string) {
	c, problem := parseDatabaseURL(s, MySQL, DefaultMySQLPort)
	if problem != "" {
		return Config{}, problem
	}
	if sock, ok := c.Params["socket"]; ok {
		c.Socket = sock
		delete(c.Params, "socket")
		if len(c.Params) == 0 {
			c.Params = nil
		}
	}
	return c, ""
}

// parseSQLiteURI parses "sqlite:..." and "file:..."; a non-empty string is
// the problem.
func parseSQLiteURI(s string) (Config, string) {
	colon := strings.IndexByte(s, ':')
	scheme, rest := strings.ToLower(s[:colon]), s[colon+1:]
	if i := strings.IndexByte(rest, '#'); i >= 0 && scheme == "file" {
		rest = rest[:i] // SQLite URIs end at a fragment
	}
	rawQuery := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, rawQuery = rest[:i], rest[i+1:]
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		if scheme == "file" {
			// file://[authority]/path: the authority must be empty or localhost.
			slash := strings.IndexByte(rest, '/')
			if slash < 0 {
				return Config{}, "file URI has no path after its authority"
			}
			if auth := rest[:slash]; auth != "" && !strings.EqualFold(auth, "localhost") {
				return Config{}, fmt.Sprintf("file URI authority %q is not empty or localhost", auth)
			}
			rest = rest[slash:]
		}
	}
	path, err := url.PathUnescape(rest)
	if err != nil {
		return Config{}, "path: " + err.Error()
	}
	if path == "" {
		return Config{}, "no database file path (e.g. sqlite:///var/lib/vmbench/sbtest.db)"
	}
	c := Config{Driver: SQLite, SQLitePath: path}
	if rawQuery != "" {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return Config{}, "parameters: " + err.Error()
		}
		c.Params = lastValues(q)
	}
	return c, ""
}

// lastValues keeps the last value of each key, as both drivers do.
func lastValues(q url.Values) map[string]string {
	if len(q) == 0 {
		return nil
	}
	m := make(map[string]string, len(q))
	for k, v := range q {
		m[k] = v[len(v)-1]
	}
	return m
}

// maskDSN replaces the password in a DSN of any accepted form by "xxxxx",
// also when the DSN does not parse: the one in the authority and the value
// of any "password" parameter (go-mssqldb's).
func maskDSN(s string) string { return maskPasswordParam(maskAuthority(s)) }

// passwordParam matches, in any case, a "password" parameter of a URL query
// (go-mssqldb's) or a "password" keyword of libpq's keyword/value form,
// quoted or not.
var passwordParam = regexp.MustCompile(`(?i)((?:^|[?&\s])password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|[^&#\s]*)`)

// maskPasswordParam replaces the value of every "password" query parameter
// by "xxxxx".
func maskPasswordParam(s string) string { return passwordParam.ReplaceAllString(s, "${1}xxxxx") }

// urlScheme matches a URL scheme: what stands before "://" in the URL
// forms (in go-sql-driver's form a "://" can only be in a value).
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// maskAuthority replaces the password of user:pass@ by "xxxxx".
func maskAuthority(s string) string {
	if i := strings.Index(s, "://"); i >= 0 && urlScheme.MatchString(s[:i]) {
		auth := s[i+3:]
		if q := strings.IndexByte(auth, '?'); q >= 0 {
			auth = auth[:q]
		}
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			return s
		}
		cred := auth[:at]
		if c := strings.IndexByte(cred, ':'); c >= 0 {
			return s[:i+3] + cred[:c] + ":xxxxx" + s[i+3+at:]
		}
		return s
	}
	head := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		head = s[:i]
	}
	at := strings.LastIndexByte(head, '@')
	if at < 0 {
		return s
	}
	if c := strings.IndexByte(head[:at], ':'); c >= 0 {
		return head[:c] + ":xxxxx" + s[at:]
	}
	return s
}
