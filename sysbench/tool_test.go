package sysbench

import (
	"context"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/workload"
)

// runPrinted runs c as `vmbench sysbench run` does, printing to out what
// sysbench prints: the header, the interval lines (beside rc's own
// callbacks) and the final report.
func runPrinted(ctx context.Context, c Config, rc oltp.RunConfig, out io.Writer) (*oltp.Result, error) {
	tc := &toolConfig{Config: c}
	rw := tc.IntervalWriter(out).(*reportWriter)
	onInterval, onPhase := rc.OnInterval, rc.OnPhase
	rc.OnInterval = func(r oltp.IntervalReport) {
		rw.Interval(r)
		if onInterval != nil {
			onInterval(r)
		}
	}
	rc.OnPhase = func(p oltp.Phase, d time.Duration) {
		rw.Phase(p, d)
		if onPhase != nil {
			onPhase(p, d)
		}
	}
	res, err := run(ctx, c, rc, rw.Announce)
	if res != nil {
		if werr := tc.WriteReport(out, &workload.Output{Result: res}); werr != nil && err == nil {
			err = werr
		}
	}
	return res, err
}

// The registered tool parses a campaign's flags into the same Config as
// the command line, and its recorded flags parse back to the same Config.
func TestToolParseAndFlagsRoundTrip(t *testing.T) {
	tool, err := workload.Lookup("sysbench")
	if err != nil {
		t.Fatal(err)
	}
	conn := tool.NewConfig().(workload.Connector)
	cfg, err := workload.Parse(tool, "oltp_read_only", map[string]string{"tables": "4", "table_size": "500", "time": "30", "rand-type": "pareto"}, nil, conn.ConnectionFlags())
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.(*toolConfig)
	if c.Workload != ReadOnly || c.Tables != 4 || c.TableSize != 500 || c.Time != 30*time.Second || c.Rand.Type != RandPareto {
		t.Fatalf("parsed %+v", c.Config)
	}
	flags := workload.RecordedFlags(cfg)
	for _, f := range conn.ConnectionFlags() {
		delete(flags, f)
	}
	again, err := workload.Parse(tool, "oltp_read_only", flags, nil, conn.ConnectionFlags())
	if err != nil {
		t.Fatalf("Flags %v do not parse back: %v", flags, err)
	}
	if got, want := workload.RecordedFlags(again), workload.RecordedFlags(cfg); !maps.Equal(got, want) {
		t.Errorf("round trip: %v, want %v", got, want)
	}
	if _, err := workload.Parse(tool, "", map[string]string{"mysql_host": "db1"}, nil, conn.ConnectionFlags()); err == nil ||
		!strings.Contains(err.Error(), "--mysql-host: set by the campaign") {
		t.Errorf("a connection flag was not refused: %v", err)
	}
	if err := conn.Supports(dialect.SQLServer); err == nil || !strings.Contains(err.Error(), "runs tool: tpcc") {
		t.Errorf("Supports(sqlserver) = %v", err)
	}
	vm := cfg.(workload.Connector).Clone().(*toolConfig)
	vm.SetDatabase(dialect.Config{Driver: dialect.SQLite, SQLitePath: "/tmp/vm1.db"})
	if vm.Database().SQLitePath != "/tmp/vm1.db" || c.Conn.SQLitePath == "/tmp/vm1.db" {
		t.Errorf("SetDatabase on a clone: clone %+v, original %+v", vm.Conn, c.Conn)
	}
}

// TestOptionalParts: sysbench's Config implements the optional parts of
// the workload contract it asserts (toolconfig.go, dataset.go) and no
// other, and its IntervalWriter is an Announcer.
func TestOptionalParts(t *testing.T) {
	want := []string{"Reporter", "Connector", "DatabaseOwner", "ConnectionCounter", "DataShaper", "Checker"}
	cfg := Tool{}.NewConfig()
	if got := workload.Optional(cfg); !slices.Equal(got, want) {
		t.Errorf("optional parts %v, want %v", got, want)
	}
	if got := workload.Optional(cfg.(workload.Reporter).IntervalWriter(io.Discard)); !slices.Equal(got, []string{"Announcer"}) {
		t.Errorf("IntervalWriter's optional parts %v, want [Announcer]", got)
	}
}
