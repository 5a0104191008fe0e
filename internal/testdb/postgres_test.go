package testdb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPostgresStartStop starts a private PostgreSQL (not the shared one),
// checks where it listens and what it runs with, and that Stop leaves no
// process and no dir.
func TestPostgresStartStop(t *testing.T) {
	if _, err := findPostgres(); errors.Is(err, ErrNoPostgresBinary) {
		t.Skip(err.Error())
	}
	t0 := time.Now()
	srv, err := StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("started PostgreSQL %s on 127.0.0.1:%d in %v", srv.Version(), srv.Port(), time.Since(t0).Round(time.Millisecond))
	pid, dir := srv.cmd.Process.Pid, srv.dir
	stopped := false
	defer func() {
		if !stopped {
			if err := srv.Stop(); err != nil {
				t.Error(err)
			}
		}
	}()
	if srv.Port() == 5432 || srv.Port() <= 0 {
		t.Errorf("Port() = %d, want a free port other than 5432", srv.Port())
	}
	if want := "postgres://postgres@127.0.0.1:" + strconv.Itoa(srv.Port()) + "/x?sslmode=disable"; srv.DSN("x") != want {
		t.Errorf("DSN(x) = %q, want %q", srv.DSN("x"), want)
	}
	ctx := context.Background()
	db, err := sql.Open("pgx", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	var datadir, fsync, listen string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('data_directory'), current_setting('fsync'), current_setting('listen_addresses')").
		Scan(&datadir, &fsync, &listen); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if !strings.HasPrefix(datadir, dir) || fsync != "off" || listen != "127.0.0.1" {
		t.Errorf("data_directory, fsync, listen_addresses = %q, %q, %q; want inside %s, off, 127.0.0.1", datadir, fsync, listen, dir)
	}
	stopped = true
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := processExists(pid); err != nil {
		t.Errorf("postgres %d still exists after Stop (%v)", pid, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Stop (stat: %v)", dir, err)
	}
}

func TestSharedPostgresNewDatabase(t *testing.T) {
	srv := SharedPostgres(t)
	ctx := context.Background()
	exists := func(name string) bool {
		var n int
		if err := srv.Admin().QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	var name string
	t.Run("sub/test", func(t *testing.T) {
		name = srv.NewDatabase(t)
		db, err := sql.Open("pgx", srv.DSN(name))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		if !exists(name) {
			t.Errorf("database %q does not exist", name)
		}
	})
	if exists(name) {
		t.Errorf("database %q still exists after its test's cleanup", name)
	}
}

func TestVersionOf(t *testing.T) {
	for dir, want := range map[string]int{
		"/usr/lib/postgresql/15/bin": 15, "/usr/pgsql-16/bin": 16, "/usr/local/pgsql/bin": 0,
	} {
		if got := versionOf(dir); got != want {
			t.Errorf("versionOf(%q) = %d, want %d", dir, got, want)
		}
	}
}

func TestNoPostgresBinary(t *testing.T) {
	t.Setenv(EnvPostgres, "")
	t.Setenv("PATH", t.TempDir())
	saved := postgresDirs
	postgresDirs = []string{t.TempDir()}
	defer func() { postgresDirs = saved }()
	if _, err := StartPostgres(); !errors.Is(err, ErrNoPostgresBinary) {
		t.Fatalf("StartPostgres without a binary = %v, want ErrNoPostgresBinary", err)
	}
}
