package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vmbench/workload"
)

// MaxSuiteTime bounds the time of all of a suite's profiles: a longer
// suite is taken for a typo in elapsed: or warmup:.
const MaxSuiteTime = 366 * 24 * time.Hour

// SuitePlan is one profile of a suite, ready to run: the tool's Config
// for it, validated.
type SuitePlan struct {
	Profile string
	Config  workload.Config
	// at is the path of the profile's entry in the file.
	at string
}

// flags are the tool options the suite sets for every profile.
func (s *Suite) flags() [][2]string {
	var f [][2]string
	for _, t := range s.Targets {
		f = append(f, [2]string{"target", t})
	}
	f = append(f, [2]string{"threads", strconv.Itoa(s.Threads)})
	if s.Size != "" {
		f = append(f, [2]string{"size", string(s.Size)})
	}
	for _, o := range []struct {
		name string
		v    *Seconds
	}{{"elapsed", s.Elapsed}, {"interval", s.Interval}, {"warmup", s.Warmup}} {
		if o.v != nil {
			f = append(f, [2]string{o.name, string(*o.v)})
		}
	}
	if len(s.Curve) > 0 {
		var pts []string
		for _, v := range s.Curve {
			pts = append(pts, strconv.FormatFloat(v, 'f', -1, 64))
		}
		f = append(f, [2]string{"curve", strings.Join(pts, ",")})
	}
	if s.Force {
		f = append(f, [2]string{"force", "true"})
	}
	if s.OverwriteFiles {
		f = append(f, [2]string{"overwrite-files", "true"})
	}
	if s.IOEngine != "" {
		f = append(f, [2]string{"ioengine", s.IOEngine})
	}
	if s.SimulatedTargets {
		f = append(f, [2]string{"temporary-targets", "true"})
	}
	return f
}

// Configs instantiates every profile of the suite through the tool's
// Config, with the suite's targets, threads, size and overrides, and
// validates each. It touches no target. Each problem names the
// profile's line.
func (s *Suite) Configs() ([]SuitePlan, error) {
	t, err := workload.Lookup(suiteTool)
	if err != nil {
		return nil, err
	}
	key := s.profilesKey
	if key == "" {
		key = "profiles"
	}
	var plans []SuitePlan
	var errs []error
	flags := s.flags()
	for i, name := range s.Profiles {
		at := key + "." + strconv.Itoa(i)
		cfg := t.NewConfig()
		fs := pflag.NewFlagSet(suiteTool, pflag.ContinueOnError)
		cfg.BindFlags(fs)
		err := cfg.Complete(name, nil, fs.Changed)
		for _, f := range flags {
			if err == nil {
				err = fs.Set(f[0], f[1])
			}
		}
		if err == nil {
			err = cfg.Validate()
		}
		var fe *workload.FlagError
		if errors.As(err, &fe) {
			err = fmt.Errorf("with the suite's elapsed, interval, warmup, curve or ioengine: %w", fe.Err)
		}
		if err != nil {
			errs = append(errs, s.errorf(at, "profile "+name, "%v", err))
			continue
		}
		plans = append(plans, SuitePlan{Profile: name, Config: cfg, at: at})
	}
	return plans, errors.Join(errs...)
}

// keyOf is the path of the suite key that sets a tool option, as the user
// wrote it: under simulate: first when the suite is simulated, then at the
// top level; ok is false when neither is in the file.
func (s *Suite) keyOf(flag string) (path string, ok bool) {
	name := map[string]string{"target": "targets"}[flag]
	if name == "" {
		name = flag
	}
	if s.SimulatedTargets && s.src.line("simulate."+name) != s.src.line("simulate") {
		return "simulate." + name, true
	}
	if s.src.line(name) > 0 {
		return name, true
	}
	return "", false
}

// CheckHost checks the suite against this host before anything is
// created: each profile's bounds (I/O threads, targets, intervals kept
// in memory), the whole suite's time, and the space for the files its
// targets create. Each problem names the suite line that sets the value
// (threads:, interval:, elapsed:, targets:, size:, or under simulate:),
// or the profile's entry; a problem every profile reports alike (the
// free space of the targets they share) is listed once, with no profile.
func (s *Suite) CheckHost(plans []SuitePlan) error {
	var errs []error
	var total time.Duration
	seen := map[string]int{}
	type problem struct {
		plan SuitePlan
		fe   *workload.FlagError
	}
	var found []problem
	for _, p := range plans {
		total += p.Config.Bounds().Time
		pf, ok := p.Config.(workload.Preflighter)
		if !ok {
			continue
		}
		for _, e := range unjoin(pf.CheckHost()) {
			fe := &workload.FlagError{Err: e}
			errors.As(e, &fe)
			if seen[fe.Error()]++; seen[fe.Error()] == 1 {
				found = append(found, problem{p, fe})
			}
		}
	}
	for _, f := range found {
		path, ok := "", false
		if len(f.fe.Flags) > 0 {
			path, ok = s.keyOf(f.fe.Flags[0])
		}
		if !ok {
			path = f.plan.at
		}
		if len(plans) > 1 && seen[f.fe.Error()] == len(plans) {
			errs = append(errs, s.src.errorf(path, "%s", f.fe.Err))
			continue
		}
		errs = append(errs, s.errorf(path, "profile "+f.plan.Profile, "%s", f.fe.Err))
	}
	if total > MaxSuiteTime {
		path, _ := s.keyOf("elapsed")
		errs = append(errs, s.errorf(path, "elapsed", "the %d profiles would take %s days in all; at most %s days",
			len(plans), days(total), days(MaxSuiteTime)))
	}
	return errors.Join(errs...)
}

func days(d time.Duration) string {
	return strconv.FormatFloat(math.Round(d.Hours()/24), 'f', -1, 64)
}

// CheckTargets opens every target as the profiles will (Preflighter's
// CheckTargets), creating nothing; each problem is listed once.
func (s *Suite) CheckTargets(plans []SuitePlan) error {
	var errs []error
	var seen []string
	for _, p := range plans {
		pf, ok := p.Config.(workload.Preflighter)
		if !ok {
			continue
		}
		for _, e := range unjoin(pf.CheckTargets()) {
			if !slices.Contains(seen, e.Error()) {
				seen = append(seen, e.Error())
				errs = append(errs, e)
			}
		}
	}
	return errors.Join(errs...)
}

// unjoin returns the errors an errors.Join holds, or err alone.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	var j interface{ Unwrap() []error }
	if errors.As(err, &j) {
		return j.Unwrap()
	}
	return []error{err}
}
