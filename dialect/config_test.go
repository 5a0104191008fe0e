package dialect

import (
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseDSN(t *testing.T) {
	tests := []struct {
		in   string
		want Config
	}{
		{"mysql://sbtest:s3cret@db1:3307/sbtest?readTimeout=30s&innodb_lock_wait_timeout=5",
			Config{Driver: MySQL, Host: "db1", Port: 3307, User: "sbtest", Password: "s3cret", Database: "sbtest",
				Params: map[string]string{"readTimeout": "30s", "innodb_lock_wait_timeout": "5"}}},
		{"mysql://root@127.0.0.1/", Config{Driver: MySQL, Host: "127.0.0.1", Port: 3306, User: "root"}},
		{"MariaDB://u:p%40ss%2Fw@[::1]:3306/db", Config{Driver: MySQL, Host: "::1", Port: 3306, User: "u", Password: "p@ss/w", Database: "db"}},
		{"mysql://root@localhost/sbtest?socket=/run/mysqld/mysqld.sock",
			Config{Driver: MySQL, Host: "localhost", Port: 3306, Socket: "/run/mysqld/mysqld.sock", User: "root", Database: "sbtest"}},
		{"sbtest:pa:ss@word@tcp(10.0.0.5:3306)/sbtest?parseTime=false&tls=skip-verify",
			Config{Driver: MySQL, Host: "10.0.0.5", Port: 3306, User: "sbtest", Password: "pa:ss@word", Database: "sbtest",
				Params: map[string]string{"parseTime": "false", "tls": "skip-verify"}}},
		{"root@unix(/tmp/my.sock)/test", Config{Driver: MySQL, Socket: "/tmp/my.sock", User: "root", Database: "test"}},
		{"root@tcp([::1]:3310)/", Config{Driver: MySQL, Host: "::1", Port: 3310, User: "root"}},
		{"u:p@/db", Config{Driver: MySQL, Host: "127.0.0.1", Port: 3306, User: "u", Password: "p", Database: "db"}},
		{"sqlite:///var/lib/vmbench/sbtest.db", Config{Driver: SQLite, SQLitePath: "/var/lib/vmbench/sbtest.db"}},
		{"sqlite:rel/x.db?_busy_timeout=0", Config{Driver: SQLite, SQLitePath: "rel/x.db", Params: map[string]string{"_busy_timeout": "0"}}},
		{"sqlite://./x.db", Config{Driver: SQLite, SQLitePath: "./x.db"}},
		{"sqlite:///tmp/with%20space.db", Config{Driver: SQLite, SQLitePath: "/tmp/with space.db"}},
		{"file:/tmp/a.db", Config{Driver: SQLite, SQLitePath: "/tmp/a.db"}},
		{"file:///tmp/a.db?mode=ro#frag", Config{Driver: SQLite, SQLitePath: "/tmp/a.db", Params: map[string]string{"mode": "ro"}}},
		{"file://localhost/tmp/a.db", Config{Driver: SQLite, SQLitePath: "/tmp/a.db"}},
		{"file:a.db", Config{Driver: SQLite, SQLitePath: "a.db"}},
	}
	for _, tt := range tests {
		got, err := ParseDSN(tt.in)
		if err != nil {
			t.Errorf("ParseDSN(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseDSN(%q)\n got %#v\nwant %#v", tt.in, got, tt.want)
		}
	}
}

func TestParseDSNErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty DSN"},
		{"mysql://u:hunter2@db:port/x", `DSN "mysql://u:xxxxx@db:port/x"`},
		{"mysql://u:hunter2@db/a/b", "contains '/'"},
		{"u:hunter2@tcp(db:3306)", `DSN "u:xxxxx@tcp(db:3306)": invalid DSN: missing the slash`},
		{"u:hunter2@tcp(db:3306)/x?tls=nonsense-config", `DSN "u:xxxxx@tcp(db:3306)/x?tls=nonsense-config"`},
		{"hello", "sqlite:///path/file.db"},
		{"sqlite://", "no database file path"},
		{"file://otherhost/x.db", `authority "otherhost"`},
		{"u:hunter2@udp(db:1)/x", "u:xxxxx@udp(db:1)/x"},
		{"http://root:hunter2@127.0.0.1:3306/", `DSN "http://root:xxxxx@127.0.0.1:3306/": scheme "http://" is not one vmbench connects with (accepted forms:`},
		{"pg://u@db/x", `scheme "pg://" is not one`},
	}
	for _, tt := range tests {
		_, err := ParseDSN(tt.in)
		if err == nil {
			t.Errorf("ParseDSN(%q) succeeded", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseDSN(%q) = %q, want it to contain %q", tt.in, err, tt.want)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseDSN(%q) error shows the password: %q", tt.in, err)
		}
	}
}

