package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"vmbench/internal/fakesql"
)

// The runner's tests use internal/fakesql as the driver: every statement
// succeeds (a ROLLBACK fails when asked to), each is logged with its
// context, and connections are counted, so what the runner does with its
// connection is seen without a server. Attempts fail with real driver
// errors chosen by the test, and connects fail through flakyConnector.

// flakyConnector fails the next connects with the errors in fails.
type flakyConnector struct {
	*fakesql.Connector
	mu    sync.Mutex
	fails []error
}

func (f *flakyConnector) Connect(ctx context.Context) (driver.Conn, error) {
	f.mu.Lock()
	if len(f.fails) > 0 {
		err := f.fails[0]
		f.fails = f.fails[1:]
		f.mu.Unlock()
		return nil, err
	}
	f.mu.Unlock()
	return f.Connector.Connect(ctx)
}

// txFixture is a runner on a fake pool with hooks that record.
type txFixture struct {
	fc       *flakyConnector
	r        *TxRunner
	events   []TxEvent
	prepared []*sql.Conn // Prepare's connections, in order
	released int
	sleeps   []time.Duration
	clock    time.Time
}

func newTxFixture(t *testing.T, p TxPolicy) *txFixture {
	t.Helper()
	f := &txFixture{fc: &flakyConnector{Connector: &fakesql.Connector{}}, clock: time.Unix(0, 0)}
	pool := sql.OpenDB(f.fc)
	t.Cleanup(func() { pool.Close() })
	db := &DB{DB: pool, Dialect: MySQL.Dialect(), Config: Config{Driver: MySQL, Host: "fake", User: "u"}}
	f.r = NewTxRunner(db, p, TxHooks{
		Prepare: func(_ context.Context, conn *sql.Conn) error { f.prepared = append(f.prepared, conn); return nil },
		Release: func(*sql.Conn) { f.released++ },
		Observe: func(e TxEvent) { f.events = append(f.events, e) },
	})
	// The backoff's clock: sleeping advances it, nothing waits.
	f.r.now = func() time.Time { return f.clock }
	f.r.sleep = func(ctx context.Context, d time.Duration) error {
		f.sleeps = append(f.sleeps, d)
		f.clock = f.clock.Add(d)
		return ctx.Err()
	}
	if err := f.r.Connect(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.r.Close)
	return f
}

// script returns an attempt that runs one UPDATE and then fails with the
// next of errs (nil: succeeds), and the count of attempts made.
func script(errs ...error) (func(*sql.Conn) error, *int) {
	n := new(int)
	return func(conn *sql.Conn) error {
		*n++
		if _, err := conn.ExecContext(context.Background(), "UPDATE t SET v = v + 1"); err != nil {
			return err
		}
		if *n > len(errs) {
			return nil
		}
		return errs[*n-1]
	}, n
}

// kinds renders events as "failed:restart", "restarting:reconnect",
// "reconnected", for comparison.
func kinds(evs []TxEvent) []string {
	var s []string
	for _, e := range evs {
		a := map[TxAction]string{TxRestart: "restart", TxReconnect: "reconnect", TxGiveUp: "give_up", TxEnd: "end"}[e.Action]
		switch e.Kind {
		case TxFailed:
			s = append(s, "failed:"+a)
		case TxRestarting:
			s = append(s, "restarting:"+a)
		case TxReconnected:
			s = append(s, "reconnected")
		}
	}
	return s
}

func statements(fc *flakyConnector) []string {
	var s []string
	for _, st := range fc.Log() {
		s = append(s, fmt.Sprintf("%d %s", st.Conn, st.SQL))
	}
	return s
}

var (
	errDeadlock  = myErr(1213, "Deadlock found when trying to get lock; try restarting transaction")
	errLockWait  = myErr(1205, "Lock wait timeout exceeded; try restarting transaction")
	errDupKey    = myErr(1062, "Duplicate entry '1' for key 'PRIMARY'")
	errConnReset = &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	errRefused   = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
)

