package dialect

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/microsoft/go-mssqldb/msdsn"
)

// go-mssqldb v1.11.2 bounds only the TCP dial of a new connection by the
// context: the pre-login and login exchanges that follow read the socket
// without a deadline (tds.go, connect: the dial context is derived from ctx,
// the rest reads through a timeoutConn whose timeout is the "connection
// timeout" parameter). That parameter is no login timeout either: it stays
// on the socket for the session's life as a per-read deadline, and would
// fail any statement that runs longer (CREATE INDEX, a TPC-C load). So a
// port that accepts but never answers (a server still starting, a proxy)
// would hang Open and every reconnect for good.
//
// sqlserverConnector closes the socket of a login when the caller's context
// ends: its dialer registers each connection it makes with the loginWatch
// found in the dial context (context values survive go-mssqldb's derived
// dial context), and Connect closes them through context.AfterFunc until
// the login is over.

// keepAliveDefault is go-mssqldb's TCP keep-alive period when the DSN has
// no "keepalive" parameter (and for "keepalive=0", as in go-mssqldb).
const keepAliveDefault = 30 * time.Second

// sqlserverConnector is a driver.Connector for go-mssqldb (driver name
// "sqlserver": native "@p1" parameters) whose logins end with the context.
type sqlserverConnector struct {
	inner *mssql.Connector
}

var _ driver.Connector = sqlserverConnector{}

// newSQLServerConnector parses dsn (go-mssqldb's URL form) and returns the
// connector Open uses. Errors are msdsn.Parse's, which never quote the
// password.
func newSQLServerConnector(dsn string) (sqlserverConnector, error) {
	p, err := msdsn.Parse(dsn)
	if err != nil {
		return sqlserverConnector{}, err
	}
	ka := p.KeepAlive
	if ka == 0 {
		ka = keepAliveDefault
	}
	c := mssql.NewConnectorConfig(p)
	c.Dialer = watchDialer{&net.Dialer{KeepAlive: ka}}
	return sqlserverConnector{inner: c}, nil
}

// loginWatchKey is the context key of the *loginWatch of one Connect.
type loginWatchKey struct{}

// loginWatch holds the sockets dialed for one login, to close them when the
// login's context ends.
type loginWatch struct {
	mu      sync.Mutex
	conns   []net.Conn
	aborted bool
}

// add registers c; after abort it closes c and returns false.
func (w *loginWatch) add(c net.Conn) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted {
		c.Close()
		return false
	}
	w.conns = append(w.conns, c)
	return true
}

// abort closes every registered socket, and those registered later.
func (w *loginWatch) abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.aborted = true
	for _, c := range w.conns {
		c.Close()
	}
}

// errLoginAborted is what the dialer returns for a socket dialed after the
// login's context ended.
var errLoginAborted = errors.New("login aborted: context ended")

// watchDialer dials like go-mssqldb's default dialer (net.Dialer with TCP
// keep-alive) and registers each connection with the context's loginWatch.
type watchDialer struct{ nd *net.Dialer }

// DialContext dials addr and registers the connection.
func (d watchDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if w, ok := ctx.Value(loginWatchKey{}).(*loginWatch); ok && !w.add(c) {
		return nil, errLoginAborted
	}
	return c, nil
}

// Connect logs in as go-mssqldb does, but closes the socket when ctx ends
// during the login; it then returns an error wrapping ctx.Err() (class
// Canceled).
func (c sqlserverConnector) Connect(ctx context.Context) (driver.Conn, error) {
	w := &loginWatch{}
	stop := context.AfterFunc(ctx, w.abort)
	conn, err := c.inner.Connect(context.WithValue(ctx, loginWatchKey{}, w))
	if !stop() {
		// ctx ended during the login and its sockets were closed.
		if err == nil {
			conn.Close()
		}
		return nil, fmt.Errorf("SQL Server login: %w", ctx.Err())
	}
	return conn, err
}

// Driver returns go-mssqldb's driver.
func (c sqlserverConnector) Driver() driver.Driver { return c.inner.Driver() }
