package spec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"vmbench/workload"
)

// SuiteKind is the kind: of a block-suite campaign file.
const SuiteKind FileKind = "block-suite"

// SuiteTool is the tool that runs a block suite's profiles, reached
// through the workload registry (its package registers it).
const SuiteTool = "vdbench"

// Suite is a block-suite campaign file: built-in vdbench profiles run
// one after the other on a list of targets (docs/vdbench.md, "Block-suite
// campaigns"). Keys are strict; every error names the file and line.
//
//	kind: block-suite
//	name: vdbench-suite
//	targets: [/dev/nvme0n1, /dev/nvme1n1]
//	profiles: [4k-random-read, sql, vdi-fc-boot]
//	threads: 0        # per target; 0 = each profile's own
//	force: false      # write to targets that carry a signature
//	overwrite-files: false  # write to existing files vmbench did not make
//	size: 0           # use the first N bytes of each target (sd size=); 0 = all
//	elapsed: 60       # optional: replace each profile's elapsed=, interval=,
//	interval: 5       #   warmup= and curve= (as vdbench's -e, -i, -w)
//	warmup: 10
//	curve: [10, 50, 100]
//	ioengine: psync   # or io_uring (vmbench vdbench run --ioengine)
//	simulate: {targets: 2, size: 256m, elapsed: 2, interval: 1, warmup: 0, curve: [10, 50, 100]}
type Suite struct {
	Kind        FileKind `yaml:"kind"`
	Name        string   `yaml:"name"`
	Description string   `yaml:"description,omitempty"`
	Source      string   `yaml:"source,omitempty"`
	Targets     []string `yaml:"targets"`
	Profiles    []string `yaml:"profiles"`
	Threads     int      `yaml:"threads,omitempty"`
	Force       bool     `yaml:"force,omitempty"`
	// OverwriteFiles is the tool's --overwrite-files: a target that is an
	// existing file vmbench did not make is written to (its contents
	// destroyed) instead of refused.
	OverwriteFiles bool      `yaml:"overwrite-files,omitempty"`
	Size           Size      `yaml:"size,omitempty"`
	Elapsed        *Seconds  `yaml:"elapsed,omitempty"`
	Interval       *Seconds  `yaml:"interval,omitempty"`
	Warmup         *Seconds  `yaml:"warmup,omitempty"`
	Curve          []float64 `yaml:"curve,omitempty"`
	// IOEngine is the tool's --ioengine for every profile: psync
	// (vdbench's model, the default) or io_uring; "" leaves the default.
	IOEngine string    `yaml:"ioengine,omitempty"`
	Simulate *SuiteSim `yaml:"simulate,omitempty"`
	// VMs, when set, runs the suite inside block-worker VMs, each on its
	// own data vDisks (SuiteVMs), instead of on Targets; VSphere places
	// them and Guest says how each guest is reached (as in a VM
	// campaign's file).
	VMs     *SuiteVMs `yaml:"vms,omitempty"`
	VSphere VSphere   `yaml:"vsphere,omitempty"`
	Guest   *Guest    `yaml:"guest,omitempty"`

	// SimulatedTargets is set by Simulated: the targets are temporary
	// files that RunSuite creates (Size bytes each) before checking them.
	SimulatedTargets bool `yaml:"-"`
	// Origin is where the suite was read from, for errors.
	Origin Origin `yaml:"-"`
	// profilesKey is where Profiles came from in the file.
	profilesKey string
}

// SuiteSim is a suite's simulate: block, what --simulate runs: temporary
// files instead of the targets, and shorter runs. Keys left out keep the
// suite's values (and those the profiles' own).
type SuiteSim struct {
	// Targets is the number of temporary files (default 2); a suite in
	// VMs has vms.data-disks files in each simulated guest instead.
	Targets int `yaml:"targets,omitempty"`
	// Hosts and Datastores shape the in-process vSphere simulator of a
	// suite in VMs (defaults 1, and the length of vms.datastores).
	Hosts      int `yaml:"hosts,omitempty"`
	Datastores int `yaml:"datastores,omitempty"`
	// Size is each file's size (default 256m).
	Size     Size      `yaml:"size,omitempty"`
	Threads  int       `yaml:"threads,omitempty"`
	Elapsed  *Seconds  `yaml:"elapsed,omitempty"`
	Interval *Seconds  `yaml:"interval,omitempty"`
	Warmup   *Seconds  `yaml:"warmup,omitempty"`
	Curve    []float64 `yaml:"curve,omitempty"`
	// Profiles is a subset of the suite's profiles (default all).
	Profiles []string `yaml:"profiles,omitempty"`
}

// Defaults and bounds of a suite.
const (
	DefaultSimTargets = 2
	DefaultSimSize    = Size("256m")
	// MaxSuiteThreads bounds threads: per target.
	MaxSuiteThreads = 4096
)