func TestTxRunnerRestartsAfterRetry(t *testing.T) {
	f := newTxFixture(t, TxPolicy{MaxRestarts: 5, MaxReconnects: 5})
	attempt, n := script(errDeadlock, fmt.Errorf("UPDATE: %w", errLockWait))
	if err := f.r.Run(t.Context(), attempt); err != nil {
		t.Fatal(err)
	}
	if *n != 3 {
		t.Errorf("%d attempts, want 3", *n)
	}
	want := []string{"failed:restart", "restarting:restart", "failed:restart", "restarting:restart"}
	if got := kinds(f.events); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	// ROLLBACK after each failure, all on the first connection.
	wantSQL := []string{"1 UPDATE t SET v = v + 1", "1 ROLLBACK", "1 UPDATE t SET v = v + 1", "1 ROLLBACK", "1 UPDATE t SET v = v + 1"}
	if got := statements(f.fc); !slices.Equal(got, wantSQL) {
		t.Errorf("statements %q, want %q", got, wantSQL)
	}
	for _, st := range f.fc.Log() {
		if st.SQL == "ROLLBACK" && !st.HasDeadline {
			t.Errorf("ROLLBACK without RollbackTimeout's deadline")
		}
	}
}

func TestTxRunnerGivesUp(t *testing.T) {
	deadlock := errDeadlock
	tests := []struct {
		name   string
		p      TxPolicy
		errs   []error
		events []string
		gu     GiveUpError
	}{
		{"restarts", TxPolicy{MaxRestarts: 2, MaxReconnects: -1}, []error{deadlock, deadlock, deadlock},
			[]string{"failed:restart", "restarting:restart", "failed:restart", "restarting:restart", "failed:give_up"},
			GiveUpError{Class: Retry, Restarts: 2}},
		{"no restarts", TxPolicy{MaxRestarts: 0, MaxReconnects: -1}, []error{deadlock},
			[]string{"failed:give_up"}, GiveUpError{Class: Retry}},
		{"reconnects", TxPolicy{MaxRestarts: -1, MaxReconnects: 1}, []error{errConnReset, errConnReset},
			[]string{"failed:reconnect", "reconnected", "restarting:reconnect", "failed:give_up"},
			GiveUpError{Class: ConnLost, Reconnects: 1}},
		// MaxFailures counts both kinds together: the third failure gives up.
		{"failures in all", TxPolicy{MaxRestarts: -1, MaxReconnects: -1, MaxFailures: 3}, []error{deadlock, errConnReset, deadlock},
			[]string{"failed:restart", "restarting:restart", "failed:reconnect", "reconnected", "restarting:reconnect", "failed:give_up"},
			GiveUpError{Class: Retry, Restarts: 1, Reconnects: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newTxFixture(t, tt.p)
			attempt, _ := script(tt.errs...)
			err := f.r.Run(t.Context(), attempt)
			var gu *GiveUpError
			if !errors.As(err, &gu) {
				t.Fatalf("Run: %v, want a *GiveUpError", err)
			}
			last := tt.errs[len(tt.errs)-1]
			if gu.Err != last || gu.Class != tt.gu.Class || gu.Restarts != tt.gu.Restarts || gu.Reconnects != tt.gu.Reconnects {
				t.Errorf("GiveUpError %+v, want %+v with the last error", *gu, tt.gu)
			}
			if Classify(err) != Classify(last) || Code(err) != Code(last) {
				t.Errorf("the GiveUpError does not unwrap to the last error: class %v code %d", Classify(err), Code(err))
			}
			if got := kinds(f.events); !slices.Equal(got, tt.events) {
				t.Errorf("events %v, want %v", got, tt.events)
			}
			if log := statements(f.fc); gu.Class == Retry && log[len(log)-1] != fmt.Sprintf("%d ROLLBACK", len(f.prepared)) {
				t.Errorf("statements %q: no ROLLBACK after the last failure", log)
			}
		})
	}
}

// TestTxRunnerEnds: an error that is not restartable ends the transaction
// after a ROLLBACK, the connection kept; Restartable may admit it.
func TestTxRunnerEnds(t *testing.T) {
	dup := errDupKey
	f := newTxFixture(t, TxPolicy{MaxRestarts: 5, MaxReconnects: 5})
	attempt, n := script(dup)
	if err := f.r.Run(t.Context(), attempt); err != dup {
		t.Fatalf("Run: %v, want the duplicate key error as it is", err)
	}
	if got, want := kinds(f.events), []string{"failed:end"}; *n != 1 || !slices.Equal(got, want) {
		t.Errorf("%d attempts, events %v; want 1, %v", *n, got, want)
	}
	if f.r.Conn() == nil || statements(f.fc)[1] != "1 ROLLBACK" {
		t.Errorf("connection %v, statements %q: want it rolled back and kept", f.r.Conn(), statements(f.fc))
	}

	f = newTxFixture(t, TxPolicy{MaxRestarts: 5, MaxReconnects: 5,
		Restartable: func(err error, c Class) bool { return c == Retry || Code(err) == 1062 }})
	attempt, n = script(dup)
	if err := f.r.Run(t.Context(), attempt); err != nil || *n != 2 {
		t.Errorf("with 1062 restartable: %v after %d attempts, want success after 2", err, *n)
	}
}

