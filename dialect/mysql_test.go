package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vmbench/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// Integration tests against a throwaway MariaDB from internal/testdb. None
// runs in parallel: some change global server variables.

var userSeq atomic.Int64

// serverConfig returns a Config for the shared server's root account and db.
func serverConfig(srv *testdb.Server, db string) Config {
	return Config{Driver: MySQL, Host: srv.Host(), Port: srv.Port(), User: srv.User(), Database: db}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustOpen(t *testing.T, ctx context.Context, cfg Config) *DB {
	t.Helper()
	db, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open(%s): %v", cfg, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, ctx context.Context, e interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if _, err := e.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func mustConn(t *testing.T, ctx context.Context, db *DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newUser creates an account limited to dbName that is not SUPER (root may
// use one connection beyond max_connections) and returns its Config.
func newUser(t *testing.T, ctx context.Context, srv *testdb.Server, admin *DB, dbName, options string) Config {
	t.Helper()
	user := fmt.Sprintf("vmbench_u%d", userSeq.Add(1))
	mustExec(t, ctx, admin,
		fmt.Sprintf("CREATE USER '%s'@'127.0.0.1' IDENTIFIED BY 'pw' %s", user, options),
		fmt.Sprintf("GRANT ALL PRIVILEGES ON `%s`.* TO '%s'@'127.0.0.1'", dbName, user))
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), fmt.Sprintf("DROP USER IF EXISTS '%s'@'127.0.0.1'", user)); err != nil {
			t.Errorf("dropping user %s: %v", user, err)
		}
	})
	cfg := serverConfig(srv, dbName)
	cfg.User, cfg.Password = user, "pw"
	return cfg
}

func TestMySQLOpen(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	name := srv.NewDatabase(t)
	db := mustOpen(t, ctx, serverConfig(srv, name))
	if db.Dialect.Driver() != MySQL || db.Config.Database != name {
		t.Errorf("DB dialect %v, config %s", db.Dialect.Driver(), db.Config)
	}
	d := db.Dialect
	mustExec(t, ctx, db,
		"CREATE TABLE "+d.QuoteIdent("sbtest1")+" (id "+d.AutoIncrementPK()+", k INTEGER NOT NULL DEFAULT 0)"+d.TableOptions(),
		"INSERT INTO sbtest1 (k) VALUES (10), (20), (30)",
		d.CreateIndex("sbtest1", "k_1", "k"),
	)
	var maxID, n int
	if err := db.QueryRowContext(ctx, "SELECT MAX(id), COUNT(*) FROM sbtest1 FORCE INDEX (PRIMARY) WHERE k >= "+d.Placeholder(1), 10).Scan(&maxID, &n); err != nil {
		t.Fatal(err)
	}
	if maxID != 3 || n != 3 {
		t.Errorf("auto-increment ids: max %d count %d, want 3 3", maxID, n)
	}
	var engine string
	if err := db.QueryRowContext(ctx, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'sbtest1'", name).Scan(&engine); err != nil || engine != "InnoDB" {
		t.Errorf("engine %q, %v", engine, err)
	}

	// parseTime=true: DATETIME scans into time.Time.
	var now time.Time
	if err := db.QueryRowContext(ctx, "SELECT NOW()").Scan(&now); err != nil {
		t.Errorf("SELECT NOW() into time.Time: %v", err)
	}

	// interpolateParams=false: a query with arguments is prepared on the
	// server (Com_stmt_prepare grows), as sysbench's --db-ps-mode=auto does.
	c := mustConn(t, ctx, db)
	prepares := func() int {
		var name string
		var v int
		if err := c.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Com_stmt_prepare'").Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := prepares()
	var k int
	if err := c.QueryRowContext(ctx, "SELECT k FROM sbtest1 WHERE id = ?", 2).Scan(&k); err != nil || k != 20 {
		t.Fatalf("point select: %d, %v", k, err)
	}
	if after := prepares(); after <= before {
		t.Errorf("Com_stmt_prepare %d -> %d: the query was not prepared on the server", before, after)
	}

	mustExec(t, ctx, db, d.DropTableIfExists("sbtest1"), d.DropTableIfExists("sbtest1"))

	// The Unix socket works too.
	sc := serverConfig(srv, name)
	sc.Host, sc.Port, sc.Socket = "localhost", 0, srv.Socket()
	mustOpen(t, ctx, sc)
}

func TestMySQLOpenErrors(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)

	wrongPass := serverConfig(srv, "")
	wrongPass.Password = "hunter2"
	unknownDB := serverConfig(srv, "vmbench_no_such_db")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	refused := serverConfig(srv, "")
	refused.Port = closedPort

	tests := []struct {
		name  string
		cfg   Config
		class Class
		code  int
		want  string
	}{
		{"access denied", wrongPass, Fatal, 1045, "check --mysql-user and --mysql-password"},
		{"unknown database", unknownDB, Fatal, 1049, "or check --mysql-db"},
		{"refused", refused, ConnLost, 0, fmt.Sprintf("is a server listening on 127.0.0.1 port %d?", closedPort)},
		{"invalid config", Config{Driver: MySQL}, Fatal, 0, "--mysql-host: empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.cfg)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
			if Classify(err) != tt.class || Code(err) != tt.code {
				t.Errorf("Open error %q: class %v code %d, want %v %d", err, Classify(err), Code(err), tt.class, tt.code)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open error %q does not contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Open error shows the password: %q", err)
			}
		})
	}
}

