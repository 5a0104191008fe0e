package testdb

import (
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Target is the MySQL server and database a benchmark runs against.
type Target struct {
	User, Password string
	Host           string // empty with Socket
	Port           int    // 3306 when the DSN names none
	Socket         string // a Unix socket path, or empty
	Database       string
}

// BenchTarget returns the server named by the environment variable env, a
// go-sql-driver DSN such as "root@tcp(127.0.0.1:3306)/vmbench_perf"; when
// env is unset, the shared throwaway server (Shared, which skips b where no
// server binary exists) with a new database. A DSN that does not parse
// fails b, naming env.
func BenchTarget(b testing.TB, env string) Target {
	b.Helper()
	dsn := os.Getenv(env)
	if dsn == "" {
		srv := Shared(b)
		return Target{User: srv.User(), Host: srv.Host(), Port: srv.Port(), Database: srv.NewDatabase(b)}
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		b.Fatalf("%s: %v", env, err)
	}
	t := Target{User: mc.User, Password: mc.Passwd, Database: mc.DBName, Port: 3306}
	if mc.Net == "unix" {
		t.Socket = mc.Addr
		return t
	}
	host, port, err := net.SplitHostPort(mc.Addr)
	if err != nil {
		t.Host = mc.Addr // no port given
		return t
	}
	t.Host = host
	if t.Port, err = strconv.Atoi(port); err != nil {
		b.Fatalf("%s: port %q: %v", env, port, err)
	}
	return t
}
