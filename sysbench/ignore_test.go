package sysbench

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"vmbench/dialect"
)

func TestIgnoreErrorsFlag(t *testing.T) {
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
	lockWait := fmt.Errorf("UPDATE: %w", &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"})
	dupKey := &mysql.MySQLError{Number: 1062, Message: "Duplicate entry"}
	for _, tc := range []struct {
		value               string
		deadlock, wait, dup bool
		wantString, wantRec string
	}{
		{"", true, true, false, "1213,1020,1205", "1213,1020,1205"}, // sysbench's default
		{"1213", true, false, false, "1213", "1213"},
		{"all", true, true, true, "all", "all"},
		{"none", false, false, false, "", "none"},
		{"1062,1205", false, true, true, "1062,1205", "1062,1205"},
	} {
		args := []string{}
		if tc.value != "" {
			args = append(args, "--mysql-ignore-errors="+tc.value)
		}
		c, err := parse("", flagMap(args...), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		ie := c.IgnoreErrors
		if ie.restart(deadlock, dialect.MySQL) != tc.deadlock || ie.restart(lockWait, dialect.MySQL) != tc.wait || ie.restart(dupKey, dialect.MySQL) != tc.dup {
			t.Errorf("%q: restart deadlock/wait/dup = %v/%v/%v, want %v/%v/%v", tc.value,
				ie.restart(deadlock, dialect.MySQL), ie.restart(lockWait, dialect.MySQL), ie.restart(dupKey, dialect.MySQL), tc.deadlock, tc.wait, tc.dup)
		}
		if rec := c.RunConfig().Flags["mysql-ignore-errors"]; ie.String() != tc.wantString || rec != tc.wantRec {
			t.Errorf("%q: String() = %q, recorded %q; want %q, %q", tc.value, ie.String(), rec, tc.wantString, tc.wantRec)
		}
	}
	if _, err := parse("", flagMap("--mysql-ignore-errors=deadlocks"), nil); err == nil {
		t.Error("--mysql-ignore-errors=deadlocks accepted")
	}
	if DefaultIgnoreErrors().restart(errors.New("an error without a code"), dialect.MySQL) {
		t.Error("an unclassified error without a code restarts by default")
	}
}

func TestDeprecatedAliases(t *testing.T) {
	c, err := parse("", flagMap("--num-threads=6", "--max-time=30", "--max-requests=500", "--tx-rate=100"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Threads != 6 || c.Time != 30*time.Second || c.Events != 500 || c.Rate != 100 {
		t.Errorf("aliases gave threads %d time %v events %d rate %g", c.Threads, c.Time, c.Events, c.Rate)
	}
}

// TestLockWaitTimeoutNotIgnoredIsFatal: with --mysql-ignore-errors=1213 a
// lock wait timeout (1205) is not in the list, so it ends the run, naming
// the statement, as sysbench does.
func TestLockWaitTimeoutNotIgnoredIsFatal(t *testing.T) {
	c := mariaConfig(t, WriteOnly)
	c.Tables, c.TableSize, c.Threads, c.Events = 1, 20, 1, 5
	c.IgnoreErrors = IgnoreErrors{Codes: []int{1213}}
	ctx := ctxT(t)
	prepareAndLock(t, ctx, c)
	c.Conn.Params = map[string]string{"innodb_lock_wait_timeout": "1"}
	_, err := Run(ctx, c, c.RunConfig())
	if dialect.Code(err) != 1205 {
		t.Fatalf("run = %v, want it ended by the 1205 not listed in --mysql-ignore-errors", err)
	}
}
