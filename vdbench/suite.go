package vdbench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// SuiteKind is the kind: of a block-suite campaign file.
const SuiteKind = "block-suite"

// Suite is a block-suite campaign file: built-in profiles run one after
// the other on a list of targets (the README's block-suite section). Keys are
// strict; every error names the file and line.
//
//	kind: block-suite
//	name: vdbench-suite
//	targets: [/dev/nvme0n1, /dev/nvme1n1]
//	profiles: [4k-random-read, sql, vdi-fc-boot]
//	threads: 0        # per target; 0 = each profile's own
//	force: false      # write to targets that carry a signature
//	size: 0           # use the first N bytes of each target (sd size=); 0 = all
//	elapsed: 60       # optional: replace each profile's elapsed=, interval=,
//	interval: 5       #   warmup= and curve= (as vdbench's -e, -i, -w)
//	warmup: 10
//	curve: [10, 50, 100]
//	simulate: {targets: 2, size: 256m, elapsed: 2, interval: 1, warmup: 0, curve: [10, 50, 100]}
type Suite struct {
	Kind        string    `yaml:"kind"`
	Name        string    `yaml:"name"`
	Description string    `yaml:"description,omitempty"`
	Source      string    `yaml:"source,omitempty"`
	Targets     []string  `yaml:"targets"`
	Profiles    []string  `yaml:"profiles"`
	Threads     int       `yaml:"threads,omitempty"`
	Force       bool      `yaml:"force,omitempty"`
	Size        Bytes     `yaml:"size,omitempty"`
	Elapsed     *Seconds  `yaml:"elapsed,omitempty"`
	Interval    *Seconds  `yaml:"interval,omitempty"`
	Warmup      *Seconds  `yaml:"warmup,omitempty"`
	Curve       []float64 `yaml:"curve,omitempty"`
	Simulate    *SuiteSim `yaml:"simulate,omitempty"`

	// File is the path the suite was read from (for messages).
	File string `yaml:"-"`
	// SimulatedTargets is set by Simulated: the targets are temporary
	// files that RunSuite creates (Size bytes each) before checking them.
	SimulatedTargets bool `yaml:"-"`
	// doc is the parsed YAML, for the line numbers of later errors;
	// profilesKey is where Profiles came from in it.
	doc         *yaml.Node
	profilesKey []any
}

// SuiteSim is a suite's simulate: block, what --simulate runs: temporary
// files instead of the targets, and shorter runs. Keys left out keep the
// suite's values (and those the profiles' own).
type SuiteSim struct {
	// Targets is the number of temporary files (default 2).
	Targets int `yaml:"targets,omitempty"`
	// Size is each file's size (default 256m).
	Size     Bytes     `yaml:"size,omitempty"`
	Threads  int       `yaml:"threads,omitempty"`
	Elapsed  *Seconds  `yaml:"elapsed,omitempty"`
	Interval *Seconds  `yaml:"interval,omitempty"`
	Warmup   *Seconds  `yaml:"warmup,omitempty"`
	Curve    []float64 `yaml:"curve,omitempty"`
	// Profiles is a subset of the suite's profiles (default all).
	Profiles []string `yaml:"profiles,omitempty"`
}

// Defaults of the simulate block.
const (
	DefaultSimTargets = 2
	DefaultSimSize    = 256 << 20
	// MaxSuiteThreads bounds threads: per target.
	MaxSuiteThreads = 4096
)

// Seconds is elapsed=, interval= or warmup= in a suite file: whole
// seconds as vdbench writes them (60, 2m, 1h).
type Seconds time.Duration

// UnmarshalYAML reads the value with vdbench's parser.
func (s *Seconds) UnmarshalYAML(n *yaml.Node) error {
	d, err := parseSeconds(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = Seconds(d)
	return nil
}

// MarshalYAML writes whole seconds.
func (s Seconds) MarshalYAML() (any, error) { return int64(time.Duration(s) / time.Second), nil }

// Bytes is a size in a suite file, in vdbench's units (256m, 1g).
type Bytes int64

// UnmarshalYAML reads the value with ParseSize.
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = Bytes(v)
	return nil
}

// MarshalYAML writes the size as vdbench does (256m).
func (b Bytes) MarshalYAML() (any, error) { return FormatSize(int64(b)), nil }

// ParseSeconds reads a duration as vdbench's elapsed=, interval= and
// warmup= (and its -e, -i, -w options): whole seconds, or with m or h.
func ParseSeconds(s string) (time.Duration, error) { return parseSeconds(s) }

// LoadSuite reads and checks a block-suite file (see Suite). It touches
// no target: RunSuite (or CheckTargets) does.
func LoadSuite(path string) (*Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSuite(path, b)
}

var (
	suiteYAMLPrefix = regexp.MustCompile(`^yaml: (unmarshal errors:\n\s*)?`)
	suiteUnknown    = regexp.MustCompile(`field (\S+) not found in type vdbench\.(\w+)`)
	suiteName       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)
)