func TestMaskDSN(t *testing.T) {
	for in, want := range map[string]string{
		"mysql://u:secret@h:1/db?x=1":        "mysql://u:xxxxx@h:1/db?x=1",
		"mysql://u@h/db":                     "mysql://u@h/db",
		"mysql://h/db":                       "mysql://h/db",
		"u:sec@ret@tcp(h:1)/db?a=b@c":        "u:xxxxx@tcp(h:1)/db?a=b@c",
		"u:se/cret@tcp(h:1)/db":              "u:xxxxx@tcp(h:1)/db",
		"u@tcp(h:1)/db":                      "u@tcp(h:1)/db",
		"sqlite:///tmp/x.db?_busy_timeout=0": "sqlite:///tmp/x.db?_busy_timeout=0",
		"garbage":                            "garbage",
		"sqlserver://sa:secret@h:1433?database=x&Password=secret&b=c": "sqlserver://sa:xxxxx@h:1433?database=x&Password=xxxxx&b=c",
		"sqlserver://h?password=secret":                               "sqlserver://h?password=xxxxx",
	} {
		if got := maskDSN(in); got != want {
			t.Errorf("maskDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStringHidesPasswordAndRoundTrips(t *testing.T) {
	cfgs := []Config{
		{Driver: MySQL, Host: "db1", Port: 3307, User: "sbtest", Password: "hunter2", Database: "sbtest", Params: map[string]string{"readTimeout": "30s"}},
		{Driver: MySQL, Host: "localhost", Socket: "/run/mysqld/mysqld.sock", User: "root", Database: "x"},
		{Driver: MySQL, Host: "::1", Port: 3306, User: "u@x", Password: "p"},
		{Driver: SQLite, SQLitePath: "/var/lib/x.db", Params: map[string]string{"_busy_timeout": "0"}},
		{Driver: SQLite, SQLitePath: "rel/x.db"},
	}
	wantStr := []string{
		"mysql://sbtest:xxxxx@db1:3307/sbtest?readTimeout=30s",
		"mysql://root@localhost/x?socket=/run/mysqld/mysqld.sock",
		"mysql://u%40x:xxxxx@[::1]:3306/",
		"sqlite:///var/lib/x.db?_busy_timeout=0",
		"sqlite:rel/x.db",
	}
	for i, c := range cfgs {
		s := c.String()
		if s != wantStr[i] {
			t.Errorf("String() = %q, want %q", s, wantStr[i])
		}
		if c.Password != "" && strings.Contains(s, c.Password) {
			t.Errorf("String() %q shows the password", s)
		}
		back, err := ParseDSN(s)
		if err != nil {
			t.Errorf("ParseDSN(String()) %q: %v", s, err)
			continue
		}
		want := c
		if want.Password != "" {
			want.Password = "xxxxx"
		}
		if want.Driver == MySQL && want.Port == 0 {
			want.Port = DefaultMySQLPort
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip of %q\n got %#v\nwant %#v", s, back, want)
		}
	}
	if s := (Config{Driver: "oracle"}).String(); !strings.Contains(s, "invalid driver") {
		t.Errorf("String of an unknown driver = %q", s)
	}
}

func TestValidate(t *testing.T) {
	ok := []Config{
		DefaultConfig(MySQL),
		DefaultConfig(SQLite),
		{Driver: MySQL, Host: "127.0.0.1", User: "root"}, // port 0 = 3306, no database
		{Driver: MySQL, Socket: "/tmp/x.sock", User: "root"},
		{Driver: MySQL, Host: "localhost", Socket: "/tmp/x.sock", User: "root"},
		{Driver: MySQL, Host: "::1", Port: 3306, User: "root"},
		{Driver: MySQL, Host: "db1", User: "u", Params: map[string]string{"readTimeout": "5s", "innodb_lock_wait_timeout": "1"}},
		{Driver: SQLite, SQLitePath: "/tmp/x.db"},
	}
	for _, c := range ok {
		if err := c.Validate(); err != nil {
			t.Errorf("Validate(%s): %v", c, err)
		}
	}

	tests := []struct {
		cfg  Config
		want []string // every line must appear
	}{
		{Config{}, []string{"--db-driver: empty (valid: mysql, postgres, sqlserver, sqlite)"}},
		{Config{Driver: "pgsql"}, []string{`--db-driver: unknown driver "pgsql" (valid: mysql, postgres, sqlserver, sqlite)`}},
		{Config{Driver: MySQL, Host: "db1", Port: 70000, User: "u"}, []string{"--mysql-port: 70000 is not a port (1..65535)"}},
		// Every problem at once.
		{Config{Driver: MySQL, Port: -1, Database: strings.Repeat("d", 65), Password: "hunter2"}, []string{
			"--mysql-port: -1 is not a port (1..65535)",
			"--mysql-host: empty",
			"--mysql-user: empty",
			"--mysql-db: \"ddddd",
		}},
		{Config{Driver: MySQL, Host: "db1", Socket: "/tmp/s", User: "u"}, []string{"--mysql-socket: given with --mysql-host=db1"}},
		{Config{Driver: MySQL, Host: "db1,db2", User: "u"}, []string{"--mysql-host: \"db1,db2\" is a list"}},
		{Config{Driver: MySQL, Host: "db1:3306", User: "u"}, []string{"give the port with --mysql-port"}},
		{Config{Driver: MySQL, Host: "tcp(db1)", User: "u"}, []string{"is not a host name"}},
		{Config{Driver: MySQL, Host: "db1", User: "u", Database: "a.b"}, []string{"--mysql-db: \"a.b\" contains"}},
		{Config{Driver: MySQL, Host: "db1", User: "u", Params: map[string]string{"readTimeout": "soon"}}, []string{`DSN parameter readTimeout=soon: time: invalid duration "soon"`}},
		{Config{Driver: MySQL, Host: "db1", User: "u", Params: map[string]string{"": "x"}}, []string{"DSN parameters: a parameter has an empty name"}},
		{Config{Driver: SQLite}, []string{"--sqlite-path: empty"}},
		{Config{Driver: SQLite, SQLitePath: ":memory:"}, []string{"--sqlite-path: \":memory:\" is an in-memory database"}},
		{Config{Driver: SQLite, SQLitePath: "x.db", Params: map[string]string{"mode": "memory"}}, []string{"in-memory"}},
		{Config{Driver: SQLite, SQLitePath: "/tmp/"}, []string{"names a directory"}},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if err == nil {
			t.Errorf("Validate(%#v) = nil", tt.cfg)
			continue
		}
		msg := err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("Validate(%#v) =\n%s\nwant a line containing %q", tt.cfg, msg, w)
			}
		}
		if n := len(strings.Split(msg, "\n")); n != len(tt.want) {
			t.Errorf("Validate(%#v) gave %d lines, want %d:\n%s", tt.cfg, n, len(tt.want), msg)
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("Validate error shows the password: %s", msg)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	c := Config{Driver: MySQL, Host: "h", User: "u", Database: "a", Params: map[string]string{"k": "v"}}
	d := c.WithDatabase("b")
	if c.Database != "a" || d.Database != "b" {
		t.Fatalf("WithDatabase: %q -> %q", c.Database, d.Database)
	}
	d.Params["k"] = "changed"
	if c.Params["k"] != "v" {
		t.Error("WithDatabase shares Params with the original")
	}
	if (Config{}).WithDatabase("x").Params != nil {
		t.Error("WithDatabase made Params from nil")
	}
}

func TestMySQLDriverConfig(t *testing.T) {
	c := Config{Driver: MySQL, Host: "db1", Port: 3307, User: "u", Password: "p@ss:/?&", Database: "sbtest"}
	mc, err := c.mysqlConfig()
	if err != nil {
		t.Fatal(err)
	}
	if mc.Net != "tcp" || mc.Addr != "db1:3307" || mc.User != "u" || mc.Passwd != "p@ss:/?&" || mc.DBName != "sbtest" {
		t.Errorf("mysql config %+v", mc)
	}
	if !mc.ParseTime || mc.InterpolateParams || mc.Timeout != mysqlDialTimeout || mc.WriteTimeout != mysqlWriteTimeout || mc.ReadTimeout != 0 {
		t.Errorf("parseTime=%v interpolateParams=%v timeout=%v writeTimeout=%v readTimeout=%v",
			mc.ParseTime, mc.InterpolateParams, mc.Timeout, mc.WriteTimeout, mc.ReadTimeout)
	}

	// Params override defaults, set driver options and session variables,
	// and survive a password full of DSN metacharacters.
	c.Params = map[string]string{"interpolateParams": "true", "readTimeout": "30s", "timeout": "2s", "innodb_lock_wait_timeout": "1"}
	mc, err = c.mysqlConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !mc.InterpolateParams || mc.ReadTimeout != 30*time.Second || mc.Timeout != 2*time.Second || mc.Params["innodb_lock_wait_timeout"] != "1" || mc.Passwd != "p@ss:/?&" {
		t.Errorf("with params: %+v", mc)
	}

	c = Config{Driver: MySQL, Host: "ignored-localhost", Socket: "/tmp/s.sock", User: "u"}
	if mc, _ := c.mysqlConfig(); mc.Net != "unix" || mc.Addr != "/tmp/s.sock" {
		t.Errorf("socket config: %s %s", mc.Net, mc.Addr)
	}
}

func TestSQLiteDriverDSN(t *testing.T) {
	dir := t.TempDir()
	c := Config{Driver: SQLite, SQLitePath: filepath.Join(dir, "we?ird#100%.db")}
	dsn, err := c.sqliteDSN()
	if err != nil {
		t.Fatal(err)
	}
	path, query, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	if p, _ := url.PathUnescape(path); p != c.SQLitePath {
		t.Errorf("dsn path %q decodes to %q, want %q", path, p, c.SQLitePath)
	}
	q, _ := url.ParseQuery(query)
	if q.Get("_busy_timeout") != "5000" || q.Get("_journal_mode") != "WAL" {
		t.Errorf("dsn %q lacks the defaults", dsn)
	}
	c.Params = map[string]string{"_timeout": "0", "_journal": "DELETE", "_txlock": "immediate"}
	dsn, _ = c.sqliteDSN()
	_, query, _ = strings.Cut(dsn, "?")
	q, _ = url.ParseQuery(query)
	if q.Has("_busy_timeout") || q.Has("_journal_mode") || q.Get("_timeout") != "0" || q.Get("_txlock") != "immediate" {
		t.Errorf("dsn %q: params do not replace the defaults", dsn)
	}
}
