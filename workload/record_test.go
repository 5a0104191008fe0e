package workload

import (
	"context"
	"maps"
	"strconv"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"vmbench/oltp"
)

// recorder is a tool whose options are of every kind RecordedFlags
// distinguishes.
type recorder struct{}

func (recorder) Describe() Descriptor {
	return Descriptor{Name: "recorder", Workloads: []string{"one"}}
}
func (recorder) NewConfig() Config { return &recorderConfig{threads: 1, mode: "a", factor: 1} }

type recorderConfig struct {
	threads  int     // recorded
	mode     string  // recorded
	tuning   float64 // recorded with mode b only
	host     string  // not recorded: where
	password string  // not recorded: a secret
	label    string  // recorded when given: "" is left out
	factor   float64 // a Value of its own, typed through Get
}

type factorValue struct{ p *float64 }

func (v factorValue) String() string { return strconv.FormatFloat(*v.p, 'g', -1, 64) }
func (v factorValue) Type() string   { return "factor" }
func (v factorValue) Get() any       { return *v.p }
func (v factorValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	*v.p = f
	return err
}

func (c *recorderConfig) BindFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.threads, "threads", c.threads, "threads")
	fs.Var(fs.Lookup("threads").Value, "num-threads", "threads, another name")
	fs.StringVar(&c.mode, "mode", c.mode, "a or b")
	fs.Float64Var(&c.tuning, "tuning", c.tuning, "mode b's")
	fs.StringVar(&c.host, "host", c.host, "host")
	fs.StringVar(&c.password, "password", c.password, "password")
	fs.StringVar(&c.label, "label", c.label, "label")
	fs.Var(factorValue{&c.factor}, "factor", "factor")
	Alias(fs, "num-threads", "threads")
	NotRecorded(fs, "host", "password")
	RecordAs(fs, "tuning", func(v string) string {
		if c.mode == "b" {
			return v
		}
		return ""
	})
}
func (c *recorderConfig) Complete(string, func(string) string, func(string) bool) error { return nil }
func (c *recorderConfig) Validate() error                                               { return nil }
func (c *recorderConfig) Bounds() oltp.RunConfig                                        { return oltp.RunConfig{Events: 1} }
func (c *recorderConfig) Prepare(context.Context, Env) error                            { return nil }
func (c *recorderConfig) Run(context.Context, Env) (*Output, error)                     { return &Output{}, nil }
func (c *recorderConfig) Cleanup(context.Context, Env) error                            { return nil }

// TestRecordedFlags: every option at its value, but the aliases, the
// options marked not recorded, RecordAs's empty forms and empty values;
// typed by each flag's type; parsing the record gives the same record.
func TestRecordedFlags(t *testing.T) {
	for _, tc := range []struct {
		flags map[string]string
		want  map[string]string
		typed map[string]any
	}{
		{nil, map[string]string{"threads": "1", "mode": "a", "factor": "1"},
			map[string]any{"threads": int64(1), "mode": "a", "factor": float64(1)}},
		{map[string]string{"num-threads": "4", "mode": "b", "tuning": "0.5", "host": "db1", "password": "pw", "label": "x", "factor": "2.5"},
			map[string]string{"threads": "4", "mode": "b", "tuning": "0.5", "label": "x", "factor": "2.5"},
			map[string]any{"threads": int64(4), "mode": "b", "tuning": 0.5, "label": "x", "factor": 2.5}},
		{map[string]string{"mode": "a", "tuning": "0.5", "label": "12"},
			map[string]string{"threads": "1", "mode": "a", "label": "12", "factor": "1"},
			map[string]any{"threads": int64(1), "mode": "a", "label": "12", "factor": float64(1)}},
	} {
		cfg, err := Parse(recorder{}, "", tc.flags, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := RecordedFlags(cfg)
		if !maps.Equal(got, tc.want) {
			t.Errorf("%v: recorded %v, want %v", tc.flags, got, tc.want)
		}
		if typed := TypedFlags(cfg); !maps.Equal(typed, tc.typed) {
			t.Errorf("%v: typed %#v, want %#v", tc.flags, typed, tc.typed)
		}
		again, err := Parse(recorder{}, "", got, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if back := RecordedFlags(again); !maps.Equal(back, got) {
			t.Errorf("%v: parsed back, recorded %v, want %v", tc.flags, back, got)
		}
	}
}

// TestRecordedFlagsOnlyReads: recording binds a copy, so several
// goroutines may record one Config while another reads it (go test
// -race finds a write).
func TestRecordedFlagsOnlyReads(t *testing.T) {
	cfg := recorder{}.NewConfig().(*recorderConfig)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if RecordedFlags(cfg)["threads"] != "1" || cfg.threads != 1 {
				t.Error("recording changed the Config")
			}
		})
	}
	wg.Wait()
}

func TestMarksPanicOnUnboundFlags(t *testing.T) {
	for name, mark := range map[string]func(fs *pflag.FlagSet){
		"Alias":       func(fs *pflag.FlagSet) { Alias(fs, "num-threads", "threads") },
		"NotRecorded": func(fs *pflag.FlagSet) { NotRecorded(fs, "host") },
		"RecordAs":    func(fs *pflag.FlagSet) { RecordAs(fs, "tuning", func(v string) string { return v }) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of a flag not bound did not panic", name)
				}
			}()
			mark(pflag.NewFlagSet("t", pflag.ContinueOnError))
		}()
	}
}
