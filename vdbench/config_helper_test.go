package vdbench

import (
	"testing"

	"github.com/spf13/pflag"
)

// profileConfig returns a validated Config of profile with args.
func profileConfig(t *testing.T, profile string, args ...string) *Config {
	t.Helper()
	cfg := NewConfig()
	fs := pflag.NewFlagSet("vdbench", pflag.ContinueOnError)
	cfg.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Complete(profile, nil, fs.Changed); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}
