package testdb

// What the throwaway MariaDB (Server) and PostgreSQL (PGServer) share: the
// server process and its temp dir, its stop, its log, its test databases,
// and the one shared server of a test binary.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proc is a server process started by a test binary.
type proc struct {
	name    string // for messages: "the server", "postgres"
	dir     string // temp dir holding everything of the server
	logPath string // the server's output

	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	werr error         // cmd.Wait's result, valid after done is closed

	admin *sql.DB // an administrative pool, closed by kill and Stop

	stopOnce sync.Once
	stopErr  error
	stopSig  os.Signal // the signal of a clean shutdown
	dbSeq    atomic.Int64
}

// run starts cmd, its output going to p.logPath, and sets p.cmd and p.done
// (closed when the process has exited, p.werr then holding its exit).
func (p *proc) run(cmd *exec.Cmd) error {
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("internal/testdb: %w", err)
	}
	defer logf.Close() // the server has its own copy
	cmd.Stdout, cmd.Stderr = logf, logf
	p.cmd = cmd
	p.done = make(chan struct{})
	started := make(chan error, 1)
	go func(cmd *exec.Cmd, done chan struct{}) {
		// On Linux the server gets SIGKILL when the thread that started it
		// exits (Pdeathsig), so start and wait on one locked thread that
		// lives exactly as long as the server.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.werr = cmd.Wait()
		close(done)
	}(cmd, p.done)
	if err := <-started; err != nil {
		p.cmd = nil
		return fmt.Errorf("internal/testdb: starting %s: %w", cmd.Path, err)
	}
	return nil
}

// kill ends a server that failed to start (no grace period).
func (p *proc) kill() {
	if p.admin != nil {
		p.admin.Close()
		p.admin = nil
	}
	if p.cmd == nil || p.cmd.Process == nil || p.done == nil {
		return
	}
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Stop shuts the server down (SIGTERM for MariaDB, SIGINT, the fast
// shutdown, for PostgreSQL; SIGKILL after 30 s) and removes its temp dir.
// It returns an error when the server had already exited on its own,
// needed SIGKILL, or the dir could not be removed. Calling it again
// returns the first result.
func (p *proc) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

func (p *proc) stop() error {
	var errs []error
	if p.admin != nil {
		p.admin.Close()
	}
	select {
	case <-p.done:
		errs = append(errs, fmt.Errorf("internal/testdb: %s had exited before Stop (%w); its log ends:\n%s", p.name, p.werr, p.logTail()))
	default:
		_ = p.cmd.Process.Signal(p.stopSig)
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
			_ = p.cmd.Process.Kill()
			<-p.done
			errs = append(errs, fmt.Errorf("internal/testdb: %s did not stop within %v of %v and was killed", p.name, stopTimeout, p.stopSig))
		}
	}
	if err := os.RemoveAll(p.dir); err != nil {
		errs = append(errs, fmt.Errorf("internal/testdb: removing %s: %w", p.dir, err))
	}
	return errors.Join(errs...)
}

func (p *proc) logTail() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.logPath, err)
	}
	return tail(b, 30)
}

// newDatabase creates, through p.admin, a database with a name unique on
// the server, derived from the test's name, with the statement create
// makes of the name, and drops it with drop's statement when the test and
// its subtests finish.
func (p *proc) newDatabase(t testing.TB, create, drop func(name string) string) string {
	t.Helper()
	name := fmt.Sprintf("t_%s_%d", sanitize(t.Name()), p.dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := p.admin.ExecContext(ctx, create(name)); err != nil {
		t.Fatalf("internal/testdb: CREATE DATABASE %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := p.admin.ExecContext(ctx, drop(name)); err != nil {
			t.Errorf("internal/testdb: DROP DATABASE %s: %v", name, err)
		}
	})
	return name
}

// sharedServer is the one server of a kind of this test binary, started
// on first use.
type sharedServer[T interface{ Stop() error }] struct {
	once sync.Once
	mu   sync.Mutex
	srv  T
	ok   bool
	err  error
}

