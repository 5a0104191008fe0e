package sysbench

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
)

// backendExitBound bounds how long a closed session's backend may take to
// leave pg_stat_activity: it exits when it reads the client's Terminate
// or the end of its socket, milliseconds after the client closes it. A
// backend still waiting for a lock reads neither and stays.
const backendExitBound = 15 * time.Second

// childRunEnv names the variable that makes TestCancelledRunChild run:
// the JSON of a childRun.
const childRunEnv = "VMBENCH_TEST_CANCELLED_RUN"

// childRun is what TestCancelledRunChild runs: an oltp_update_index run
// of 2 threads on sbtest1 of 10 rows in Database, its sessions named App,
// ended by --time (2 s, a graceful stop of 100 ms) or, Interrupt, by
// cancelling its context (Ctrl-C) once both threads wait for a lock.
type childRun struct {
	Host, User, Database, App string
	Port                      int
	Interrupt                 bool
}

// TestCancelledRunLeavesNoBackendPostgres: a run whose every statement
// waits for row locks that another session holds, ended by --time (its
// graceful stop runs out) or by Ctrl-C (its context cancelled), in a
// process that exits as soon as the run has returned, as vmbench does,
// leaves no backend of its own behind while the other session still holds
// the locks: the server cancelled the waiting statements (a
// CancelRequest) before the run returned, and the connections were
// rolled back and closed. The run's sessions are found by their
// application_name.
func TestCancelledRunLeavesNoBackendPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs in a child process")
	}
	for _, interrupt := range []bool{false, true} {
		name := map[bool]string{false: "time", true: "interrupt"}[interrupt]
		t.Run(name, func(t *testing.T) {
			ctx := ctxT(t)
			c := pgConfig(t, UpdateIndex)
			c.Tables, c.TableSize = 1, 10
			prepareAndLock(t, ctx, c)
			admin := openT(t, c)
			cr := childRun{Host: c.Conn.Host, Port: c.Conn.Port, User: c.Conn.User, Database: c.Conn.Database,
				App: "vmbench-leak-" + name, Interrupt: interrupt}
			b, err := json.Marshal(cr)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCancelledRunChild$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), childRunEnv+"="+string(b))
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "both threads waited for a lock") {
				t.Fatalf("child run: %v\n%s", err, out)
			}
			if left := waitBackendsGone(ctx, admin, cr.App); len(left) > 0 {
				t.Errorf("%d backends of the run after its process exited, with the locks still held:\n%s\nthe run's output:\n%s",
					len(left), strings.Join(left, "\n"), out)
			}
		})
	}
}

// TestCancelledRunChild is the child process of
// TestCancelledRunLeavesNoBackendPostgres: it runs the childRun of
// $VMBENCH_TEST_CANCELLED_RUN and exits as soon as the run returns,
// status 0 when the run ended as planned with both threads seen waiting
// for a lock. Without the variable it is skipped.
func TestCancelledRunChild(t *testing.T) {
	raw := os.Getenv(childRunEnv)
	if raw == "" {
		t.Skip("the child process of TestCancelledRunLeavesNoBackendPostgres")
	}
	var cr childRun
	if err := json.Unmarshal([]byte(raw), &cr); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.Workload, c.Tables, c.TableSize, c.Threads, c.Events, c.Time = UpdateIndex, 1, 10, 2, 0, 0
	c.Conn = dialect.Config{Driver: dialect.Postgres, Host: cr.Host, Port: cr.Port, User: cr.User, Database: cr.Database,
		Params: map[string]string{"sslmode": "disable", "application_name": cr.App + "-watch"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watch, err := dialect.Open(ctx, c.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	c.Conn.Params = map[string]string{"sslmode": "disable", "application_name": cr.App}
	rc := c.RunConfig()
	rc.Events, rc.Time, rc.GracefulStop = 0, 2*time.Second, 100*time.Millisecond
	if cr.Interrupt {
		rc.Time = 0
	}
	runCtx, stop := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		err := waitLockWaits(runCtx, watch, cr.App, c.Threads)
		if cr.Interrupt {
			stop() // Ctrl-C while both statements wait
		}
		waited <- err
	}()
	res, err := Run(runCtx, c, rc)
	stop()
	code := 0
	if cr.Interrupt && !errors.Is(err, oltp.ErrInterrupted) || !cr.Interrupt && err != nil {
		fmt.Printf("run: %v\n", err)
		code = 1
	}
	if werr := <-waited; werr != nil || res == nil || res.Op(OpTransaction).Latency.Count != 0 {
		fmt.Printf("lock waits: %v; result %+v\n", werr, res)
		code = 1
	} else {
		fmt.Println("both threads waited for a lock")
	}
	os.Exit(code) // at once, as vmbench exits after its report
}

// waitLockWaits waits until n backends named app wait for a lock.
func waitLockWaits(ctx context.Context, db *dialect.DB, app string, n int) error {
	for {
		var got int
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", app).Scan(&got)
		switch {
		case err != nil:
			return err
		case got >= n:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d backends wait for a lock: %w", got, n, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitBackendsGone waits up to backendExitBound for the backends named app
// to leave pg_stat_activity and returns those still there, described.
func waitBackendsGone(ctx context.Context, db *dialect.DB, app string) []string {
	deadline := time.Now().Add(backendExitBound)
	for {
		left, err := backends(ctx, db, app)
		if err != nil {
			return []string{err.Error()}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		select {
		case <-ctx.Done():
			return append(left, ctx.Err().Error())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// backends describes the backends named app: pid, state, what it waits
// for and its last statement.
func backends(ctx context.Context, db *dialect.DB, app string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT pid, COALESCE(state, ''), COALESCE(wait_event_type, ''), query
		FROM pg_stat_activity WHERE application_name = $1`, app)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid int64
		var state, wait string
		var q sql.NullString
		if err := rows.Scan(&pid, &state, &wait, &q); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("  backend %d: %s, waiting for %q: %s", pid, state, wait, q.String))
	}
	return out, rows.Err()
}
