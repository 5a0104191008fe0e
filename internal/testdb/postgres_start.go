package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers database/sql driver "pgx"
)

// postgresSettings are the server's settings: fast and small, nothing
// durable beyond what tests need, no logging collector (the log goes to
// the log file), room for the tests' connections.
var postgresSettings = []string{
	"listen_addresses=127.0.0.1",
	"fsync=off",
	"synchronous_commit=off",
	"full_page_writes=off",
	"shared_buffers=64MB",
	"max_connections=200",
	"logging_collector=off",
	"max_wal_size=1GB",
	"autovacuum=off",
	"deadlock_timeout=100ms",
}

// initdb creates the cluster in s.datadir: superuser postgres, trust
// authentication, UTF8, C locale, no fsync.
func (s *PGServer) initdb(deadline time.Time) error {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bindir, "initdb"),
		"-D", s.datadir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.Dir = s.dir
	cmd.SysProcAttr = serverProcAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("internal/testdb: initialising %s with initdb failed: %w\n%s", s.datadir, err, tail(out, 40))
	}
	return nil
}

// start starts postgres on a free port and waits until it accepts
// connections.
func (s *PGServer) start(deadline time.Time) error {
	spawn := func(port int) error {
		s.port = port
		return s.spawn(port)
	}
	return s.boot(deadline, spawn, func(int) (*sql.DB, error) { return s.waitReady(deadline) }, "SHOW server_version", &s.version)
}

// spawn starts postgres on port, its output going to s.logPath.
func (s *PGServer) spawn(port int) error {
	args := []string{"-D", s.datadir, "-p", strconv.Itoa(port), "-k", s.dir}
	for _, kv := range postgresSettings {
		args = append(args, "-c", kv)
	}
	cmd := exec.Command(filepath.Join(s.bindir, "postgres"), args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = serverProcAttr()
	return s.run(cmd)
}

// waitReady pings the server over TCP as postgres until it answers. It
// fails when the server exits first (errPortInUse when the port was
// taken) or deadline passes, with the tail of the server's log.
func (s *PGServer) waitReady(deadline time.Time) (*sql.DB, error) {
	admin, err := sql.Open("pgx", s.DSN("postgres")+"&connect_timeout=2")
	if err != nil {
		return nil, fmt.Errorf("internal/testdb: %w", err)
	}
	portTaken := func(log string) bool {
		return strings.Contains(log, "Address already in use") || strings.Contains(log, "could not create any TCP/IP sockets")
	}
	if err := s.proc.waitReady(admin, s.port, deadline, portTaken); err != nil {
		return nil, err
	}
	return admin, nil
}
