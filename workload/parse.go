package workload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Parse builds a tool's Config from a workload name and flags given as a
// map (a campaign file's flags:, names without dashes, with dashes or
// underscores): the same binding and parser as the command line, run
// once. Flags in refuse (a campaign's connection flags) are errors;
// getenv may be nil. Every problem is returned at once.
func Parse(t Tool, name string, flags map[string]string, getenv func(string) string, refuse []string) (Config, error) {
	cfg := t.NewConfig()
	fs := pflag.NewFlagSet(t.Describe().Name, pflag.ContinueOnError)
	fs.SetOutput(discard{})
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		return pflag.NormalizedName(strings.ReplaceAll(n, "_", "-"))
	})
	cfg.BindFlags(fs)
	var errs []error
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		n := strings.ReplaceAll(strings.TrimLeft(k, "-"), "_", "-")
		if slices.Contains(refuse, n) {
			errs = append(errs, fmt.Errorf("--%s: set by the campaign for each VM (database: block, or --db-dsn with --simulate); remove it from the workload flags", n))
			continue
		}
		f := fs.Lookup(n)
		if f == nil {
			errs = append(errs, fmt.Errorf("--%s: not an option of %s", n, t.Describe().Name))
			continue
		}
		if err := fs.Set(n, flags[k]); err != nil {
			errs = append(errs, fmt.Errorf("--%s=%s: %w", n, flags[k], err))
		}
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if err := cfg.Complete(name, getenv, fs.Changed); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		if err := cfg.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return cfg, errors.Join(errs...)
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
