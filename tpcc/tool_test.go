package tpcc

import (
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vmbench/oltp"
	"vmbench/workload"
)

// runPrinted runs c as `vmbench tpcc run` does, through the workload
// contract, printing to out the header, interval lines and report.
func runPrinted(ctx context.Context, c Config, out io.Writer) (*oltp.Result, error) {
	tc := &toolConfig{Config: c}
	o, err := tc.Run(ctx, workload.Env{Log: out, Observer: tc.IntervalWriter(out)})
	if o == nil {
		return nil, err
	}
	if werr := tc.WriteReport(out, o); werr != nil && err == nil {
		err = werr
	}
	return o.Result, err
}

// parse builds a Config from flags as a campaign and the agent do
// (workload.Parse), with the environment getenv (may be nil).
func parse(flags map[string]string, getenv func(string) string) (Config, error) {
	cfg, err := workload.Parse(Tool{}, "", flags, getenv, nil)
	return cfg.(*toolConfig).Config, err
}

// flagsBefore is what campaign.yaml and an agent's job recorded before the
// recorded flags were derived from the flag set (workload.RecordedFlags):
// the hand-written Config.Flags, without --terminals and --conns beside
// --threads. The derivation records the same, so that earlier campaigns
// still compare equal with new ones.
func flagsBefore(c Config) map[string]string {
	itoa := strconv.Itoa
	m := map[string]string{
		"db-driver": string(c.Conn.Driver), "warehouses": itoa(c.Warehouses), "seed": strconv.FormatInt(c.Seed, 10),
		"terminals": itoa(c.terminals()), "conns": itoa(c.conns()), "threads": itoa(c.Threads),
		"wait-scale": strconv.FormatFloat(c.WaitScale, 'g', -1, 64),
		"time":       c.Time.String(), "warmup-time": c.WarmupTime.String(), "report-interval": c.ReportInterval.String(),
		"events": strconv.FormatInt(c.Events, 10), "retries": itoa(c.Retries),
	}
	if c.Isolation != "" {
		m["isolation"] = string(c.Isolation)
	}
	if c.Threads > 0 {
		delete(m, "terminals")
		delete(m, "conns")
	}
	return m
}

// A campaign's flags parse into the Config the command line gives, and
// the Config's recorded flags parse back to it, with --threads and with
// terminals; they are the ones recorded before they were derived from
// the flag set.
func TestToolFlagsRoundTrip(t *testing.T) {
	tool, err := workload.Lookup("tpcc")
	if err != nil {
		t.Fatal(err)
	}
	refuse := tool.NewConfig().(workload.Connector).ConnectionFlags()
	for _, flags := range []map[string]string{
		{"warehouses": "10", "threads": "16", "time": "60"},
		{"warehouses": "2", "terminals": "20", "conns": "4", "wait-scale": "0.5", "time": "1m", "warmup-time": "30s"},
		{"warehouses": "3"},
		{"warehouses": "2", "threads": "4", "wait": "true", "seed": "9", "retries": "0", "events": "100", "time": "0", "report-interval": "0"},
		{"warehouses": "5", "db-driver": "postgres", "isolation": "serializable", "wait-scale": "0"},
	} {
		cfg, err := workload.Parse(tool, "tpcc", flags, nil, nil)
		if err != nil {
			t.Fatalf("%v: %v", flags, err)
		}
		back := workload.RecordedFlags(cfg)
		again, err := workload.Parse(tool, "", back, nil, nil)
		if err != nil {
			t.Fatalf("Flags %v of %v do not parse back: %v", back, flags, err)
		}
		got, want := again.(*toolConfig).Config, cfg.(*toolConfig).Config
		if !maps.Equal(got.RunConfig().Flags, want.RunConfig().Flags) || got.RunConfig().Terminals != want.RunConfig().Terminals {
			t.Errorf("%v: round trip gave %v, want %v", flags, got.RunConfig().Flags, want.RunConfig().Flags)
		}
		if before := flagsBefore(want); !maps.Equal(workload.RecordedFlags(cfg), before) {
			t.Errorf("%v: recorded %v, before %v", flags, workload.RecordedFlags(cfg), before)
		}
	}
	if _, err := workload.Parse(tool, "tpch", nil, nil, refuse); err == nil || !strings.Contains(err.Error(), `workload name "tpch" is not valid for tool tpcc`) {
		t.Errorf("workload tpch: %v", err)
	}
	if _, err := workload.Parse(tool, "", map[string]string{"H": "db1"}, nil, refuse); err == nil || !strings.Contains(err.Error(), "--H: set by the campaign") {
		t.Errorf("-H in a campaign: %v", err)
	}
}

func TestReviewColumns(t *testing.T) {
	cols := (&toolConfig{Config: DefaultConfig()}).ReviewColumns()
	r := &oltp.Result{Elapsed: 60e9, Ops: []oltp.OpResult{{Name: "new_order", Latency: oltp.OpResult{}.Latency}},
		Counters: map[string]int64{CounterNOPMDelta: 1234567}}
	r.Ops[0].Latency.Count = 82249
	if got := cols[0].Value(r); got != 82249 || cols[0].Digits != 1 {
		t.Errorf("tpmC %v with %d decimals, want 82249 with 1", got, cols[0].Digits)
	}
	if got := cols[1].Value(r); got != 1234567 || cols[1].Digits != 1 {
		t.Errorf("NOPM %v with %d decimals, want 1234567 with 1", got, cols[1].Digits)
	}
	if !errors.Is(checkFailed(errors.New("consistency: 1 of 12 conditions failed")), workload.ErrCheckFailed) {
		t.Error("a failed check does not wrap ErrCheckFailed")
	}
}

// TestOptionalParts: tpcc's Config implements the optional parts of the
// workload contract it asserts (toolconfig.go) and no other, and its
// IntervalWriter is an Announcer.
func TestOptionalParts(t *testing.T) {
	want := []string{"Reporter", "FlagScoper", "Connector", "DatabaseOwner", "Reviewer", "TableReporter", "DataShaper", "Checker"}
	cfg := Tool{}.NewConfig()
	if got := workload.Optional(cfg); !slices.Equal(got, want) {
		t.Errorf("optional parts %v, want %v", got, want)
	}
	if got := workload.Optional(cfg.(workload.Reporter).IntervalWriter(io.Discard)); !slices.Equal(got, []string{"Announcer"}) {
		t.Errorf("IntervalWriter's optional parts %v, want [Announcer]", got)
	}
}
