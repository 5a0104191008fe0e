package dialect

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/microsoft/go-mssqldb/msdsn"
)

// SQL Server connection settings: how Config maps onto go-mssqldb's URL
// connection string (msdsn.Parse in github.com/microsoft/go-mssqldb v1.11.2).

// sqlserverFieldKeys are the go-mssqldb connection-string keys that Config's
// own fields set; a parameter of the same name (in any case) would clash:
// go-mssqldb rejects a key given twice. ParseDSN moves "database", "user id"
// and "password" into the fields; Validate rejects these keys in Params.
var sqlserverFieldKeys = map[string]string{
	msdsn.Database: "--mysql-db",
	msdsn.UserID:   "--mysql-user",
	msdsn.Password: "--mysql-password",
	msdsn.Server:   "--mysql-host",
	msdsn.Port:     "--mysql-port",
}

// sqlserverPort returns the TCP port Open connects to: Port, or 1433 when
// Port is 0; 0 (ask the SQL Server Browser) in that case when Instance is
// set. A port the user gave is never replaced.
func (c Config) sqlserverPort() int {
	if c.Port != 0 {
		return c.Port
	}
	if c.Instance != "" {
		return 0
	}
	return DefaultSQLServerPort
}

// validateSQLServer reports every problem of a SQL Server Config, naming the
// flag that sets the field (the shared --mysql-* flags).
func (c Config) validateSQLServer(bad func(flag, format string, args ...any)) {
	if c.Port < 0 || c.Port > 65535 {
		bad("--mysql-port", "%d is not a port (1..65535)", c.Port)
	}
	if c.Socket != "" {
		bad("--mysql-socket", "SQL Server is reached over TCP only; drop --mysql-socket and give --mysql-host")
	}
	switch h := c.Host; {
	case h == "":
		bad("--mysql-host", "empty (give a host name or IP address)")
	case strings.Contains(h, `\`):
		bad("--mysql-host", `%q: give a named instance in a DSN, sqlserver://host/instance`, h)
	default:
		checkHost(h, bad)
	}
	if strings.Contains(c.Instance, "/") {
		bad("DSN instance", "%q contains '/'", c.Instance)
	}
	if c.User == "" {
		bad("--mysql-user", "empty (give a SQL Server login, e.g. %s)", DefaultSQLServerUser)
	}
	if msg := checkSQLServerDatabase(c.Database); msg != "" {
		bad("--mysql-db", "%s", msg)
	}
	keys := slices.Sorted(maps.Keys(c.Params))
	for _, k := range keys {
		if flag, ok := sqlserverFieldKeys[strings.ToLower(strings.TrimSpace(k))]; ok {
			bad("DSN parameter "+k, "set by %s (or the DSN's user, host, port and database); drop the parameter", flag)
		}
	}
	base := c
	base.Params = nil
	if _, err := msdsn.Parse(base.sqlserverDSN()); err == nil && c.paramsClean() {
		// Let go-mssqldb judge the parameters, each alone, so that the
		// message names the bad one. (When the fields alone do not parse,
		// the problem is reported above.)
		for _, k := range keys {
			one := c
			one.Params = map[string]string{k: c.Params[k]}
			if _, err := msdsn.Parse(one.sqlserverDSN()); err != nil && strings.TrimSpace(k) != "" {
				bad("DSN parameter "+k+"="+maskedValue(k, c.Params[k]), "%v", err)
			}
		}
	}
}

// paramsClean reports whether no parameter clashes with a field or has an
// empty name, so that the DSN built from c can be parsed at all.
func (c Config) paramsClean() bool {
	for k := range c.Params {
		if _, ok := sqlserverFieldKeys[strings.ToLower(strings.TrimSpace(k))]; ok || strings.TrimSpace(k) == "" {
			return false
		}
	}
	return true
}

// maskedValue returns v, or "xxxxx" when k names a password.
func maskedValue(k, v string) string {
	if strings.Contains(strings.ToLower(k), "password") {
		return "xxxxx"
	}
	return v
}

// sqlserverDatabaseName is what vmbench accepts as a SQL Server database
// name: a subset of regular identifiers that needs no quoting anywhere, in
// [brackets] or in N'strings' (DB_ID).
var sqlserverDatabaseName = regexp.MustCompile(`^[A-Za-z0-9_]{1,128}$`)

// checkSQLServerDatabase returns what is wrong with a database name, or "".
func checkSQLServerDatabase(name string) string {
	if name == "" || sqlserverDatabaseName.MatchString(name) {
		return ""
	}
	return fmt.Sprintf("%q is not a SQL Server database name vmbench accepts: use ASCII letters, digits and _ only, at most 128 characters", name)
}

// sqlserverDSN builds the go-mssqldb URL connection string Open uses:
// sqlserver://user:pass@host:port/instance?database=db&app+name=vmbench&
// dial+timeout=10, then c.Params (which replace "app name" and "dial
// timeout" when given, in any case). The password is in it: never print it.
func (c Config) sqlserverDSN() string {
	u := url.URL{Scheme: "sqlserver", Host: c.Host}
	if c.User != "" || c.Password != "" {
		u.User = url.UserPassword(c.User, c.Password)
	}
	if p := c.sqlserverPort(); p != 0 {
		u.Host = net.JoinHostPort(c.Host, strconv.Itoa(p))
	}
	if c.Instance != "" {
		u.Path = "/" + c.Instance
	}
	q := url.Values{}
	q.Set(msdsn.AppName, defaultSQLServerAppID)
	q.Set(msdsn.DialTimeout, strconv.Itoa(int(sqlserverDialTimeout.Seconds())))
	if c.Database != "" {
		q.Set(msdsn.Database, c.Database)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		for have := range q {
			if strings.EqualFold(have, k) {
				q.Del(have)
			}
		}
		q.Set(k, c.Params[k])
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// sqlserverString is Config.String for SQL Server:
// "sqlserver://sa:xxxxx@db1:1433?database=tpcc&encrypt=disable", or with a
// named instance and no port "sqlserver://sa:xxxxx@db1/SQLEXPRESS?...".
// Parameters naming a password are masked too.
func (c Config) sqlserverString() string {
	var b strings.Builder
	b.WriteString("sqlserver://")
	if c.User != "" || c.Password != "" {
		b.WriteString(url.User(c.User).String())
		if c.Password != "" {
			b.WriteString(":xxxxx")
		}
		b.WriteString("@")
	}
	if p := c.sqlserverPort(); p != 0 {
		b.WriteString(net.JoinHostPort(c.Host, strconv.Itoa(p)))
	} else if strings.Contains(c.Host, ":") {
		b.WriteString("[" + c.Host + "]")
	} else {
		b.WriteString(c.Host)
	}
	if c.Instance != "" {
		b.WriteString("/")
		b.WriteString(url.PathEscape(c.Instance))
	}
	q := make(map[string]string, len(c.Params)+1)
	for k, v := range c.Params {
		q[k] = maskedValue(k, v)
	}
	if c.Database != "" {
		q[msdsn.Database] = c.Database
	}
	b.WriteString(encodeQuery(q))
	return b.String()
}

// parseSQLServerURL parses the sqlserver:// form; a non-empty string is the
// problem.
func parseSQLServerURL(s string) (Config, string) {
	u, c, problem := parseServerURL(s, SQLServer)
	if problem != "" {
		return Config{}, problem
	}
	var err error
	c.Instance = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(c.Instance, "/") {
		return Config{}, fmt.Sprintf("instance name %q contains '/' (the path is the named instance; give the database as ?database=name)", c.Instance)
	}
	switch p := u.Port(); {
	case p != "":
		if c.Port, err = strconv.Atoi(p); err != nil {
			return Config{}, fmt.Sprintf("port %q is not a number", p)
		}
	case c.Instance == "":
		c.Port = DefaultSQLServerPort
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Config{}, "parameters: " + err.Error()
	}
	params := lastValues(q)
	for k, v := range params {
		var field *string
		switch strings.ToLower(k) {
		case msdsn.Database:
			field = &c.Database
		case msdsn.UserID:
			field = &c.User
		case msdsn.Password:
			field = &c.Password
		case msdsn.Server, msdsn.Port:
			return Config{}, fmt.Sprintf("parameter %q: give the host and port in the URL, sqlserver://user:pass@host:port", k)
		default:
			continue
		}
		if *field != "" && *field != v {
			return Config{}, fmt.Sprintf("parameter %q contradicts the URL", k)
		}
		*field = v
		delete(params, k)
	}
	if len(params) > 0 {
		c.Params = params
	}
	return c, ""
}
