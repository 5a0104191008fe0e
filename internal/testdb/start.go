package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// start starts the server process on a free port and waits until it accepts
// connections on the socket and on TCP.
func (s *Server) start(deadline time.Time) error {
	spawn := func(port int) error {
		s.port = port
		return s.spawn(port)
	}
	ready := func(port int) (*sql.DB, error) { return s.waitReady(port, deadline) }
	if err := s.boot(deadline, spawn, ready, "SELECT VERSION()", &s.version); err != nil {
		return err
	}
	admin, port := s.admin, s.port
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	// MariaDB's install-db creates root@127.0.0.1; MySQL's --initialize-insecure
	// creates only root@localhost, which a TCP login with skip-name-resolve
	// does not match.
	for _, q := range []string{
		"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'",
		"GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("internal/testdb: %s: %w", q, err)
		}
	}
	tcp, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		return fmt.Errorf("internal/testdb: %w", err)
	}
	defer tcp.Close()
	if err := tcp.PingContext(ctx); err != nil {
		return fmt.Errorf("internal/testdb: the server accepts socket connections but not TCP on 127.0.0.1:%d: %w", port, err)
	}
	return nil
}

// spawn starts the server process on port, its output going to s.logPath,
// and sets s.cmd and s.done (closed when the process has exited, s.werr
// then holding its exit).
func (s *Server) spawn(port int) error {
	args := append([]string{"--no-defaults"}, s.serverOptions()...)
	args = append(args,
		"--port="+strconv.Itoa(port),
		"--bind-address=127.0.0.1",
		"--socket="+s.socket,
		"--pid-file="+filepath.Join(s.dir, "mysqld.pid"),
		// Started with 0, MariaDB refuses SET GLOBAL max_user_connections;
		// a high start value lets tests lower it at run time.
		"--max-user-connections=100000",
	)
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = sysProcAttr()
	return s.run(cmd)
}

// waitReady pings the started server over its socket as root until it
// answers and returns that connection pool. It fails when the server exits
// first (errPortInUse when port was taken) or deadline passes, with the
// tail of the server's log.
func (s *Server) waitReady(port int, deadline time.Time) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "unix"
	cfg.Addr = s.socket
	cfg.Timeout = 2 * time.Second
	cfg.Logger = mysql.Logger(nopLogger{})
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("internal/testdb: %w", err)
	}
	admin := sql.OpenDB(conn)
	if err := s.proc.waitReady(admin, port, deadline, func(log string) bool { return strings.Contains(log, "Address already in use") }); err != nil {
		return nil, err
	}
	return admin, nil
}

// nopLogger silences the driver's "[mysql] ... connection refused" lines
// while the server is starting.
type nopLogger struct{}

func (nopLogger) Print(...any) {}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
