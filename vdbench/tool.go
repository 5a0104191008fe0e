package vdbench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vmbench/oltp"
	"vmbench/vdbench/blockio"
	"vmbench/vdbench/parmfile"
	"vmbench/workload"
)

func init() { workload.Register(Tool{}) }

// Tool is vdbench in the workload registry: its workloads are the
// built-in profiles, each run on the targets its Config names.
type Tool struct{}

// Describe implements workload.Tool: the workloads are the profiles'
// names; the commands are run, profiles and parse (tool_help.go), in a
// group that only shows its help.
func (Tool) Describe() workload.Descriptor {
	var names []string
	for _, p := range parmfile.Profiles() {
		names = append(names, p.Name)
	}
	return workload.Descriptor{Name: "vdbench", Workloads: names, Usage: "vdbench run|profiles|parse",
		Short: "vdbench-style block I/O: parameter files, the review suite's profiles, latency curves",
		Long:  groupLong, Example: groupExample, HelpOnly: true,
		Commands: []workload.Command{runCommand, profilesCommand, parseCommand}}
}

// NewConfig implements workload.Tool.
func (Tool) NewConfig() workload.Config { return NewConfig() }

// Config is one vdbench run: a built-in profile on targets, or a
// parameter file, with vdbench's -e, -i, -w overrides and the block
// suite's (threads, size, curve, force). It implements workload.Config
// and the optional parts below.
type Config struct {
	// Set by the CLI (BindCommand, SetCommand); a campaign leaves them
	// empty. command is the command path its messages start with
	// ("vmbench vdbench run"); args its positional arguments.
	verb       workload.Verb
	command    string
	args       []string
	resultsDir string // run's -o

	files            filesFlag // -f
	profile          string
	targets          targetsFlag
	threads          int
	size             sizeFlag
	elapsed          secondsFlag
	interval         secondsFlag
	warmup           secondsFlag
	curve            curveFlag
	force            bool
	overwriteFiles   bool
	temporaryTargets bool
	engine           engineFlag

	// set by Validate
	params *parmfile.Params
	runs   []parmfile.Run
	prof   *parmfile.Profile
}

// The optional parts of the workload contract vdbench implements: for
// campaigns and the block suite Reporter, Preflighter, RowReviewer,
// ResultWriter, ResultReader and OutputMerger (its RunRecord a
// PartialRecord); for the CLI Commander, Informer and DirRunner
// (tool_cli.go).
var (
	_ workload.Reporter      = (*Config)(nil)
	_ workload.Preflighter   = (*Config)(nil)
	_ workload.RowReviewer   = (*Config)(nil)
	_ workload.ResultWriter  = (*Config)(nil)
	_ workload.ResultReader  = (*Config)(nil)
	_ workload.OutputMerger  = (*Config)(nil)
	_ workload.Commander     = (*Config)(nil)
	_ workload.Informer      = (*Config)(nil)
	_ workload.DirRunner     = (*Config)(nil)
	_ workload.PartialRecord = (*RunRecord)(nil)
)

// NewConfig returns a Config with vdbench's defaults.
func NewConfig() *Config { return &Config{} }

// BindFlags implements workload.Config: every option, with vdbench's
// short names (-f, -e, -i, -w), c's values as the defaults. Every option
// is recorded (workload.RecordedFlags); an override not given (-e, -i,
// -w, --curve, --ioengine psync, --profile or -f without one) reads back
// as "" and is left out.
func (c *Config) BindFlags(f *pflag.FlagSet) {
	f.VarP(&c.files, "file", "f", "the parameter FILE, as vdbench -f (instead of giving it as an argument)")
	f.StringVar(&c.profile, "profile", c.profile, "run a built-in profile instead of a parameter FILE (see 'vmbench vdbench profiles')")
	f.Var(&c.targets, "target", "with --profile: a block device or file to run on (repeat for several, or separate them with commas)")
	f.IntVar(&c.threads, "threads", c.threads, "with --profile: threads (outstanding I/Os) per target; 0 = the profile's own")
	f.VarP(&c.elapsed, "elapsed", "e", "replace every rd's elapsed= (seconds, as vdbench -e)")
	f.VarP(&c.interval, "interval", "i", "replace every rd's interval= (seconds, as vdbench -i)")
	f.VarP(&c.warmup, "warmup", "w", "replace every rd's warmup= (seconds, as vdbench -w)")
	f.Var(&c.engine, "ioengine", "how each target's threads= I/Os are issued: psync (one blocking pread/pwrite per thread, vdbench's model; the default) or io_uring (the same I/Os in flight, through one io_uring per target)")
	f.BoolVar(&c.force, "force", c.force, "write to targets that carry a partition table or file-system signature (never to mounted or busy devices)")
	f.BoolVar(&c.overwriteFiles, "overwrite-files", c.overwriteFiles,
		"write to (and extend) existing files that vmbench did not make, destroying their contents; without it such a file is refused (a file vmbench made starts with its label)")
	f.Var(&c.size, "size", "use the first SIZE bytes of each target (every sd's size=; 256m, 1g); 0 = all")
	f.Var(&c.curve, "curve", "replace the curve= points of every iorate=curve rd (percentages, comma-separated)")
	f.BoolVar(&c.temporaryTargets, "temporary-targets", c.temporaryTargets,
		"the targets are temporary files: Prepare creates them, with buffered I/O where their file system refuses O_DIRECT")
}

