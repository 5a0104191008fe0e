package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"

	"vmbench/internal/flagvalue"
)

// parses counts Parse's calls (ParseCount).
var parses atomic.Int64

// ParseCount is how many workload flag sets this process has parsed
// (Parse) so far: tests check with it that a campaign parses each of its
// flag sets once. Nothing prints it.
func ParseCount() int64 { return parses.Load() }

// Parse builds a tool's Config from a workload name and flags given as a
// map (a campaign file's flags:, names without dashes, with dashes or
// underscores): the same binding and parser as the command line, run
// once. Flags in refuse (a campaign's connection flags) are errors;
// getenv may be nil. Every problem is returned at once; a problem of one
// flag (refused, unknown, named twice, a bad value) is a *FlagError whose
// Flags holds its name without dashes, '_' as '-'.
func Parse(t Tool, name string, flags map[string]string, getenv func(string) string, refuse []string) (Config, error) {
	parses.Add(1)
	cfg := t.NewConfig()
	fs := pflag.NewFlagSet(t.Describe().Name, pflag.ContinueOnError)
	fs.SetOutput(discard{})
	fs.SetNormalizeFunc(flagvalue.Normalize)
	cfg.BindFlags(fs)
	var errs []error
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	seen := make(map[string]string, len(keys))
	for _, k := range keys {
		n := flagvalue.Name(k)
		flagErr := func(format string, args ...any) {
			errs = append(errs, &FlagError{Flags: []string{n}, Err: fmt.Errorf(format, args...)})
		}
		if first, ok := seen[n]; ok {
			flagErr("--%s: named twice (%s and %s); give it once", n, first, k)
			continue
		}
		seen[n] = k
		if slices.Contains(refuse, n) {
			flagErr("--%s: set by the campaign for each VM (database: block, or --db-dsn with --simulate); remove it from the workload flags", n)
			continue
		}
		switch {
		case n == "" || strings.HasPrefix(n, "-"):
			flagErr("flag name %q: not an option of %s (a name such as threads or --threads)", k, t.Describe().Name)
			continue
		case fs.Lookup(n) == nil:
			flagErr("--%s: not an option of %s", n, t.Describe().Name)
			continue
		}
		if err := fs.Set(n, flags[k]); err != nil {
			if ne := (*strconv.NumError)(nil); errors.As(err, &ne) {
				err = fmt.Errorf("not a number --%s takes (%w)", n, ne.Err)
			}
			flagErr("--%s=%s: %w", n, flags[k], err)
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