// ParseSuite decodes a block-suite file strictly and validates it; file
// names it in errors.
func ParseSuite(file string, data []byte) (*Suite, error) {
	var s Suite
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the suite file is empty", file)
		}
		msg := suiteYAMLPrefix.ReplaceAllString(err.Error(), "")
		msg = suiteUnknown.ReplaceAllStringFunc(msg, func(m string) string {
			sub := suiteUnknown.FindStringSubmatch(m)
			section, keys := "the top level", "kind, name, description, source, targets, profiles, threads, force, size, elapsed, interval, warmup, curve, simulate"
			if sub[2] == "SuiteSim" {
				section, keys = "simulate", "targets, size, threads, elapsed, interval, warmup, curve, profiles"
			}
			return fmt.Sprintf("unknown key %q in %s (valid: %s)", sub[1], section, keys)
		})
		return nil, fmt.Errorf("%s: %s", file, strings.ReplaceAll(msg, "\n  ", "; "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: holds more than one YAML document (line %d); a suite file is one document", file, extra.Line)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s.File, s.doc = file, &doc
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// line returns the line of the value at path in the file (a key, then
// list indexes or keys), or of the nearest part of it that exists; 0 when
// the suite was not read from a file.
func (s *Suite) line(path ...any) int {
	if s.doc == nil || len(s.doc.Content) == 0 {
		return 0
	}
	n := s.doc.Content[0]
	for _, p := range path {
		var next *yaml.Node
		switch k := p.(type) {
		case string:
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return n.Line
}

// Validate checks the suite without touching any target: kind, name,
// targets, known profiles, the values, the simulate block, and that each
// profile gives valid parameters with the suite's overrides.
func (s *Suite) Validate() error {
	file := cmp.Or(s.File, "suite")
	var errs []error
	bad := func(line int, key, format string, args ...any) {
		errs = append(errs, &ParseError{File: file, Line: line, Keyword: key, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Kind != SuiteKind {
		bad(s.line("kind"), "kind", "%q is not a suite kind (valid: %s)", s.Kind, SuiteKind)
	}
	if !suiteName.MatchString(s.Name) {
		bad(s.line("name"), "name", "%q is not valid (1-40 letters, digits, '.', '_' or '-', starting with a letter or digit)", s.Name)
	}
	if len(s.Targets) == 0 {
		bad(s.line("targets"), "targets", "no targets: list the block devices or files to run on")
	}
	for i, t := range s.Targets {
		switch {
		case strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\"\n\r"):
			bad(s.line("targets", i), "targets", "%q is not a usable path", t)
		case slices.Contains(s.Targets[:i], t):
			bad(s.line("targets", i), "targets", "%s is listed twice", t)
		}
	}
	checkProfiles := func(names []string, key ...any) {
		if len(names) == 0 && len(key) == 1 {
			bad(s.line(key...), "profiles", "no profiles (valid: %s)", strings.Join(profileNames(), ", "))
		}
		for i, n := range names {
			if _, err := ProfileByName(n); err != nil {
				bad(s.line(append(key, i)...), "profiles", "%v", err)
			} else if slices.Contains(names[:i], n) {
				bad(s.line(append(key, i)...), "profiles", "%s is listed twice", n)
			}
		}
	}
	checkProfiles(s.Profiles, "profiles")
	checkThreads := func(t int, key ...any) {
		if t < 0 || t > MaxSuiteThreads {
			bad(s.line(key...), "threads", "%d is not valid (0 for each profile's own, or 1 to %d per target)", t, MaxSuiteThreads)
		}
	}
	checkThreads(s.Threads, "threads")
	checkCurve := func(c []float64, key ...any) {
		for i, v := range c {
			if !(v > 0) || v > 1000 {
				bad(s.line(append(key, i)...), "curve", "point %s is not valid (a percentage of the max run's rate, above 0, at most 1000)", formatNum(v))
			}
		}
	}
	checkCurve(s.Curve, "curve")
	if sim := s.Simulate; sim != nil {
		if sim.Targets < 0 || sim.Targets > 16 {
			bad(s.line("simulate", "targets"), "simulate.targets", "%d is not valid (0 for the default of %d, up to 16)", sim.Targets, DefaultSimTargets)
		}
		if sim.Size != 0 && sim.Size < 1<<20 {
			bad(s.line("simulate", "size"), "simulate.size", "%s is too small (at least 1m)", FormatSize(int64(sim.Size)))
		}
		checkThreads(sim.Threads, "simulate", "threads")
		checkCurve(sim.Curve, "simulate", "curve")
		checkProfiles(sim.Profiles, "simulate", "profiles")
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if _, err := s.Plans(); err != nil {
		return err
	}
	return nil
}

func profileNames() []string {
	var n []string
	for _, p := range Profiles() {
		n = append(n, p.Name)
	}
	return n
}

// Simulated returns the suite as --simulate runs it: Simulate.Targets
// temporary files in dir (created by RunSuite), Simulate.Size each, the
// simulate block's threads, times, curve and profiles in place of the
// suite's, and force off (the files are new).
func (s *Suite) Simulated(dir string) *Suite {
	c := *s
	c.Targets, c.Profiles, c.Curve = nil, slices.Clone(s.Profiles), slices.Clone(s.Curve)
	c.SimulatedTargets, c.Force, c.Simulate = true, false, nil
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
	if c.Size == 0 {
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
		c.Profiles, c.profilesKey = slices.Clone(sim.Profiles), []any{"simulate", "profiles"}
	}
	if c.Description != "" {
		c.Description = "simulated, scaled down from: " + c.Description
	}
	return &c
}

// Overrides replace the times of every rd of a parameter file, as
// vdbench's -e, -i and -w options do, and the curve points of every
// iorate=curve rd. Nil or empty fields keep the file's values.
type Overrides struct {
	Elapsed, Interval, Warmup *time.Duration
	Curve                     []float64
}

// Override applies o to every rd of p and validates the result. When
// elapsed= is replaced and interval= is not, an interval that no longer
// fits (elapsed under two intervals, or not a multiple of it) becomes
// vdbench's default for the new elapsed: min(elapsed/2, 60 s) in whole
// seconds.
func (p *Params) Override(o Overrides) error {
	for i := range p.RDs {
		rd := &p.RDs[i]
		// An error in a replaced value names the rd's line, not the
		// file's keyword that no longer applies.
		rd.keyLines = maps.Clone(rd.keyLines)
		for kw, set := range map[string]bool{"elapsed": o.Elapsed != nil, "interval": o.Interval != nil,
			"warmup": o.Warmup != nil, "curve": len(o.Curve) > 0 && rd.IORate.Curve} {
			if set {
				delete(rd.keyLines, kw)
			}
		}
		if o.Elapsed != nil {
			rd.Elapsed = *o.Elapsed
			if o.Interval == nil && (rd.Interval <= 0 || rd.Elapsed < 2*rd.Interval || rd.Elapsed%rd.Interval != 0) {
				rd.Interval = max(min(rd.Elapsed/2, DefaultMaxInterval).Truncate(time.Second), time.Second)
			}
		}
		if o.Interval != nil {
			rd.Interval = *o.Interval
		}
		if o.Warmup != nil {
			rd.Warmup = *o.Warmup
		}
		if len(o.Curve) > 0 && rd.IORate.Curve {
			rd.Curve = slices.Clone(o.Curve)
		}
	}
	return p.Validate()
}

func (s *Suite) overrides() Overrides {
	var o Overrides
	for _, f := range []struct {
		src *Seconds
		dst **time.Duration
	}{{s.Elapsed, &o.Elapsed}, {s.Interval, &o.Interval}, {s.Warmup, &o.Warmup}} {
		if f.src != nil {
			d := time.Duration(*f.src)
			*f.dst = &d
		}
	}
	o.Curve = s.Curve
	return o
}

// SuitePlan is one profile of a suite, ready to run.
type SuitePlan struct {
	Profile Profile
	Params  *Params
	// Run is the profile's one expanded run.
	Run Run
}

// Plans instantiates every profile of the suite for its targets, with the
// suite's threads, size and overrides. It touches no target.
func (s *Suite) Plans() ([]SuitePlan, error) {
	var plans []SuitePlan
	var errs []error
	o := s.overrides()
	key := s.profilesKey
	if key == nil {
		key = []any{"profiles"}
	}
	for i, name := range s.Profiles {
		fail := func(err error) {
			errs = append(errs, &ParseError{File: cmp.Or(s.File, "suite"), Line: s.line(append(slices.Clone(key), i)...),
				Keyword: "profile " + name, Msg: err.Error()})
		}
		prof, err := ProfileByName(name)
		if err != nil {
			fail(err)
			continue
		}
		params, err := prof.Params(s.Targets, s.Threads)
		if err != nil {
			fail(err)
			continue
		}
		for j := range params.SDs {
			params.SDs[j].Size = int64(s.Size)
		}
		if err := params.Override(o); err != nil {
			fail(fmt.Errorf("with the suite's elapsed, interval, warmup or curve: %w", err))
			continue
		}
		runs, err := params.Runs()
		if err != nil {
			fail(err)
			continue
		}
		if len(runs) != 1 {
			fail(fmt.Errorf("expands to %d runs; a suite profile must be one run", len(runs)))
			continue
		}
		plans = append(plans, SuitePlan{Profile: prof, Params: params, Run: runs[0]})
	}
	return plans, errors.Join(errs...)
}

// Length is how long the plan's run takes: its points, each warmup= plus
// elapsed=, plus the start margin.
func (p SuitePlan) Length() time.Duration {
	rd := p.Run.RD
	points := 1
	switch {
	case rd.IORate.Curve:
		points += len(rd.Curve)
	case len(rd.IORate.Rates) > 0:
		points = len(rd.IORate.Rates)
	}
	return timesDuration(points, addDuration(addDuration(rd.Warmup, rd.Elapsed), startDelay))
}

// Points is the number of points of the plan's run.
func (p SuitePlan) Points() int {
	rd := p.Run.RD
	switch {
	case rd.IORate.Curve:
		return 1 + len(rd.Curve)
	case len(rd.IORate.Rates) > 0:
		return len(rd.IORate.Rates)
	}
	return 1
}