// Complete implements workload.Config: name is a built-in profile ("" keeps
// --profile). vdbench reads no password.
func (c *Config) Complete(name string, _ func(string) string, _ func(string) bool) error {
	if name == "" {
		return nil
	}
	if _, err := parmfile.ProfileByName(name); err != nil {
		return err
	}
	c.profile = name
	return nil
}

// errf is a problem of how the run is given, with the CLI's command path.
func (c *Config) errf(format string, args ...any) error {
	if c.command != "" {
		format = c.command + ": " + format
	}
	return fmt.Errorf(format, args...)
}

// Validate implements workload.Config: it reads the parameter file or
// renders the profile, applies the overrides and expands the runs, and
// keeps them for Run; it opens no target. The first problem of how the
// run is given is returned; a parameter file's problems all at once. With
// no Command, an override that breaks a profile is a *workload.FlagError
// naming the overrides.
func (c *Config) Validate() error {
	c.params, c.runs, c.prof = nil, nil, nil
	if c.verb == VerbProfiles {
		return c.validateProfiles()
	}
	p, err := c.source()
	if err != nil {
		return err
	}
	if c.size > 0 {
		for j := range p.SDs {
			p.SDs[j].Size = int64(c.size)
		}
	}
	o := parmfile.Overrides{Elapsed: c.elapsed.ptr(), Interval: c.interval.ptr(), Warmup: c.warmup.ptr(), Curve: c.curve}
	if err := p.Override(o); err != nil {
		overridden := o.Elapsed != nil || o.Interval != nil || o.Warmup != nil
		switch {
		case c.command == "" && (overridden || len(o.Curve) > 0):
			return &workload.FlagError{Flags: c.overrideFlags(), Err: err}
		case overridden:
			return c.errf("with --elapsed, --interval or --warmup: %v", err)
		}
		return c.errf("%v", err)
	}
	runs, err := p.Runs()
	if err != nil {
		return err
	}
	c.params, c.runs = p, runs
	return nil
}

func (c *Config) overrideFlags() []string {
	var f []string
	for _, o := range []struct {
		name string
		set  bool
	}{{"elapsed", c.elapsed.set}, {"interval", c.interval.set}, {"warmup", c.warmup.set}, {"curve", len(c.curve) > 0}} {
		if o.set {
			f = append(f, o.name)
		}
	}
	return f
}

// source reads the parameter file, or renders the profile on the targets.
func (c *Config) source() (*parmfile.Params, error) {
	args := c.args
	switch {
	case len(args) > 1:
		return nil, c.errf("takes at most one parameter FILE (got %d arguments; see '%s --help')", len(args), c.command)
	case len(c.files) > 1:
		return nil, c.errf("-f given %d times; vmbench reads one parameter file (vdbench reads several -f files as one: join them into one file)", len(c.files))
	case len(c.files) == 1 && len(args) == 1:
		return nil, c.errf("the parameter file is given twice, as %s and with -f %s: give it once, either way", args[0], c.files[0])
	case len(c.files) == 1 && c.files[0] == "":
		return nil, c.errf("-f: empty file name")
	case len(c.files) == 1:
		args = c.files
	}
	switch {
	case len(args) == 1 && c.profile != "":
		return nil, c.errf("give a parameter FILE (or -f FILE) or --profile, not both")
	case len(args) == 1:
		if len(c.targets) > 0 || c.threads != 0 {
			return nil, c.errf("--target and --threads go with --profile; a parameter file names its targets in sd=...,lun= and threads in sd=...,threads=")
		}
		p, err := parmfile.ParseFile(args[0])
		if errors.Is(err, fs.ErrNotExist) {
			return nil, c.errf("parameter file %s does not exist", args[0])
		}
		return p, err
	case c.profile != "":
		prof, err := parmfile.ProfileByName(c.profile)
		if err != nil {
			return nil, c.errf("--profile: %v", err)
		}
		if c.threads < 0 {
			return nil, c.errf("--threads=%d: at least 1, or 0 for the profile's %d", c.threads, prof.Threads)
		}
		if len(c.targets) == 0 {
			return nil, c.errf("--profile %s needs --target (a block device or file; repeat for several)", prof.Name)
		}
		c.prof = &prof
		return prof.Params(c.targets, c.threads)
	}
	path := c.command
	if path == "" {
		path = "vmbench vdbench run"
	}
	return nil, fmt.Errorf("%s: takes a parameter FILE, -f FILE or --profile NAME (see '%s --help')", path, path)
}