// toolValue reads a value with the flag parser of the suite tool's option
// flag, and returns it as that parser reads it back: the tool's own units
// and messages, its canonical form.
func toolValue(flag, v string) (string, error) {
	t, err := workload.Lookup(SuiteTool)
	if err != nil {
		return "", err
	}
	fs := pflag.NewFlagSet(SuiteTool, pflag.ContinueOnError)
	t.NewConfig().BindFlags(fs)
	f := fs.Lookup(flag)
	if f == nil {
		return "", fmt.Errorf("%s has no --%s", SuiteTool, flag)
	}
	if err := f.Value.Set(v); err != nil {
		return "", err
	}
	return f.Value.String(), nil
}

// Size is a size in vdbench's units (256m, 1g; binary), held as vdbench
// writes it back.
type Size string

// UnmarshalYAML reads the value with vdbench's size parser.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	v, err := toolValue("size", n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = Size(v)
	if v == "0" {
		*s = ""
	}
	return nil
}

// bytes is the size in bytes, from its canonical form (digits and at
// most one of k, m, g, t).
func (s Size) bytes() int64 {
	shift := map[byte]uint{'k': 10, 'm': 20, 'g': 30, 't': 40}
	v := string(s)
	var sh uint
	if len(v) > 0 && shift[v[len(v)-1]] > 0 {
		sh, v = shift[v[len(v)-1]], v[:len(v)-1]
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n << sh
}

// Seconds is elapsed:, interval: or warmup: in a suite file: whole
// seconds as vdbench writes them (60, 2m, 1h), held as whole seconds.
type Seconds string

// UnmarshalYAML reads the value with vdbench's parser of -e.
func (s *Seconds) UnmarshalYAML(n *yaml.Node) error {
	v, err := toolValue("elapsed", n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = Seconds(v)
	return nil
}

// MarshalYAML writes whole seconds, as a number.
func (s Seconds) MarshalYAML() (any, error) { return strconv.ParseInt(string(s), 10, 64) }

// LoadSuite reads and checks a block-suite file (see Suite). It touches
// no target.
func LoadSuite(path string) (*Suite, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSuite(path, b)
}

// suiteSections name the suite's sections in "unknown key" errors.
var suiteSections = map[string]section{"Suite": {"the top level", Suite{}}, "SuiteSim": {"simulate", SuiteSim{}},
	"SuiteVMs": {"vms", SuiteVMs{}}, "Guest": {"guest", Guest{}}, "VSphere": {"vsphere", VSphere{}}}

// ParseSuite decodes a block-suite file strictly and validates it; file
// names it in errors.
func ParseSuite(file string, data []byte) (*Suite, error) {
	var s Suite
	src, err := decodeFile(file, data, &s, "suite file", suiteSections)
	if err != nil {
		return nil, err
	}
	s.Origin = src
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// File is the suite's file name for messages ("suite" for a suite
// built in code).
func (s *Suite) File() string {
	if s.Origin.File == "" {
		return "suite"
	}
	return s.Origin.File
}

// Errorf is a problem of the value at path, named key in the message
// (after the file and line).
func (s *Suite) Errorf(path, key, format string, args ...any) error {
	src := s.Origin
	if src.File == "" {
		src.File = "suite"
	}
	return src.Errorf(path, "%s: %s", key, fmt.Sprintf(format, args...))
}

// Validate checks the suite without touching any target: kind, name,
// targets, known profiles, the values, the simulate block, and that each
// profile gives valid parameters with the suite's overrides.
func (s *Suite) Validate() error {
	var errs []error
	bad := func(path, key, format string, args ...any) {
		errs = append(errs, s.Errorf(path, key, format, args...))
	}
	if s.Kind != SuiteKind {
		bad("kind", "kind", "%q is not a suite kind (valid: %s)", s.Kind, SuiteKind)
	}
	if !campaignName.MatchString(s.Name) {
		bad("name", "name", "%q is not valid (1-40 letters, digits, '.', '_' or '-', starting with a letter or digit)", s.Name)
	}
	if s.inVMs() {
		errs = append(errs, s.validateVMs()...)
	} else if len(s.Targets) == 0 {
		bad("targets", "targets", "no targets: list the block devices or files to run on, or run the suite in VMs (vms:)")
	}
	for i, t := range s.Targets {
		switch {
		case strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\"\n\r"):
			bad("targets."+strconv.Itoa(i), "targets", "%q is not a usable path", t)
		case slices.Contains(s.Targets[:i], t):
			bad("targets."+strconv.Itoa(i), "targets", "%s is listed twice", t)
		}
	}
	errs = append(errs, s.checkProfiles(s.Profiles, "profiles"))
	s.checkValues(bad, "", s.Threads, s.Curve)
	if s.IOEngine != "" {
		if err := checkToolOption("ioengine", s.IOEngine); err != nil {
			bad("ioengine", "ioengine", "%q: %v", s.IOEngine, err)
		}
	}
	if sim := s.Simulate; sim != nil {
		if sim.Targets < 0 || sim.Targets > 16 {
			bad("simulate.targets", "simulate.targets", "%d is not valid (0 for the default of %d, up to 16)", sim.Targets, DefaultSimTargets)
		}
		if sim.Size != "" && sim.Size.bytes() < 1<<20 {
			bad("simulate.size", "simulate.size", "%s is too small (at least 1m)", sim.Size)
		}
		s.checkValues(bad, "simulate.", sim.Threads, sim.Curve)
		errs = append(errs, s.checkProfiles(sim.Profiles, "simulate.profiles"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c := s
	if s.inVMs() {
		// the targets' directory is not touched: Configs opens nothing
		c = s.ForVM(os.TempDir())
	}
	_, err := c.Configs()
	return err
}

// checkToolOption checks value for the suite tool's option name (the
// tool's own flag parsing: its error says what is valid).
func checkToolOption(name, value string) error {
	t, err := workload.Lookup(SuiteTool)
	if err != nil {
		return err
	}
	fs := pflag.NewFlagSet(SuiteTool, pflag.ContinueOnError)
	t.NewConfig().BindFlags(fs)
	f := fs.Lookup(name)
	if f == nil {
		return fmt.Errorf("%s has no --%s", SuiteTool, name)
	}
	return f.Value.Set(value)
}

// checkProfiles checks a list of profile names (at key) against the
// tool's workloads.
func (s *Suite) checkProfiles(names []string, key string) error {
	t, err := workload.Lookup(SuiteTool)
	if err != nil {
		return s.Errorf(key, "profiles", "%v", err)
	}
	var errs []error
	if len(names) == 0 && key == "profiles" {
		errs = append(errs, s.Errorf(key, "profiles", "no profiles (valid: %s)", strings.Join(t.Describe().Workloads, ", ")))
	}
	for i, n := range names {
		at := key + "." + strconv.Itoa(i)
		if err := t.NewConfig().Complete(n, nil, func(string) bool { return false }); err != nil {
			errs = append(errs, s.Errorf(at, "profiles", "%v", err))
		} else if slices.Contains(names[:i], n) {
			errs = append(errs, s.Errorf(at, "profiles", "%s is listed twice", n))
		}
	}
	return errors.Join(errs...)
}

// checkValues checks threads: and curve: at prefix ("" or "simulate.").
func (s *Suite) checkValues(bad func(path, key, format string, args ...any), prefix string, threads int, curve []float64) {
	if threads < 0 || threads > MaxSuiteThreads {
		bad(prefix+"threads", "threads", "%d is not valid (0 for each profile's own, or 1 to %d per target)", threads, MaxSuiteThreads)
	}
	if curve != nil && len(curve) == 0 {
		bad(prefix+"curve", "curve", "an empty list; list the points as percentages of the max run's rate (curve: [10, 50, 100]), or leave curve: out for each profile's own")
	}
	for i, v := range curve {
		if !(v > 0) || v > 1000 {
			bad(prefix+"curve."+strconv.Itoa(i), "curve", "point %s is not valid (a percentage of the max run's rate, above 0, at most 1000)",
				strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
}

// Simulated returns the suite as --simulate runs it: Simulate.Targets
// temporary files in dir (created by RunSuite), Simulate.Size each, the
// simulate block's threads, times, curve and profiles in place of the
// suite's, and force and overwrite-files off (the files are new).
func (s *Suite) Simulated(dir string) *Suite {
	c := *s
	c.Targets, c.Profiles, c.Curve = nil, slices.Clone(s.Profiles), slices.Clone(s.Curve)
	c.SimulatedTargets, c.Force, c.OverwriteFiles, c.Simulate = true, false, false, nil
	sim := s.Simulate
	if sim == nil {
		sim = &SuiteSim{}
	}
	n := sim.Targets
	if n == 0 {
		n = DefaultSimTargets
	}
	for i := range n {
		c.Targets = append(c.Targets, filepath.Join(dir, fmt.Sprintf("target%d.img", i+1)))
	}
	c.Size = sim.Size
	if c.Size == "" {
		c.Size = DefaultSimSize
	}
	if sim.Threads > 0 {
		c.Threads = sim.Threads
	}
	if sim.Elapsed != nil {
		c.Elapsed = sim.Elapsed
	}
	if sim.Interval != nil {
		c.Interval = sim.Interval
	}
	if sim.Warmup != nil {
		c.Warmup = sim.Warmup
	}
	if sim.Curve != nil {
		c.Curve = slices.Clone(sim.Curve)
	}
	if len(sim.Profiles) > 0 {
		c.Profiles, c.profilesKey = slices.Clone(sim.Profiles), "simulate.profiles"
	}
	if c.Description != "" {
		c.Description = "simulated, scaled down from: " + strings.TrimPrefix(c.Description, "simulated, scaled down from: ")
	}
	return &c
}