// TestTxRunnerReconnects: a lost connection is discarded (its state is
// unknown) and replaced, Prepare runs on the new one, Release on the old.
func TestTxRunnerReconnects(t *testing.T) {
	f := newTxFixture(t, TxPolicy{MaxRestarts: 5, MaxReconnects: 5, ReconnectMin: 10 * time.Millisecond, ReconnectMax: time.Second})
	f.fc.fails = []error{errRefused, errRefused} // the server comes back after two tries
	attempt, n := script(fmt.Errorf("SELECT: %w", errConnReset))
	if err := f.r.Run(t.Context(), attempt); err != nil {
		t.Fatal(err)
	}
	if want := []string{"failed:reconnect", "reconnected", "restarting:reconnect"}; *n != 2 || !slices.Equal(kinds(f.events), want) {
		t.Errorf("%d attempts, events %v; want 2, %v", *n, kinds(f.events), want)
	}
	if len(f.prepared) != 2 || f.prepared[1] != f.r.Conn() || f.released != 1 {
		t.Errorf("prepared %d connections, released %d; want 2 and 1, the runner on the second", len(f.prepared), f.released)
	}
	if opened, closed := f.fc.Counts(); opened != 2 || closed != 1 {
		t.Errorf("%d connections opened, %d closed; want 2 and 1 (the lost one discarded)", opened, closed)
	}
	if want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}; !slices.Equal(f.sleeps, want) {
		t.Errorf("backoff %v, want %v", f.sleeps, want)
	}
}

// TestTxRunnerRollbackFails: after a Retry error whose ROLLBACK fails, the
// connection is discarded and replaced before the restart.
func TestTxRunnerRollbackFails(t *testing.T) {
	f := newTxFixture(t, TxPolicy{MaxRestarts: 5, MaxReconnects: 5})
	f.fc.FailRollback = true
	attempt, _ := script(errDeadlock)
	if err := f.r.Run(t.Context(), attempt); err != nil {
		t.Fatal(err)
	}
	if want := []string{"failed:restart", "reconnected", "restarting:restart"}; !slices.Equal(kinds(f.events), want) {
		t.Errorf("events %v, want %v", kinds(f.events), want)
	}
	if opened, closed := f.fc.Counts(); opened != 2 || closed != 1 {
		t.Errorf("%d connections opened, %d closed; want 2 and 1 (discarded)", opened, closed)
	}
}