// get returns the server, starting it with start on first use. It skips
// t when start failed with noBinary and fails it on other errors.
func (s *sharedServer[T]) get(t testing.TB, start func() (T, error), noBinary error) T {
	t.Helper()
	s.once.Do(func() {
		srv, err := start()
		s.mu.Lock()
		s.srv, s.ok, s.err = srv, err == nil, err
		s.mu.Unlock()
	})
	s.mu.Lock()
	srv, err := s.srv, s.err
	s.mu.Unlock()
	if errors.Is(err, noBinary) {
		t.Skip(noBinary.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// stop stops the server if one was started.
func (s *sharedServer[T]) stop() error {
	s.mu.Lock()
	srv, ok := s.srv, s.ok
	s.mu.Unlock()
	if !ok {
		return nil
	}
	return srv.Stop()
}

// create makes the server's temp dir (makeDir, with prefix and the log
// server.log), calls initialise to make its data directory (the temp dir
// is removed when that fails) and starts the server with startRetrying;
// both get the start-up's deadline, startTimeout from now.
func (p *proc) create(prefix string, initialise, start func(deadline time.Time) error) error {
	if err := p.makeDir(prefix, "server.log"); err != nil {
		return err
	}
	deadline := time.Now().Add(startTimeout)
	if err := initialise(deadline); err != nil {
		os.RemoveAll(p.dir)
		return err
	}
	return p.startRetrying(deadline, start)
}

// boot is one start attempt on a free port: spawn starts the server
// process on it, ready waits until the server answers and returns the
// administrative pool (kept as p.admin, 4 connections at most), and the
// answer of versionQuery goes to *version. Its errors are spawn's,
// ready's (errPortInUse among them) and the query's.
func (p *proc) boot(deadline time.Time, spawn func(port int) error, ready func(port int) (*sql.DB, error), versionQuery string, version *string) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("internal/testdb: finding a free port: %w", err)
	}
	if err := spawn(port); err != nil {
		return err
	}
	admin, err := ready(port)
	if err != nil {
		return err
	}
	admin.SetMaxOpenConns(4)
	p.admin = admin
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if err := admin.QueryRowContext(ctx, versionQuery).Scan(version); err != nil {
		return fmt.Errorf("internal/testdb: %s: %w", versionQuery, err)
	}
	return nil
}

// startRetrying runs start until it succeeds, and after a failure kills
// what it started; a free port can be taken by another process between
// the probe and the server's bind, so a failure with errPortInUse is tried
// again on a new port, up to four times while deadline has not passed. On
// a final failure it removes p.dir.
func (p *proc) startRetrying(deadline time.Time, start func(time.Time) error) error {
	for attempt := 1; ; attempt++ {
		err := start(deadline)
		if err == nil {
			return nil
		}
		p.kill()
		if attempt < 4 && errors.Is(err, errPortInUse) && time.Now().Before(deadline) {
			continue
		}
		os.RemoveAll(p.dir)
		return err
	}
}

// waitReady pings admin until the server answers, every 25 ms. It fails
// when the server exits first (errPortInUse on port when its log says
// portTaken) or deadline passes, with the tail of the server's log; admin
// is closed then.
func (p *proc) waitReady(admin *sql.DB, port int, deadline time.Time, portTaken func(log string) bool) error {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		lastErr := admin.PingContext(ctx)
		cancel()
		if lastErr == nil {
			return nil
		}
		select {
		case <-p.done:
			admin.Close()
			log := p.logTail()
			if portTaken(log) {
				return fmt.Errorf("internal/testdb: %w: %d", errPortInUse, port)
			}
			return fmt.Errorf("internal/testdb: %s exited during start-up (%w); its log %s ends:\n%s", p.cmd.Path, p.werr, p.logPath, log)
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			admin.Close()
			return fmt.Errorf("internal/testdb: %s did not accept connections within %v (last error: %w); its log %s ends:\n%s", p.cmd.Path, startTimeout, lastErr, p.logPath, p.logTail())
		}
	}
}

// makeDir makes the server's temp dir, prefix then random characters, in
// tempBase, first removing stale ones (removeStaleDirs), with an owner
// file that lets a later start remove it if this process dies without
// calling Stop; log is the name of the log file in it.
func (p *proc) makeDir(prefix, log string) error {
	removeStaleDirs(tempBase())
	dir, err := os.MkdirTemp(tempBase(), prefix)
	if err != nil {
		return fmt.Errorf("internal/testdb: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("internal/testdb: %w", err)
	}
	p.dir, p.logPath = dir, filepath.Join(dir, log)
	return nil
}
