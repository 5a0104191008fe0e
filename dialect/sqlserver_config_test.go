package dialect

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/microsoft/go-mssqldb/msdsn"
)

// No SQL Server runs here. These tests check what can be checked without
// one: DSN parsing and printing, validation, the connection string handed
// to go-mssqldb (parsed back with its own msdsn.Parse), the text of the
// database statements, and Open against a port where nothing or no SQL
// Server listens. Logging in, the statements' effect and the bulk copy are
// not exercised.

func TestSQLServerDefaultConfig(t *testing.T) {
	c := DefaultConfig(SQLServer)
	want := Config{Driver: SQLServer, Host: "localhost", Port: 1433, User: "sa", Database: DefaultDatabase, SQLitePath: DefaultSQLitePath}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("DefaultConfig(SQLServer)\n got %#v\nwant %#v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if my := DefaultConfig(MySQL); my.Port != 3306 || my.User != "sbtest" {
		t.Errorf("DefaultConfig(MySQL) changed: %+v", my)
	}
}

func TestSQLServerPort(t *testing.T) {
	tests := []struct {
		port     int
		instance string
		want     int
	}{
		{0, "", 1433},
		{3306, "", 3306}, // a port given is never replaced
		{1433, "", 1433},
		{14330, "", 14330},
		{0, "SQLEXPRESS", 0}, // ask the SQL Server Browser
		{3306, "SQLEXPRESS", 3306},
		{1500, "SQLEXPRESS", 1500},
	}
	for _, tt := range tests {
		c := Config{Driver: SQLServer, Host: "h", Port: tt.port, Instance: tt.instance}
		if got := c.port(); got != tt.want {
			t.Errorf("port %d instance %q: effective port %d, want %d", tt.port, tt.instance, got, tt.want)
		}
	}
}

