package blocksuite

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"time"

	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// This file checks a suite against the host it runs on: the profiles'
// bounds, the free space and the targets themselves.

// MaxTime bounds the time of all of a suite's profiles: a longer suite
// is taken for a typo in elapsed: or warmup:.
const MaxTime = 366 * 24 * time.Hour

// CheckHost checks suite s against this host before anything is
// created: each profile's bounds (I/O threads, targets, intervals kept
// in memory), the whole suite's time, and the space for the files its
// targets create. Each problem names the suite line that sets the value
// (threads:, interval:, elapsed:, targets:, size:, or under simulate:),
// or the profile's entry; a problem every profile reports alike (the
// free space of the targets they share) is listed once, with no profile.
func CheckHost(s *spec.Suite, plans []spec.SuitePlan) error {
	var errs []error
	var total time.Duration
	seen := map[string]int{}
	type problem struct {
		plan spec.SuitePlan
		fe   *workload.FlagError
	}
	var found []problem
	for _, p := range plans {
		total += p.Config.Bounds().Time
		pf, ok := p.Config.(workload.Preflighter)
		if !ok {
			continue
		}
		for _, e := range workload.Unjoin(pf.CheckHost()) {
			fe := &workload.FlagError{Err: e}
			errors.As(e, &fe)
			if seen[problemKey(fe)]++; seen[problemKey(fe)] == 1 {
				found = append(found, problem{p, fe})
			}
		}
	}
	for _, f := range found {
		path, ok := "", false
		if len(f.fe.Flags) > 0 {
			path, ok = s.KeyOf(f.fe.Flags[0])
		}
		if !ok {
			path = f.plan.At
		}
		if len(plans) > 1 && seen[problemKey(f.fe)] == len(plans) {
			errs = append(errs, s.Origin.Errorf(path, "%s", f.fe.Err))
			continue
		}
		errs = append(errs, s.Errorf(path, "profile "+f.plan.Profile, "%s", f.fe.Err))
	}
	if total > MaxTime {
		path, _ := s.KeyOf("elapsed")
		errs = append(errs, s.Errorf(path, "elapsed", "the %d profiles would take %s days in all; at most %s days",
			len(plans), days(total), days(MaxTime)))
	}
	return errors.Join(errs...)
}

func days(d time.Duration) string {
	return strconv.FormatFloat(math.Round(d.Hours()/24), 'f', -1, 64)
}

// checkTargets opens every target of plans as the profiles will (Preflighter's
// CheckTargets), creating nothing; each problem is listed once.
func checkTargets(plans []spec.SuitePlan) error {
	var errs []error
	var seen []string
	for _, p := range plans {
		pf, ok := p.Config.(workload.Preflighter)
		if !ok {
			continue
		}
		for _, e := range workload.Unjoin(pf.CheckTargets()) {
			if !slices.Contains(seen, e.Error()) {
				seen = append(seen, e.Error())
				errs = append(errs, e)
			}
		}
	}
	return errors.Join(errs...)
}

// problemKey is what makes two profiles' problems the same: the error's
// ProblemKey when it has one (a figure in its text, such as the free
// space a check read, may differ between the profiles' checks), else its
// text.
func problemKey(err error) string {
	var k interface{ ProblemKey() string }
	if errors.As(err, &k) {
		return k.ProblemKey()
	}
	return err.Error()
}