// Params are the parameters as Validate read and overrode them.
func (c *Config) Params() *parmfile.Params { return c.params }

// Runs are the expanded runs, in order, as Validate made them.
func (c *Config) Runs() []parmfile.Run { return c.runs }

// Force says --force was given.
func (c *Config) Force() bool { return c.force }

// targetOptions are the safety options the run opens its targets with.
func (c *Config) targetOptions() blockio.TargetOptions {
	return blockio.TargetOptions{Force: c.force, OverwriteFiles: c.overwriteFiles}
}

// Profile is the built-in profile run, or nil for a parameter file.
func (c *Config) Profile() *parmfile.Profile { return c.prof }

// Bounds implements workload.Config: Time is the planned grid of every
// run (blockio.PlanLength: per point warmup + elapsed as the engine runs them,
// plus blockio.PointGap), so a deadline of StartAt + Time covers every point and
// the gaps between them. (Before the grid it was per point warmup= +
// elapsed= + 100 ms, which a run with a common start outgrows.)
func (c *Config) Bounds() oltp.RunConfig {
	var t time.Duration
	for _, r := range c.runs {
		t = parmfile.AddDuration(t, blockio.PlanLength(r))
	}
	return oltp.RunConfig{Time: t}
}

// Cleanup implements workload.Config: vdbench removes nothing (a file
// target is kept, as vdbench keeps it; temporary targets are their
// caller's).
func (c *Config) Cleanup(context.Context, workload.Env) error { return nil }

// secondsFlag is a vdbench time option (-e, -i, -w): whole seconds, or
// with m or h; it reads back as whole seconds.
type secondsFlag struct {
	d   time.Duration
	set bool
}

func (s *secondsFlag) String() string {
	if !s.set {
		return ""
	}
	return strconv.FormatInt(int64(s.d/time.Second), 10)
}

func (s *secondsFlag) Set(v string) error {
	d, err := parmfile.ParseSeconds(v)
	if err != nil {
		return err
	}
	s.d, s.set = d, true
	return nil
}

func (s *secondsFlag) Type() string { return "seconds" }

func (s *secondsFlag) ptr() *time.Duration {
	if !s.set {
		return nil
	}
	d := s.d
	return &d
}

// sizeFlag is a size in vdbench's units (256m, 1g); it reads back as
// parmfile.FormatSize writes it.
type sizeFlag int64

func (s *sizeFlag) String() string { return parmfile.FormatSize(int64(*s)) }
func (s *sizeFlag) Type() string   { return "size" }

func (s *sizeFlag) Set(v string) error {
	n, err := parmfile.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// filesFlag is -f/--file: each use adds a parameter file (Validate
// refuses more than one); it reads back as its files joined by commas,
// one file as its name, none as "".
type filesFlag []string

func (f *filesFlag) String() string { return strings.Join(*f, ",") }

// Type is pflag's StringArray's, so that help shows it as before.
func (f *filesFlag) Type() string { return "stringArray" }

func (f *filesFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// targetsFlag is --target: each use adds its comma-separated paths (a
// vdbench lun= cannot hold a comma), so that the campaign's recorded
// flags (Flags joins the targets with commas) parse back as they were.
type targetsFlag []string

func (t *targetsFlag) String() string { return strings.Join(*t, ",") }

func (t *targetsFlag) Type() string { return "path" }

func (t *targetsFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p == "" {
			return fmt.Errorf("an empty target in %q", v)
		}
		*t = append(*t, p)
	}
	return nil
}

// curveFlag is a list of curve= points, comma-separated.
type curveFlag []float64

func (c *curveFlag) String() string {
	var s []string
	for _, v := range *c {
		s = append(s, parmfile.FormatNum(v))
	}
	return strings.Join(s, ",")
}

func (c *curveFlag) Type() string { return "percentages" }

func (c *curveFlag) Set(v string) error {
	var pts []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("curve point %q is not a number", f)
		}
		pts = append(pts, x)
	}
	*c = pts
	return nil
}

// labels are env's labels with the profile's name, or nil when neither.
func (c *Config) labels(env workload.Env) map[string]string {
	l := maps.Clone(env.Labels)
	if c.prof != nil {
		if l == nil {
			l = map[string]string{}
		}
		l["profile"] = c.prof.Name
	}
	return l
}

// engineFlag is --ioengine: psync (the default, read back as "") or
// io_uring.
type engineFlag string

func (e *engineFlag) String() string { return string(*e) }
func (e *engineFlag) Type() string   { return "engine" }

func (e *engineFlag) Set(v string) error {
	switch v {
	case blockio.EnginePsync:
		*e = ""
	case blockio.EngineURing:
		*e = engineFlag(v)
	default:
		return fmt.Errorf("not an I/O engine (valid: %s)", strings.Join(blockio.Engines, ", "))
	}
	return nil
}

// engine is the flag's engine name, psync when unset.
func (e engineFlag) engine() string {
	if e == "" {
		return blockio.EnginePsync
	}
	return string(e)
}
