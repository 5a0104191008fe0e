package vdbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"vmbench/workload"
)

// cliConfig binds verb's options as the CLI does, parses args (flags and
// positional arguments) and validates.
func cliConfig(t *testing.T, verb workload.Verb, args ...string) (*Config, error) {
	t.Helper()
	c := NewConfig()
	fs := pflag.NewFlagSet(string(verb), pflag.ContinueOnError)
	c.BindCommand(verb, fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	c.SetCommand("vmbench vdbench "+string(verb), fs.Args())
	return c, errors.Join(c.Complete("", nil, fs.Changed), c.Validate())
}

// Each command binds its own options; the campaign's stay off the CLI.
func TestCLICommandFlags(t *testing.T) {
	for verb, want := range map[workload.Verb][]string{
		workload.VerbRun: {"elapsed", "file", "force", "interval", "ioengine", "overwrite-files", "profile", "results-dir", "target", "threads", "warmup"},
		VerbParse:        {"elapsed", "file", "interval", "profile", "target", "threads", "warmup"},
		VerbProfiles:     {"target", "threads"},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		NewConfig().BindCommand(verb, fs)
		var got []string
		fs.VisitAll(func(f *pflag.Flag) { got = append(got, f.Name) })
		if !slices.Equal(got, want) {
			t.Errorf("%s binds %v, want %v", verb, got, want)
		}
	}
	d := Tool{}.Describe()
	if !d.HelpOnly || len(d.Commands) != 3 || d.Commands[0].Arg.Usage() != "[FILE | -f FILE]" {
		t.Errorf("descriptor %+v", d)
	}
}

func TestCLIProfilesInfo(t *testing.T) {
	var b strings.Builder
	c, err := cliConfig(t, VerbProfiles)
	if err != nil || c.Info(&b, VerbProfiles) != nil || !strings.Contains(b.String(), "4k-random-read") {
		t.Fatalf("list: %v\n%s", err, b.String())
	}
	b.Reset()
	c, err = cliConfig(t, VerbProfiles, "sql", "--target", "/dev/sdx")
	if err != nil || c.Info(&b, VerbProfiles) != nil || !strings.Contains(b.String(), "sd=sd1,lun=/dev/sdx") {
		t.Fatalf("sql: %v\n%s", err, b.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, "vmbench vdbench profiles: takes at most one profile NAME (got 2 arguments)"},
		{[]string{"--threads", "2"}, "vmbench vdbench profiles: --target and --threads need a profile NAME"},
		{[]string{"nope"}, `vmbench vdbench profiles: no built-in vdbench profile "nope"`},
		{[]string{"sql", "--threads", "-1"}, "profile sql: threads=-1"},
	} {
		if _, err := cliConfig(t, VerbProfiles, tc.args...); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestCLIParseInfo(t *testing.T) {
	var b strings.Builder
	c, err := cliConfig(t, VerbParse, "--profile", "sql", "--target", "/dev/sdx", "-e", "30")
	if err != nil || c.Info(&b, VerbParse) != nil || !strings.Contains(b.String(), "then 30s measured") {
		t.Fatalf("parse: %v\n%s", err, b.String())
	}
	if _, err := cliConfig(t, VerbParse, "a", "b"); err == nil || !strings.Contains(err.Error(), "takes at most one parameter FILE (got 2 arguments; see 'vmbench vdbench parse --help')") {
		t.Errorf("two files: %v", err)
	}
}

// RunDir refuses a missing target and an unusable results directory as
// *workload.FlagErrors (usage errors), leaving nothing behind.
func TestCLIRunDirRefusals(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "a.img")
	if err := os.WriteFile(lun, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "4k-random-read", "--target", filepath.Join(dir, "nope")}, "does not exist"},
		{[]string{"--profile", "4k-random-read", "--target", lun, "-o", ""}, "--results-dir: empty"},
		{[]string{"--profile", "4k-random-read", "--target", lun, "-o", lun}, "--results-dir: mkdir " + lun},
	} {
		c, err := cliConfig(t, workload.VerbRun, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		var fe *workload.FlagError
		err = c.RunDir(context.Background(), nil, workload.Env{})
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a FlagError with %q", tc.args, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refused runs left %v", entries)
	}
}