func TestMySQLEnsureDropDatabase(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	admin := mustOpen(t, ctx, serverConfig(srv, ""))
	name := "vmbench_ens`ure" // a backtick exercises quoting
	exists := func() bool {
		var n int
		if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	cfg := serverConfig(srv, name)
	t.Cleanup(func() {
		if err := DropDatabase(context.Background(), cfg); err != nil {
			t.Errorf("DropDatabase in cleanup: %v", err)
		}
	})

	if _, err := Open(ctx, cfg); Code(err) != 1049 {
		t.Fatalf("Open before EnsureDatabase: %v, want 1049", err)
	}
	for i := 0; i < 2; i++ { // idempotent
		if err := EnsureDatabase(ctx, cfg); err != nil {
			t.Fatalf("EnsureDatabase #%d: %v", i+1, err)
		}
	}
	if !exists() {
		t.Fatal("database missing after EnsureDatabase")
	}
	mustOpen(t, ctx, cfg).Close()
	for i := 0; i < 2; i++ {
		if err := DropDatabase(ctx, cfg); err != nil {
			t.Fatalf("DropDatabase #%d: %v", i+1, err)
		}
	}
	if exists() {
		t.Fatal("database still exists after DropDatabase")
	}
	// CreateDatabase creates once, then refuses: what a caller drops
	// later is only ever what it created.
	if err := CreateDatabase(ctx, cfg); err != nil || !exists() {
		t.Fatalf("CreateDatabase: %v (exists %v)", err, exists())
	}
	if err := CreateDatabase(ctx, cfg); Code(err) != 1007 {
		t.Errorf("CreateDatabase of an existing database: %v, want error 1007", err)
	}
	if err := DropDatabase(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDatabase(ctx, cfg.WithDatabase("")); err == nil || !strings.Contains(err.Error(), "--mysql-db: empty") {
		t.Errorf("EnsureDatabase without a name: %v", err)
	}
	if err := EnsureDatabase(ctx, Config{Driver: MySQL}); err == nil {
		t.Error("EnsureDatabase of an invalid config succeeded")
	}
}

// twoRows creates table t with rows id 1 and 2 in a fresh database and
// returns two pinned connections to it.
func twoRows(t *testing.T, ctx context.Context, srv *testdb.Server) (*DB, *sql.Conn, *sql.Conn) {
	t.Helper()
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	mustExec(t, ctx, db, "CREATE TABLE t (id INTEGER NOT NULL PRIMARY KEY, v INTEGER NOT NULL) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 0), (2, 0)")
	return db, mustConn(t, ctx, db), mustConn(t, ctx, db)
}

// connID returns the server's id of a pinned connection.
func connID(t *testing.T, ctx context.Context, c *sql.Conn) int64 {
	t.Helper()
	var id int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// waitRunning waits until connection id runs a statement starting with
// prefix (information_schema.PROCESSLIST, which unlike INNODB_TRX is not a
// cache that stays stale while polled more often than every 100 ms). It
// fails the test if the statement ends (errc) first.
func waitRunning(t *testing.T, ctx context.Context, db *DB, id int64, prefix string, errc <-chan error) {
	t.Helper()
	for {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ? AND INFO LIKE CONCAT(?, '%')", id, prefix).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("connection %d never ran %q", id, prefix)
		case err := <-errc:
			t.Fatalf("the statement %q ended before it was seen running: %v", prefix, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestMySQLDeadlockIsRetry(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db, c1, c2 := twoRows(t, ctx, srv)
	d := db.Dialect

	mustExec(t, ctx, c1, d.Begin(), "UPDATE t SET v = 1 WHERE id = 1")
	mustExec(t, ctx, c2, d.Begin(), "UPDATE t SET v = 2 WHERE id = 2")
	id1 := connID(t, ctx, c1)
	errc := make(chan error, 1)
	go func() {
		_, err := c1.ExecContext(ctx, "UPDATE t SET v = 1 WHERE id = 2") // waits for c2
		errc <- err
	}()
	// Whichever of the two crossing statements asks for its lock second
	// closes the cycle, so the deadlock comes even if c1 is not waiting yet.
	waitRunning(t, ctx, db, id1, "UPDATE t SET v = 1 WHERE id = 2", errc)
	_, err2 := c2.ExecContext(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	err1 := <-errc

	// InnoDB picks one victim; the other statement succeeds.
	victim, survivor := err2, err1
	if err2 == nil {
		victim, survivor = err1, err2
	}
	if survivor != nil {
		t.Fatalf("both statements failed: %v / %v", err1, err2)
	}
	if victim == nil {
		t.Fatal("no deadlock was reported")
	}
	if Classify(victim) != Retry || Name(victim) != "deadlock" || Code(victim) != 1213 {
		t.Errorf("deadlock %q: class %v name %q code %d", victim, Classify(victim), Name(victim), Code(victim))
	}
	checkPredicates(t, victim, "deadlock")
	// The connections stay usable: roll back and run again.
	mustExec(t, ctx, c1, d.Rollback())
	mustExec(t, ctx, c2, d.Rollback())
	mustExec(t, ctx, c1, d.Begin(), "UPDATE t SET v = 3", d.Commit())
}

func TestMySQLLockWaitTimeoutIsRetry(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db, c1, c2 := twoRows(t, ctx, srv)
	d := db.Dialect

	mustExec(t, ctx, c2, "SET SESSION innodb_lock_wait_timeout = 1")
	mustExec(t, ctx, c1, d.Begin(), "UPDATE t SET v = 1 WHERE id = 1")
	mustExec(t, ctx, c2, d.Begin())
	start := time.Now()
	_, err := c2.ExecContext(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	if err == nil {
		t.Fatal("the blocked UPDATE succeeded")
	}
	if Classify(err) != Retry || Name(err) != "lock_wait_timeout" || Code(err) != 1205 {
		t.Errorf("lock wait timeout %q: class %v name %q code %d", err, Classify(err), Name(err), Code(err))
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("failed after %v, before innodb_lock_wait_timeout=1", waited)
	}
	mustExec(t, ctx, c2, d.Rollback())
	mustExec(t, ctx, c1, d.Rollback())
}

func TestMySQLKilledConnectionIsConnLost(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	admin := mustConn(t, ctx, db)

	check := func(err error) {
		t.Helper()
		if err == nil {
			t.Fatal("the killed connection still answered")
		}
		if Classify(err) != ConnLost || Name(err) != "conn_lost" {
			t.Errorf("killed connection %q (%T): class %v name %q", err, err, Classify(err), Name(err))
		}
		checkPredicates(t, err, "conn_lost")
		t.Logf("killed connection: %v (%T)", err, err)
	}

	t.Run("idle", func(t *testing.T) {
		victim := mustConn(t, ctx, db)
		mustExec(t, ctx, admin, fmt.Sprintf("KILL %d", connID(t, ctx, victim)))
		// The server closes the socket as KILL returns; allow a moment.
		var err error
		for deadline := time.Now().Add(2 * time.Second); err == nil && time.Now().Before(deadline); {
			var one int
			if err = victim.QueryRowContext(ctx, "SELECT 1").Scan(&one); err == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}
		check(err)
	})
	t.Run("in a query", func(t *testing.T) {
		victim := mustConn(t, ctx, db)
		id := connID(t, ctx, victim)
		errc := make(chan error, 1)
		go func() {
			var r int
			errc <- victim.QueryRowContext(ctx, "SELECT SLEEP(30)").Scan(&r)
		}()
		waitRunning(t, ctx, db, id, "SELECT SLEEP(30)", errc)
		mustExec(t, ctx, admin, fmt.Sprintf("KILL CONNECTION %d", id))
		check(<-errc)
	})
}

// TestMySQLTooManyConnectionsIsLimit lowers max_connections on the
// throwaway server until a new connection is refused with 1040.
func TestMySQLTooManyConnectionsIsLimit(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	name := srv.NewDatabase(t)
	adminDB := mustOpen(t, ctx, serverConfig(srv, ""))
	admin := mustConn(t, ctx, adminDB) // root: kept open to restore the limit
	userCfg := newUser(t, ctx, srv, adminDB, name, "")

	var orig, connected int
	var ignored string
	if err := admin.QueryRowContext(ctx, "SELECT @@GLOBAL.max_connections").Scan(&orig); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&ignored, &connected); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, admin, fmt.Sprintf("SET GLOBAL max_connections = %d", connected+2))
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), fmt.Sprintf("SET GLOBAL max_connections = %d", orig)); err != nil {
			t.Errorf("restoring max_connections = %d: %v", orig, err)
		}
	})

	var held []*DB
	defer func() {
		for _, db := range held {
			db.Close()
		}
	}()
	var err error
	for i := 0; i < 200; i++ { // the server's minimum max_connections is 10
		var db *DB
		if db, err = Open(ctx, userCfg); err != nil {
			break
		}
		held = append(held, db)
	}
	if err == nil {
		t.Fatal("200 connections were accepted")
	}
	if Classify(err) != Limit || Code(err) != 1040 || Name(err) != "too_many_connections" {
		t.Fatalf("after %d connections: %q: class %v code %d name %q", len(held), err, Classify(err), Code(err), Name(err))
	}
	checkPredicates(t, err, "server_limit")
	hint := "max_connections is reached (1040); raise max_connections (SET GLOBAL max_connections=N) or lower --threads"
	if LimitHint(err) == "" || !strings.Contains(err.Error(), hint) {
		t.Errorf("Open error %q lacks the hint %q", err, hint)
	}
	t.Logf("refused after %d connections: %v", len(held), err)
}

// TestMySQLUserConnectionLimits hits the global max_user_connections (1203)
// and an account's MAX_USER_CONNECTIONS (1226).
func TestMySQLUserConnectionLimits(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	name := srv.NewDatabase(t)
	adminDB := mustOpen(t, ctx, serverConfig(srv, ""))
	admin := mustConn(t, ctx, adminDB)

	fill := func(cfg Config) error {
		var held []*DB
		defer func() {
			for _, db := range held {
				db.Close()
			}
		}()
		for i := 0; i < 20; i++ {
			db, err := Open(ctx, cfg)
			if err != nil {
				return err
			}
			db.SetMaxIdleConns(1)
			held = append(held, db)
		}
		return nil
	}

	t.Run("account", func(t *testing.T) {
		cfg := newUser(t, ctx, srv, adminDB, name, "WITH MAX_USER_CONNECTIONS 2")
		err := fill(cfg)
		if Classify(err) != Limit || Code(err) != 1226 || !strings.Contains(LimitHint(err), "MAX_USER_CONNECTIONS") {
			t.Errorf("%v: class %v code %d hint %q", err, Classify(err), Code(err), LimitHint(err))
		}
	})
	t.Run("global", func(t *testing.T) {
		cfg := newUser(t, ctx, srv, adminDB, name, "")
		var orig int
		if err := admin.QueryRowContext(ctx, "SELECT @@GLOBAL.max_user_connections").Scan(&orig); err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, admin, "SET GLOBAL max_user_connections = 2")
		err := fill(cfg)
		mustExec(t, ctx, admin, fmt.Sprintf("SET GLOBAL max_user_connections = %d", orig))
		if Classify(err) != Limit || Code(err) != 1203 || !strings.Contains(LimitHint(err), "max_user_connections") {
			t.Errorf("%v: class %v code %d hint %q", err, Classify(err), Code(err), LimitHint(err))
		}
	})
}

func TestMySQLMaxPreparedStmtCountIsLimit(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	admin := mustConn(t, ctx, db)
	var orig, current int
	var ignored string
	if err := admin.QueryRowContext(ctx, "SELECT @@GLOBAL.max_prepared_stmt_count").Scan(&orig); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&ignored, &current); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, admin, fmt.Sprintf("SET GLOBAL max_prepared_stmt_count = %d", current+3))
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), fmt.Sprintf("SET GLOBAL max_prepared_stmt_count = %d", orig)); err != nil {
			t.Errorf("restoring max_prepared_stmt_count = %d: %v", orig, err)
		}
	})

	c := mustConn(t, ctx, db)
	var stmts []*sql.Stmt
	defer func() {
		for _, s := range stmts {
			s.Close()
		}
	}()
	var err error
	for i := 0; i < 50; i++ {
		var s *sql.Stmt
		if s, err = c.PrepareContext(ctx, fmt.Sprintf("SELECT %d + ?", i)); err != nil {
			break
		}
		stmts = append(stmts, s)
	}
	if Classify(err) != Limit || Code(err) != 1461 || Name(err) != "max_prepared_stmt_count" {
		t.Fatalf("after %d statements: %v: class %v code %d name %q", len(stmts), err, Classify(err), Code(err), Name(err))
	}
	if !strings.Contains(LimitHint(err), "9 x tables + 2") {
		t.Errorf("hint %q", LimitHint(err))
	}
}

func TestMySQLCanceledQuery(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, ""))
	qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err := db.ExecContext(qctx, "SELECT SLEEP(5)")
	if Classify(err) != Canceled || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("canceled query: %v (%T): class %v", err, err, Classify(err))
	}
}
