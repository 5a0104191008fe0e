package dialect

import (
	"context"
	"net"
	"os"
	"runtime"
	"sync"
)

// NetpollEnv names the environment variable that, set to 1, makes MySQL
// and PostgreSQL TCP connections use Go's netpoller (plain net.Dialer sockets) instead of
// blocking sockets. It is a diagnostic switch, for comparing the two
// (bench/sysbench-compare.sh) or for a platform where blocking sockets
// misbehave; it is read at each dial.
const NetpollEnv = "VMBENCH_NETPOLL"

// mysqlDial returns the DialFunc for go-sql-driver and pgx: dialBlocking
// where the platform has it and NetpollEnv is not 1, else nil (the
// driver's own net.Dialer).
func mysqlDial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if dialBlocking == nil || os.Getenv(NetpollEnv) == "1" {
		return nil
	}
	return dialBlocking
}

// procs keeps GOMAXPROCS at least the process's own value (as it was when
// the first blocking connection opened) plus the blocking connections
// open: a goroutine waiting in a blocking read holds its P (see blockConn),
// so without one P per connection the waiters would starve the goroutines
// that have work. The Ps are taken back when the last blocking connection
// closes. Changing GOMAXPROCS stops the world for a moment, once per dial
// and once at the end, never per statement.
var procs struct {
	mu   sync.Mutex
	base int // GOMAXPROCS before the first blocking connection; 0 when none is open
	open int
}

// procsAcquire books one more blocking connection.
func procsAcquire() {
	procs.mu.Lock()
	defer procs.mu.Unlock()
	if procs.open == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.open++
	if want := procs.base + procs.open; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// procsRelease books one blocking connection fewer; the last one gives
// GOMAXPROCS back.
func procsRelease() {
	procs.mu.Lock()
	defer procs.mu.Unlock()
	procs.open--
	if procs.open == 0 {
		runtime.GOMAXPROCS(procs.base)
	}
}
