// Package testdb starts a throwaway MariaDB (or MySQL) server, and a
// throwaway PostgreSQL server (StartPostgres, SharedPostgres; see
// postgres.go), for integration tests: a fresh data directory in a temp dir, a free TCP port on 127.0.0.1
// and a Unix socket beside the data, small buffers so that it starts in well
// under a second, and no option files read (--no-defaults), so the machine's
// own server and its configuration are never touched.
//
// A test package uses one server for the whole test binary:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		srv := testdb.Shared(t)        // skips when no server binary exists
//		db := srv.NewDatabase(t)       // fresh database, dropped at cleanup
//		conn, _ := sql.Open("mysql", srv.DSN(db))
//		...
//	}
//
// The server is found on PATH (mariadbd, then mysqld) or in /usr/sbin,
// /usr/libexec and /usr/local/mysql/bin; VMBENCH_TESTDB_SERVER names a binary
// explicitly. The data directory is initialised with mariadb-install-db (or
// mysql_install_db) for MariaDB and with mysqld --initialize-insecure for
// MySQL. The root account has an empty password.
package testdb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrNoServerBinary is returned by Start when neither mariadbd nor mysqld
// exists on this machine. Shared turns it into a skipped test.
var ErrNoServerBinary = errors.New("internal/testdb: no MariaDB/MySQL server binary (mariadbd/mysqld) found; install mariadb-server (make test does this when run as root)")

// EnvServer names an environment variable that, when set, is the path of the
// server binary to use instead of searching for one.
const EnvServer = "VMBENCH_TESTDB_SERVER"

// Timeouts of the server's life cycle.
const (
	// startTimeout bounds initialisation plus start-up until the server
	// accepts connections (normally well under a second).
	startTimeout = 60 * time.Second
	// stopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 30 * time.Second
)

// dirPrefix starts the name of every temp dir a Server creates; Start removes
// such dirs left behind by test processes that no longer exist.
const dirPrefix = "vmbench-testdb-"

// Server is one running throwaway server. Its methods are safe for
// concurrent use.
type Server struct {
	proc
	bin     string // server binary
	mariadb bool   // MariaDB rather than Oracle MySQL
	datadir string
	socket  string
	port    int
	version string // admin is root over the Unix socket
}

// Start initialises a new data directory and starts a server on it. It
// returns ErrNoServerBinary when no server binary is found, and otherwise an
// error that includes the tail of the server's log when the server does not
// start within a minute. The caller must call Stop.
func Start() (*Server, error) {
	bin, err := findServer()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, proc: proc{name: "the server", stopSig: syscall.SIGTERM}}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("internal/testdb: %s --version: %w: %s", bin, err, bytes.TrimSpace(out))
	}
	s.mariadb = bytes.Contains(bytes.ToLower(out), []byte("mariadb"))

	err = s.create(dirPrefix, func(deadline time.Time) error {
		s.datadir = filepath.Join(s.dir, "data")
		s.socket = filepath.Join(s.dir, "mysqld.sock")
		return s.initDatadir(deadline)
	}, s.start)
	if err != nil {
		return nil, err
	}
	return s, nil
}

var errPortInUse = errors.New("port in use")

// searchDirs are searched for mariadbd and mysqld after PATH (Debian and
// Ubuntu put them in /usr/sbin, Fedora in /usr/libexec, Oracle's tarball in
// /usr/local/mysql/bin). The Makefile's SERVER_DIRS lists the same.
var searchDirs = []string{"/usr/sbin", "/usr/libexec", "/usr/local/mysql/bin"}