func TestParseDSNSQLServer(t *testing.T) {
	tests := []struct {
		in   string
		want Config
	}{
		{"sqlserver://sa:s3cret@db1:1433?database=tpcc&encrypt=disable",
			Config{Driver: SQLServer, Host: "db1", Port: 1433, User: "sa", Password: "s3cret", Database: "tpcc",
				Params: map[string]string{"encrypt": "disable"}}},
		{"sqlserver://sa:pw@db1/SQLEXPRESS", Config{Driver: SQLServer, Host: "db1", User: "sa", Password: "pw", Instance: "SQLEXPRESS"}},
		{"sqlserver://sa:pw@db1:1500/SQLEXPRESS?database=x", Config{Driver: SQLServer, Host: "db1", Port: 1500, User: "sa", Password: "pw", Instance: "SQLEXPRESS", Database: "x"}},
		{"sqlserver://db1", Config{Driver: SQLServer, Host: "db1", Port: 1433}},
		{"MSSQL://u:p%40ss%2Fw@[::1]:1433?Database=d&app+name=x&TrustServerCertificate=true",
			Config{Driver: SQLServer, Host: "::1", Port: 1433, User: "u", Password: "p@ss/w", Database: "d",
				Params: map[string]string{"app name": "x", "TrustServerCertificate": "true"}}},
		{"sqlserver://db1?user+id=sa&password=pw", Config{Driver: SQLServer, Host: "db1", Port: 1433, User: "sa", Password: "pw"}},
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

	for _, tt := range []struct{ in, want string }{
		{"sqlserver://sa:hunter2@db1:port", `DSN "sqlserver://sa:xxxxx@db1:port"`},
		{"sqlserver://sa:hunter2@db1/a/b", `instance name "a/b" contains '/'`},
		{"sqlserver://sa:hunter2@db1?port=1", `parameter "port": give the host and port in the URL`},
		{"sqlserver://sa:hunter2@db1?user+id=bob", `parameter "user id" contradicts the URL`},
		{"sqlserver://db1?password=hunter2&server=x", `DSN "sqlserver://db1?password=xxxxx&server=x"`},
	} {
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

func TestSQLServerStringHidesPasswordAndRoundTrips(t *testing.T) {
	cfgs := []Config{
		{Driver: SQLServer, Host: "db1", Port: 1433, User: "sa", Password: "hunter2", Database: "tpcc", Params: map[string]string{"encrypt": "disable"}},
		{Driver: SQLServer, Host: "db1", User: "sa", Password: "hunter2", Instance: "SQLEXPRESS"},
		{Driver: SQLServer, Host: "::1", Port: 14330, User: "u@x"},
		{Driver: SQLServer, Host: "db1", Port: 1433, User: "sa", Params: map[string]string{"Certificate Password": "hunter2"}},
	}
	wantStr := []string{
		"sqlserver://sa:xxxxx@db1:1433?database=tpcc&encrypt=disable",
		"sqlserver://sa:xxxxx@db1/SQLEXPRESS",
		"sqlserver://u%40x@[::1]:14330",
		"sqlserver://sa@db1:1433?Certificate+Password=xxxxx",
	}
	for i, c := range cfgs {
		s := c.String()
		if s != wantStr[i] {
			t.Errorf("String() = %q, want %q", s, wantStr[i])
		}
		if strings.Contains(s, "hunter2") {
			t.Errorf("String() %q shows a password", s)
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
		if k := "Certificate Password"; want.Params[k] != "" {
			want.Params = map[string]string{k: "xxxxx"}
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip of %q\n got %#v\nwant %#v", s, back, want)
		}
	}
	// No port prints as 1433; a port given prints as given.
	c := Config{Driver: SQLServer, Host: "db1", User: "sa"}
	if s := c.String(); s != "sqlserver://sa@db1:1433" {
		t.Errorf("String() = %q", s)
	}
	c.Port = 3306
	if s := c.String(); s != "sqlserver://sa@db1:3306" {
		t.Errorf("String() = %q", s)
	}
}

func TestSQLServerValidate(t *testing.T) {
	ok := []Config{
		DefaultConfig(SQLServer),
		{Driver: SQLServer, Host: "10.0.0.5", User: "sa"},
		{Driver: SQLServer, Host: "::1", Port: 1433, User: "sa", Database: strings.Repeat("d", 128)},
		{Driver: SQLServer, Host: "db1", User: "sa", Instance: "SQLEXPRESS", Database: "tpcc_1"},
		{Driver: SQLServer, Host: "db1", User: "sa", Params: map[string]string{"encrypt": "disable", "Packet Size": "32767", "dial timeout": "3"}},
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
		// Every problem at once.
		{Config{Driver: SQLServer, Port: 70000, Socket: "/tmp/s", Database: "a-b", Password: "hunter2"}, []string{
			"--mysql-port: 70000 is not a port (1..65535)",
			"--mysql-socket: SQL Server is reached over TCP only",
			"--mysql-host: empty",
			"--mysql-user: empty (give a SQL Server login, e.g. sa)",
			`--mysql-db: "a-b" is not a SQL Server database name vmbench accepts: use ASCII letters, digits and _ only, at most 128 characters`,
		}},
		{Config{Driver: SQLServer, Host: `db1\SQLEXPRESS`, User: "sa"}, []string{`--mysql-host: "db1\\SQLEXPRESS": give a named instance in a DSN, sqlserver://host/instance`}},
		{Config{Driver: SQLServer, Host: "db1:1433", User: "sa"}, []string{"give the port with --mysql-port"}},
		{Config{Driver: SQLServer, Host: "db1", User: "sa", Database: strings.Repeat("d", 129)}, []string{"at most 128 characters"}},
		{Config{Driver: SQLServer, Host: "db1", User: "sa", Params: map[string]string{"encrypt": "sometimes"}}, []string{"DSN parameter encrypt=sometimes: invalid encrypt 'sometimes'"}},
		{Config{Driver: SQLServer, Host: "db1", User: "sa", Params: map[string]string{"dial timeout": "soon", "packet size": "big"}}, []string{
			"DSN parameter dial timeout=soon: invalid dial timeout 'soon'",
			"DSN parameter packet size=big: invalid packet size 'big'",
		}},
		{Config{Driver: SQLServer, Host: "db1", User: "sa", Params: map[string]string{"Database": "x", "password": "hunter2"}}, []string{
			"DSN parameter Database: set by --mysql-db",
			"DSN parameter password: set by --mysql-password",
		}},
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
				t.Errorf("Validate(%s) =\n%s\nwant a line containing %q", tt.cfg, msg, w)
			}
		}
		if n := len(strings.Split(msg, "\n")); n != len(tt.want) {
			t.Errorf("Validate(%s) gave %d lines, want %d:\n%s", tt.cfg, n, len(tt.want), msg)
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("Validate error shows the password: %s", msg)
		}
	}
}

// TestSQLServerDriverDSN parses the connection string Open hands to
// go-mssqldb with go-mssqldb's own parser.
func TestSQLServerDriverDSN(t *testing.T) {
	c := Config{Driver: SQLServer, Host: "db1", Port: 14330, User: "sa", Password: "p@ss:/?&= x", Database: "tpcc"}
	p, err := msdsn.Parse(c.sqlserverDSN())
	if err != nil {
		t.Fatal(err)
	}
	if p.Host != "db1" || p.Port != 14330 || p.User != "sa" || p.Password != "p@ss:/?&= x" || p.Database != "tpcc" || p.Instance != "" {
		t.Errorf("parsed: host %q port %d user %q password %q database %q instance %q", p.Host, p.Port, p.User, p.Password, p.Database, p.Instance)
	}
	if p.AppName != "vmbench" || p.DialTimeout != sqlserverDialTimeout || p.ConnTimeout != 0 {
		t.Errorf("app name %q, dial timeout %v, connection timeout %v", p.AppName, p.DialTimeout, p.ConnTimeout)
	}

	// Params replace the defaults whatever their case; a named instance
	// without a port leaves the port to the SQL Server Browser.
	c = Config{Driver: SQLServer, Host: "db1", User: "sa", Instance: "SQLEXPRESS",
		Params: map[string]string{"App Name": "mine", "DIAL TIMEOUT": "3", "encrypt": "disable"}}
	p, err = msdsn.Parse(c.sqlserverDSN())
	if err != nil {
		t.Fatal(err)
	}
	if p.AppName != "mine" || p.DialTimeout != 3*time.Second || p.Instance != "SQLEXPRESS" || p.Port != 0 || p.Encryption != msdsn.EncryptionDisabled {
		t.Errorf("with params: app %q dial %v instance %q port %d encryption %v", p.AppName, p.DialTimeout, p.Instance, p.Port, p.Encryption)
	}
}

// TestSQLServerDatabaseStatements pins the text EnsureDatabase,
// CreateDatabase and DropDatabase send (SQL Server 2014 syntax).
func TestSQLServerDatabaseStatements(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{ensureDatabaseSQL(SQLServer, "tpcc"), "IF DB_ID(N'tpcc') IS NULL CREATE DATABASE [tpcc]"},
		{createDatabaseSQL(SQLServer, "tpcc"), "CREATE DATABASE [tpcc]"},
		{dropDatabaseSQL(SQLServer, "tpcc"),
			"IF DB_ID(N'tpcc') IS NOT NULL BEGIN ALTER DATABASE [tpcc] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [tpcc]; END"},
		{ensureDatabaseSQL(MySQL, "sb`x"), "CREATE DATABASE IF NOT EXISTS `sb``x`"},
		{createDatabaseSQL(MySQL, "sb"), "CREATE DATABASE `sb`"},
		{dropDatabaseSQL(MySQL, "sb"), "DROP DATABASE IF EXISTS `sb`"},
	} {
		if tt.got != tt.want {
			t.Errorf("got  %q\nwant %q", tt.got, tt.want)
		}
	}
	// Invalid names never reach the statements.
	cfg := Config{Driver: SQLServer, Host: "127.0.0.1", User: "sa", Database: "x'; DROP DATABASE y; --"}
	if err := EnsureDatabase(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--mysql-db") {
		t.Errorf("EnsureDatabase with a bad name: %v", err)
	}
}

// closedPort returns a TCP port on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// TestSQLServerOpenNoServer opens go-mssqldb connections to a closed port
// and to a listener that hangs up at once (a server going away during the
// handshake): both are ConnLost, with the address in the hint and no
// password anywhere.
func TestSQLServerOpenNoServer(t *testing.T) {
	ctx := testContext(t)
	refused := closedPort(t)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	hangup := l.Addr().(*net.TCPAddr).Port

	for _, port := range []int{refused, hangup} {
		cfg := Config{Driver: SQLServer, Host: "127.0.0.1", Port: port, User: "sa", Password: "hunter2", Database: "tpcc"}
		db, err := Open(ctx, cfg)
		if err == nil {
			db.Close()
			t.Fatalf("Open on port %d succeeded", port)
		}
		msg := err.Error()
		t.Logf("port %d: %v", port, err)
		if Classify(err) != ConnLost || Name(err) != "conn_lost" {
			t.Errorf("port %d: %q (%T): class %v name %q", port, err, err, Classify(err), Name(err))
		}
		for _, w := range []string{
			fmt.Sprintf("connecting to sqlserver://sa:xxxxx@127.0.0.1:%d?database=tpcc: ", port),
			fmt.Sprintf("is a server listening on 127.0.0.1 port %d?", port),
		} {
			if !strings.Contains(msg, w) {
				t.Errorf("port %d: %q lacks %q", port, msg, w)
			}
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("Open error shows the password: %q", msg)
		}
	}
}

// TestSQLServerOpenCanceled: a server that accepts and never answers; the
// context's deadline ends the login and the error is Canceled.
func TestSQLServerOpenCanceled(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	ctx, cancel := context.WithTimeout(testContext(t), 200*time.Millisecond)
	defer cancel()
	cfg := Config{Driver: SQLServer, Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, User: "sa"}
	db, err := Open(ctx, cfg)
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded")
	}
	if Classify(err) != Canceled {
		t.Errorf("%q (%T): class %v, want canceled", err, err, Classify(err))
	}
}
