package vdbench

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"vmbench/vdbench/blockio"
	"vmbench/workload"
)

// TestFlagsRoundTrip: the recorded flags (workload.RecordedFlags) read a
// Config's options without changing them, and they parse back (through
// workload.Parse, as an agent's job does) to the same options, several
// targets included.
func TestFlagsRoundTrip(t *testing.T) {
	c := NewConfig()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--target", "/tmp/a.img", "--target=/tmp/b.img,/tmp/c.img", "--threads", "3",
		"--size", "64m", "--temporary-targets", "--elapsed", "2", "--warmup", "0"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Complete("4k-random-read", nil, fs.Changed); err != nil {
		t.Fatal(err)
	}
	first := workload.RecordedFlags(c)
	want := map[string]string{"target": "/tmp/a.img,/tmp/b.img,/tmp/c.img", "threads": "3", "size": "64m",
		"temporary-targets": "true", "elapsed": "2", "warmup": "0", "profile": "4k-random-read",
		"force": "false", "overwrite-files": "false"}
	if !maps.Equal(first, want) {
		t.Errorf("recorded %v, want %v", first, want)
	}
	if second := workload.RecordedFlags(c); !maps.Equal(first, second) {
		t.Errorf("recorded a second time %v, want the first's %v: recording changed the Config", second, first)
	}
	back, err := workload.Parse(Tool{}, "4k-random-read", first, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := workload.RecordedFlags(back); !maps.Equal(got, first) {
		t.Errorf("parsed back: %v, want %v", got, first)
	}
	if got := back.(*Config).targets; len(got) != 3 {
		t.Errorf("parsed back %d targets (%q), want 3", len(got), got)
	}
}

// TestOptionalParts: vdbench's Config implements the optional parts of
// the workload contract it asserts (tool.go) and no other; its RunRecord
// is a PartialRecord.
func TestOptionalParts(t *testing.T) {
	want := []string{"Reporter", "RowReviewer", "Preflighter", "ResultWriter", "ResultReader", "OutputMerger", "Commander", "Informer", "DirRunner"}
	if got := workload.Optional(Tool{}.NewConfig()); !slices.Equal(got, want) {
		t.Errorf("optional parts %v, want %v", got, want)
	}
	if got := workload.Optional(&RunRecord{}); !slices.Equal(got, []string{"PartialRecord"}) {
		t.Errorf("RunRecord's optional parts %v, want [PartialRecord]", got)
	}
}

func TestEngineFlag(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"psync", blockio.EnginePsync, ""},
		{"io_uring", blockio.EngineURing, ""},
		{"libaio", "", "not an I/O engine (valid: psync, io_uring)"},
		{"", "", "not an I/O engine"},
	} {
		var e engineFlag
		err := e.Set(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Set(%q): %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || e.engine() != tc.want {
			t.Errorf("Set(%q): %q, %v", tc.in, e.engine(), err)
		}
	}
}

// --ioengine reaches the run: io_uring is kept (and recorded in Flags),
// psync is the default and reads back as unset.
func TestCLIEngine(t *testing.T) {
	lun := filepath.Join(t.TempDir(), "a.img")
	for _, tc := range []struct {
		args []string
		want string
		flag bool
	}{
		{nil, blockio.EnginePsync, false},
		{[]string{"--ioengine", "psync"}, blockio.EnginePsync, false},
		{[]string{"--ioengine", "io_uring"}, blockio.EngineURing, true},
	} {
		c, err := cliConfig(t, workload.VerbRun, append([]string{"--profile", "4k-random-read", "--target", lun}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := workload.RecordedFlags(c)["ioengine"]; c.engine.engine() != tc.want || ok != tc.flag || (ok && got != tc.want) {
			t.Errorf("%q: engine %s, recorded ioengine=%q (%v)", tc.args, c.engine.engine(), got, ok)
		}
	}
}