// findServer returns the server binary to use.
func findServer() (string, error) {
	if p := os.Getenv(EnvServer); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("internal/testdb: %s=%s is not an executable file", EnvServer, p)
	}
	names := []string{"mariadbd", "mysqld"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	for _, d := range searchDirs {
		for _, n := range names {
			if p := filepath.Join(d, n); isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", ErrNoServerBinary
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// findInstallDB returns mariadb-install-db or mysql_install_db, looked up on
// PATH, next to the server binary and in the usual places.
func findInstallDB(serverBin string) (string, error) {
	names := []string{"mariadb-install-db", "mysql_install_db"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	binDir := filepath.Dir(serverBin)
	dirs := []string{binDir, filepath.Join(filepath.Dir(binDir), "bin"), filepath.Join(filepath.Dir(binDir), "scripts"), "/usr/bin", "/usr/local/mysql/scripts", "/usr/local/mysql/bin"}
	for _, d := range dirs {
		for _, n := range names {
			if p := filepath.Join(d, n); isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("internal/testdb: found %s but neither mariadb-install-db nor mysql_install_db to initialise a data directory", serverBin)
}

// tempBase is the directory for the server's temp dir. The Unix socket path
// must fit in sun_path (108 bytes), so a long TMPDIR falls back to /tmp.
func tempBase() string {
	base := os.TempDir()
	if len(base) > 60 {
		return "/tmp"
	}
	return base
}

// serverOptions are the options that both the initialisation and the server
// get: small and fast, nothing durable beyond what tests need.
func (s *Server) serverOptions() []string {
	opts := []string{
		"--datadir=" + s.datadir,
		"--tmpdir=" + s.dir,
		"--skip-name-resolve",
		"--innodb-buffer-pool-size=64M",
		"--innodb-log-file-size=16M",
		"--innodb-flush-log-at-trx-commit=2",
		"--innodb-doublewrite=0",
		"--innodb-buffer-pool-load-at-startup=OFF",
		"--innodb-buffer-pool-dump-at-shutdown=OFF",
		"--skip-log-bin",
		"--performance-schema=OFF",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_general_ci",
	}
	if !s.mariadb {
		// MySQL's X plugin would listen on 33060 in every instance.
		opts = append(opts, "--mysqlx=OFF")
	}
	if os.Geteuid() == 0 {
		opts = append(opts, "--user=root")
	}
	return opts
}

// initDatadir creates the system tables in s.datadir.
func (s *Server) initDatadir(deadline time.Time) error {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var cmd *exec.Cmd
	if s.mariadb {
		installDB, err := findInstallDB(s.bin)
		if err != nil {
			return err
		}
		args := []string{"--no-defaults", "--auth-root-authentication-method=normal", "--skip-test-db"}
		if d := filepath.Dir(s.bin); d != "/usr/sbin" && d != "/usr/bin" && d != "/usr/libexec" {
			// A tarball install (e.g. /usr/local/mysql/bin) needs its base dir.
			args = append(args, "--basedir="+filepath.Dir(d))
		}
		args = append(args, s.serverOptions()...)
		cmd = exec.CommandContext(ctx, installDB, args...)
	} else {
		args := append([]string{"--no-defaults", "--initialize-insecure"}, s.serverOptions()...)
		cmd = exec.CommandContext(ctx, s.bin, args...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("internal/testdb: initialising %s with %s failed: %w\n%s", s.datadir, filepath.Base(cmd.Path), err, tail(out, 40))
	}
	return nil
}

// Host returns the address the server listens on: "127.0.0.1".
func (s *Server) Host() string { return "127.0.0.1" }

// Port returns the server's TCP port on Host.
func (s *Server) Port() int { return s.port }

// Socket returns the path of the server's Unix socket.
func (s *Server) Socket() string { return s.socket }

// User returns the administrative user, "root", whose password is empty.
func (s *Server) User() string { return "root" }

// Version returns the server's SELECT VERSION(), e.g. "10.11.19-MariaDB-0+deb12u1".
func (s *Server) Version() string { return s.version }

// MariaDB reports whether the server is MariaDB (rather than Oracle MySQL).
func (s *Server) MariaDB() bool { return s.mariadb }

// DSN returns a go-sql-driver/mysql DSN for root over TCP, with db as the
// default database (may be empty): "root@tcp(127.0.0.1:PORT)/db".
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("%s@tcp(%s)/%s", s.User(), net.JoinHostPort(s.Host(), strconv.Itoa(s.port)), db)
}

// NewDatabase creates a database with a name unique on this server, derived
// from the test's name, and drops it when the test and its subtests finish.
// It fails the test if the database cannot be created.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	return s.newDatabase(t,
		func(name string) string { return "CREATE DATABASE `" + name + "`" },
		func(name string) string { return "DROP DATABASE IF EXISTS `" + name + "`" })
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// sanitize turns a test name into a short identifier part.
func sanitize(name string) string {
	s := strings.Trim(nonIdent.ReplaceAllString(name, "_"), "_")
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.ToLower(s)
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// removeStaleDirs removes temp dirs of servers whose test process and server
// process have both gone (a test binary killed by a timeout, say). It never
// signals any process.
func removeStaleDirs(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, d := range dirs {
		owner, ok := readPID(filepath.Join(d, "owner.pid"))
		if !ok || processAlive(owner) {
			continue
		}
		if srv, ok := readPID(filepath.Join(d, "mysqld.pid")); ok && processAlive(srv) {
			continue
		}
		if srv, ok := readPID(filepath.Join(d, "data", "postmaster.pid")); ok && processAlive(srv) {
			continue
		}
		os.RemoveAll(d)
	}
}

// readPID reads the process id on the first line of path (postmaster.pid
// holds more lines).
func readPID(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	return pid, err == nil && pid > 0
}

// shared is the one MariaDB server of this test binary.
var shared sharedServer[*Server]

// Shared returns the test binary's server, starting it on first use. It
// skips the test when no server binary exists (ErrNoServerBinary) and fails
// it when a binary exists but the server does not start. Stop it with Main.
func Shared(t testing.TB) *Server {
	t.Helper()
	return shared.get(t, Start, ErrNoServerBinary)
}

// atExit holds the functions AtExit registers.
var atExit struct {
	sync.Mutex
	funcs []func()
}

// AtExit registers f to run once the package's tests have finished, in
// Main, before the shared server stops: to remove what several tests
// share (a loaded template database file) instead of leaving it in the
// temporary directory.
func AtExit(f func()) {
	atExit.Lock()
	defer atExit.Unlock()
	atExit.funcs = append(atExit.funcs, f)
}

// Main runs the tests of a package and then stops the shared servers
// (MariaDB, PostgreSQL), those that were started. Use it as the package's TestMain:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
//
// It exits with m.Run's code, or 1 when the tests passed but the server did
// not stop cleanly.
func Main(m *testing.M) {
	code := m.Run()
	atExit.Lock()
	for _, f := range atExit.funcs {
		f()
	}
	atExit.Unlock()
	if err := errors.Join(shared.stop(), sharedPG.stop()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
