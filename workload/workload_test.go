package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"vmbench/oltp"
)

// toy is the smallest tool: one workload, two options and a password.
type toy struct{}

func (toy) Describe() Descriptor {
	return Descriptor{Name: "toy", Workloads: []string{"spin", "sleep"}}
}
func (toy) NewConfig() Config { return &toyConfig{threads: 1, name: "spin"} }

type toyConfig struct {
	name     string
	threads  int
	time     time.Duration
	password string
	fromEnv  bool
}

func (c *toyConfig) BindFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.threads, "threads", c.threads, "threads")
	fs.DurationVar(&c.time, "time", c.time, "time")
	fs.StringVar(&c.password, "password", "", "password")
}

func (c *toyConfig) Complete(name string, getenv func(string) string, changed func(string) bool) error {
	if name != "" {
		if name != "spin" && name != "sleep" {
			return fmt.Errorf("workload %q is not valid (valid: spin, sleep)", name)
		}
		c.name = name
	}
	if !changed("password") {
		c.password, c.fromEnv = getenv("TOY_PASSWORD"), true
	}
	return nil
}

func (c *toyConfig) Validate() error {
	if c.threads < 1 {
		return fmt.Errorf("--threads: %d is not valid (at least 1)", c.threads)
	}
	return nil
}
func (c *toyConfig) Bounds() oltp.RunConfig             { return oltp.RunConfig{Time: c.time} }
func (c *toyConfig) Prepare(context.Context, Env) error { return nil }
func (c *toyConfig) Run(_ context.Context, env Env) (*Output, error) {
	env.OnPhase(oltp.PhaseMeasure, c.time)
	return &Output{Result: &oltp.Result{Workload: c.name}}, nil
}
func (c *toyConfig) Cleanup(context.Context, Env) error { return nil }

func TestRegistry(t *testing.T) {
	Register(toy{})
	got, err := Lookup("toy")
	if err != nil || got.Describe().Name != "toy" {
		t.Fatalf("Lookup(toy) = %v, %v", got, err)
	}
	if _, err := Lookup("fio"); err == nil || !strings.Contains(err.Error(), "valid: toy") {
		t.Errorf("Lookup(fio) error = %v, want one listing the valid tools", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second Register(toy) did not panic")
			}
		}()
		Register(toy{})
	}()
}

func TestParse(t *testing.T) {
	env := func(k string) string {
		if k == "TOY_PASSWORD" {
			return "secret"
		}
		return ""
	}
	tests := []struct {
		name    string
		flags   map[string]string
		wantErr []string // substrings, all of them
		flagErr bool     // the error is a *FlagError naming one flag
		check   func(*toyConfig) error
	}{
		{name: "sleep", flags: map[string]string{"threads": "4", "time": "30s"}, check: func(c *toyConfig) error {
			if c.threads != 4 || c.time != 30*time.Second || c.name != "sleep" || c.password != "secret" {
				return fmt.Errorf("got %+v", *c)
			}
			return nil
		}},
		{name: "", flags: map[string]string{"--threads": "2", "password": "given"}, check: func(c *toyConfig) error {
			if c.name != "spin" || c.password != "given" || c.fromEnv {
				return fmt.Errorf("got %+v", *c)
			}
			return nil
		}},
		{name: "dance", flags: map[string]string{"threads": "0", "colour": "red", "mysql_host": "db1", "time": "soon"},
			wantErr: []string{`workload "dance"`, "--colour: not an option of toy", "--mysql-host: set by the campaign", "--time=soon"}, flagErr: true},
		{name: "", flags: map[string]string{"threads": "0"}, wantErr: []string{"--threads: 0 is not valid"}},
		{name: "", flags: map[string]string{"threads": "2", "--threads": "4"}, wantErr: []string{"--threads: named twice (--threads and threads)"}, flagErr: true},
	}
	for _, tt := range tests {
		cfg, err := Parse(toy{}, tt.name, tt.flags, env, []string{"mysql-host"})
		if len(tt.wantErr) > 0 {
			var fe *FlagError
			if tt.flagErr && (!errors.As(err, &fe) || len(fe.Flags) != 1) {
				t.Errorf("Parse(%q, %v) error = %v: no *FlagError naming its flag", tt.name, tt.flags, err)
			}
			for _, w := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q, %v) error = %v, want it to contain %q", tt.name, tt.flags, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q, %v): %v", tt.name, tt.flags, err)
			continue
		}
		if err := tt.check(cfg.(*toyConfig)); err != nil {
			t.Errorf("Parse(%q, %v): %v", tt.name, tt.flags, err)
		}
	}
}

type phases []oltp.Phase

func (p *phases) Phase(name oltp.Phase, _ time.Duration) { *p = append(*p, name) }
func (p *phases) Interval(oltp.IntervalReport)           {}

func TestEnvRunConfig(t *testing.T) {
	var seen phases
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	env := Env{StartAt: at, Labels: map[string]string{"vm": "vm1"}, Observer: &seen}
	rc := env.RunConfig(oltp.RunConfig{Time: time.Minute})
	if !rc.StartAt.Equal(at) || rc.Labels["vm"] != "vm1" || rc.Time != time.Minute || rc.OnPhase == nil || rc.OnInterval == nil {
		t.Fatalf("RunConfig = %+v", rc)
	}
	rc.OnPhase(oltp.PhaseMeasure, time.Minute)
	if len(seen) != 1 || seen[0] != oltp.PhaseMeasure {
		t.Errorf("phases seen = %v", seen)
	}
	if rc := (Env{}).RunConfig(oltp.RunConfig{}); rc.OnPhase != nil || rc.OnInterval != nil || rc.Labels != nil {
		t.Errorf("an empty Env set callbacks: %+v", rc)
	}
	Env{}.Logf("nothing to %s", "write") // a nil Log discards
}

func TestArgUsage(t *testing.T) {
	for _, tc := range []struct {
		arg  Arg
		want string
	}{
		{Arg{}, ""},
		{Arg{Name: "NAME"}, "[NAME]"},
		{Arg{Name: "FILE", Flag: "-f"}, "[FILE | -f FILE]"},
	} {
		if got := tc.arg.Usage(); got != tc.want {
			t.Errorf("%+v.Usage() = %q, want %q", tc.arg, got, tc.want)
		}
	}
}
