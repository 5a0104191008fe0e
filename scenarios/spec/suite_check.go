package spec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"vmbench/workload"
)

// SuitePlan is one profile of a suite, ready to run: the tool's Config
// for it, validated.
type SuitePlan struct {
	Profile string
	Config  workload.Config
	// at is the path of the profile's entry in the file.
	At string
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
	t, err := workload.Lookup(SuiteTool)
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
		fs := pflag.NewFlagSet(SuiteTool, pflag.ContinueOnError)
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
			errs = append(errs, s.Errorf(at, "profile "+name, "%v", err))
			continue
		}
		plans = append(plans, SuitePlan{Profile: name, Config: cfg, At: at})
	}
	return plans, errors.Join(errs...)
}

// KeyOf is the path of the suite key that sets a tool option, as the user
// wrote it: under simulate: first when the suite is simulated, then at the
// top level; ok is false when neither is in the file.
func (s *Suite) KeyOf(flag string) (path string, ok bool) {
	name := map[string]string{"target": "targets"}[flag]
	if name == "" {
		name = flag
	}
	if s.SimulatedTargets && s.Origin.Line("simulate."+name) != s.Origin.Line("simulate") {
		return "simulate." + name, true
	}
	if s.Origin.Line(name) > 0 {
		return name, true
	}
	return "", false
}
