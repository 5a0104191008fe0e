package testdb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

// TestStartStop starts a private server (not the shared one), queries it over
// TCP and the socket, and checks that Stop leaves no process and no dir.
func TestStartStop(t *testing.T) {
	if _, err := findServer(); errors.Is(err, ErrNoServerBinary) {
		t.Skip(err.Error())
	}
	t0 := time.Now()
	srv, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started %s on 127.0.0.1:%d in %v", srv.Version(), srv.Port(), time.Since(t0).Round(time.Millisecond))
	pid := srv.cmd.Process.Pid
	dir := srv.dir
	stopped := false
	defer func() {
		if !stopped {
			if err := srv.Stop(); err != nil {
				t.Error(err)
			}
		}
	}()

	if srv.Host() != "127.0.0.1" || srv.User() != "root" || srv.Port() <= 0 || srv.Port() > 65535 {
		t.Errorf("Host/User/Port = %q/%q/%d", srv.Host(), srv.User(), srv.Port())
	}
	if !strings.HasPrefix(srv.Socket(), dir) {
		t.Errorf("Socket() = %q, not inside %q", srv.Socket(), dir)
	}
	want := "root@tcp(127.0.0.1:" + strconv.Itoa(srv.Port()) + ")/x"
	if got := srv.DSN("x"); got != want {
		t.Errorf("DSN(x) = %q, want %q", got, want)
	}

	ctx := context.Background()
	for _, dsn := range []string{srv.DSN(""), "root@unix(" + srv.Socket() + ")/"} {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
			t.Errorf("%s: SELECT VERSION(): %v", dsn, err)
		} else if v != srv.Version() {
			t.Errorf("%s: VERSION() = %q, want %q", dsn, v, srv.Version())
		}
		db.Close()
	}

	// Small-buffer settings are in force and the machine's option files were
	// not read.
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	var bp int64
	var datadir string
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_buffer_pool_size, @@datadir").Scan(&bp, &datadir); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if bp > 128<<20 {
		t.Errorf("innodb_buffer_pool_size = %d, want the small test size", bp)
	}
	if !strings.HasPrefix(datadir, dir) {
		t.Errorf("datadir = %q, not inside %q", datadir, dir)
	}

	stopped = true
	t1 := time.Now()
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("stopped in %v", time.Since(t1).Round(time.Millisecond))
	if err := processExists(pid); err != nil {
		t.Errorf("server process %d still exists after Stop (%v)", pid, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Stop (stat: %v)", dir, err)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestSharedNewDatabase(t *testing.T) {
	srv := Shared(t)
	if again := Shared(t); again != srv {
		t.Fatal("Shared returned a second server")
	}
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	exists := func(name string) bool {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	var names []string
	t.Run("sub/test with spaces", func(t *testing.T) {
		a := srv.NewDatabase(t)
		b := srv.NewDatabase(t)
		names = append(names, a, b)
		if a == b {
			t.Fatalf("NewDatabase returned %q twice", a)
		}
		for _, n := range []string{a, b} {
			if !exists(n) {
				t.Errorf("database %q does not exist", n)
			}
			if len(n) > 64 {
				t.Errorf("database name %q is longer than 64", n)
			}
		}
		// The name works in a DSN and as the default database.
		tdb, err := sql.Open("mysql", srv.DSN(a))
		if err != nil {
			t.Fatal(err)
		}
		defer tdb.Close()
		if _, err := tdb.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
	})
	for _, n := range names {
		if exists(n) {
			t.Errorf("database %q still exists after its test's cleanup", n)
		}
	}
}

func TestStartBadEnvServer(t *testing.T) {
	t.Setenv(EnvServer, filepath.Join(t.TempDir(), "no-such-mariadbd"))
	if _, err := Start(); err == nil || !strings.Contains(err.Error(), EnvServer) {
		t.Fatalf("Start with a missing %s = %v, want an error naming it", EnvServer, err)
	}
}

func TestNoServerBinary(t *testing.T) {
	t.Setenv(EnvServer, "")
	t.Setenv("PATH", t.TempDir())
	saved := searchDirs
	searchDirs = []string{t.TempDir()}
	defer func() { searchDirs = saved }()
	if _, err := Start(); !errors.Is(err, ErrNoServerBinary) {
		t.Fatalf("Start without a binary = %v, want ErrNoServerBinary", err)
	}
	const want = "internal/testdb: no MariaDB/MySQL server binary (mariadbd/mysqld) found; install mariadb-server (make test does this when run as root)"
	if ErrNoServerBinary.Error() != want {
		t.Errorf("skip message %q, want %q", ErrNoServerBinary, want)
	}
}

func TestRemoveStaleDirs(t *testing.T) {
	base := t.TempDir()
	mk := func(name, owner string) string {
		d := filepath.Join(base, dirPrefix+name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(d, "owner.pid"), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	// A pid far above pid_max's default is never a live process.
	dead := mk("dead", "999999999")
	live := mk("live", strconv.Itoa(os.Getpid()))
	unknown := mk("unknown", "")
	removeStaleDirs(base)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("dir of a dead owner survived")
	}
	for _, d := range []string{live, unknown} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"TestX":                  "testx",
		"TestX/sub test#01":      "testx_sub_test_01",
		strings.Repeat("A", 100): strings.Repeat("a", 40),
		"Test/ünïcode/../../etc": "test_n_code_etc",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}
