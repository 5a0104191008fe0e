package vdbench

import (
	"maps"
	"testing"

	"github.com/spf13/pflag"

	"vmbench/workload"
)

// TestFlagsRoundTrip: Flags reads a Config's options without changing
// them, and what it returns parses back (through workload.Parse, as an
// agent's job does) to the same options, several targets included.
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
	first := c.Flags()
	want := map[string]string{"target": "/tmp/a.img,/tmp/b.img,/tmp/c.img", "threads": "3", "size": "64m",
		"temporary-targets": "true", "elapsed": "2", "warmup": "0", "profile": "4k-random-read"}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("Flags()[%q] = %q, want %q (all: %v)", k, first[k], v, first)
		}
	}
	if second := c.Flags(); !maps.Equal(first, second) {
		t.Errorf("a second Flags() = %v, want the first's %v: Flags changed the Config", second, first)
	}
	back, err := workload.Parse(Tool{}, "4k-random-read", first, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Flags(); !maps.Equal(got, first) {
		t.Errorf("parsed back: %v, want %v", got, first)
	}
	if got := back.(*Config).targets; len(got) != 3 {
		t.Errorf("parsed back %d targets (%q), want 3", len(got), got)
	}
}