// TestTxRunnerCanceled: a context cancelled during an attempt returns
// ctx.Err() after a ROLLBACK under a live context with a deadline.
func TestTxRunnerCanceled(t *testing.T) {
	f := newTxFixture(t, TxPolicy{MaxRestarts: 5, MaxReconnects: 5})
	ctx, cancel := context.WithCancel(t.Context())
	err := f.r.Run(ctx, func(conn *sql.Conn) error {
		cancel()
		_, err := conn.ExecContext(ctx, "UPDATE t SET v = 1")
		return err
	})
	if err != context.Canceled {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	log := f.fc.Log()
	if last := log[len(log)-1]; last.SQL != "ROLLBACK" || last.CtxErr != nil || !last.HasDeadline {
		t.Errorf("last statement %+v, want ROLLBACK under a live context with a deadline", last)
	}
	if got, want := kinds(f.events), []string{"failed:end"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// backoffFixture is a txFixture whose pool keeps no idle connections: a
// released one is closed, so each connect reaches the connector.
func backoffFixture(t *testing.T, p TxPolicy) *txFixture {
	f := newTxFixture(t, p)
	f.r.db.SetMaxIdleConns(0)
	return f
}

var backoffPolicy = TxPolicy{MaxRestarts: 5, MaxReconnects: 5, ReconnectMin: 10 * time.Millisecond, ReconnectMax: 50 * time.Millisecond}

// TestTxRunnerReconnectBackoff: the waits double from ReconnectMin up to
// ReconnectMax; ReconnectTimeout ends the reconnect with a
// *ReconnectError; a runner left without a connection reconnects on its
// next Run.
func TestTxRunnerReconnectBackoff(t *testing.T) {
	p := backoffPolicy
	ms := func(ns ...int) (d []time.Duration) {
		for _, n := range ns {
			d = append(d, time.Duration(n)*time.Millisecond)
		}
		return d
	}
	t.Run("capped", func(t *testing.T) {
		f := backoffFixture(t, p)
		f.fc.fails = slices.Repeat([]error{errRefused}, 6)
		if err := f.r.Reconnect(t.Context()); err != nil {
			t.Fatal(err)
		}
		if want := ms(10, 20, 40, 50, 50, 50); !slices.Equal(f.sleeps, want) {
			t.Errorf("backoff %v, want %v", f.sleeps, want)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		q := p
		q.ReconnectTimeout = 100 * time.Millisecond
		f := backoffFixture(t, q)
		f.fc.fails = slices.Repeat([]error{errRefused}, 10)
		err := f.r.Run(t.Context(), func(*sql.Conn) error { return errConnReset })
		var re *ReconnectError
		if !errors.As(err, &re) || re.Timeout != q.ReconnectTimeout || re.Cause != errConnReset || !IsConnLost(err) {
			t.Fatalf("Run: %v, want a *ReconnectError after 100ms caused by the reset", err)
		}
		if want := "reconnecting for 100ms: connecting to mysql://u@fake"; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("error %q, want it to start %q", err, want)
		}
		// 10+20+40 = 70 ms waited; 70+50 would pass the 100 ms.
		if want := ms(10, 20, 40); !slices.Equal(f.sleeps, want) {
			t.Errorf("backoff %v, want %v", f.sleeps, want)
		}
		if f.r.Conn() != nil {
			t.Fatal("a connection after the failed reconnect")
		}
		// The next Run finds no connection: it fails the first attempt as
		// a lost connection (without calling the function) and reconnects.
		f.fc.fails, f.events = nil, nil
		attempt, n := script()
		if err := f.r.Run(t.Context(), attempt); err != nil || *n != 1 || f.r.Conn() == nil {
			t.Errorf("the next Run: %v after %d calls, want success after 1", err, *n)
		}
		if want := []string{"failed:reconnect", "reconnected", "restarting:reconnect"}; !slices.Equal(kinds(f.events), want) {
			t.Errorf("events %v, want %v", kinds(f.events), want)
		}
	})
}

// TestTxRunnerReconnectStops: a connect error of a class KeepConnecting
// refuses ends the reconnect at once with a *ReconnectError, and so does
// the context.
func TestTxRunnerReconnectStops(t *testing.T) {
	p := backoffPolicy
	t.Run("refused class", func(t *testing.T) {
		f := backoffFixture(t, p)
		denied := myErr(1045, "Access denied for user 'u'")
		f.fc.fails = []error{denied}
		err := f.r.Reconnect(t.Context())
		var re *ReconnectError
		if !errors.As(err, &re) || re.Timeout != 0 || !IsAccessDenied(err) || len(f.sleeps) != 0 {
			t.Fatalf("Reconnect: %v after %v, want a *ReconnectError at once", err, f.sleeps)
		}
		// KeepConnecting decides which classes are tried again.
		f.r.Policy.KeepConnecting = func(c Class) bool { return c != Fatal }
		f.fc.fails = []error{myErr(1040, "Too many connections"), denied}
		if err := f.r.Reconnect(t.Context()); !IsAccessDenied(err) || len(f.sleeps) != 1 {
			t.Errorf("Reconnect: %v after %v, want access denied after one wait", err, f.sleeps)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		f := backoffFixture(t, p)
		ctx, cancel := context.WithCancel(t.Context())
		f.fc.fails = slices.Repeat([]error{errRefused}, 3)
		f.r.sleep = func(context.Context, time.Duration) error { cancel(); return ctx.Err() }
		if err := f.r.Reconnect(ctx); err != context.Canceled {
			t.Errorf("Reconnect: %v, want context.Canceled", err)
		}
	})
}

// TestTxRunnerPrepareFails: Connect hands a connection whose Prepare
// failed back to the pool, after Release.
func TestTxRunnerPrepareFails(t *testing.T) {
	fc := &fakesql.Connector{}
	pool := sql.OpenDB(fc)
	defer pool.Close()
	boom := errors.New("preparing: boom")
	released := 0
	r := NewTxRunner(&DB{DB: pool, Dialect: MySQL.Dialect()}, TxPolicy{}, TxHooks{
		Prepare: func(context.Context, *sql.Conn) error { return boom },
		Release: func(*sql.Conn) { released++ },
	})
	if err := r.Connect(t.Context()); err != boom || r.Conn() != nil || released != 1 {
		t.Errorf("Connect: %v, conn %v, released %d; want the Prepare error, none, 1", err, r.Conn(), released)
	}
	if _, closed := fc.Counts(); closed != 0 {
		t.Errorf("%d connections closed, want 0 (pooled)", closed)
	}
}
