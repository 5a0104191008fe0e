package vdbench

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// keyOf is the line of a suite key the user wrote: under simulate: first
// when the suite is simulated, then at the top level; ok is false when
// neither is in the file.
func (s *Suite) keyOf(name string) (line int, ok bool) {
	var paths [][]any
	if s.SimulatedTargets {
		paths = append(paths, []any{"simulate", name})
	}
	paths = append(paths, []any{name})
	for _, p := range paths {
		if l := s.line(p...); l > 0 && l != s.line(p[:len(p)-1]...) {
			return l, true
		}
	}
	return 0, false
}

// suiteKeyOf maps a parameter CheckBounds names to the suite key that
// sets it.
var suiteKeyOf = map[string]string{"threads": "threads", "forthreads": "threads", "interval": "interval", "elapsed": "elapsed", "sd": "targets"}

// CheckHost checks the suite against this host before anything is
// created: the bounds of CheckBounds for each profile (I/O threads,
// targets, intervals kept in memory) and for the whole suite (its total
// time), and the space for the files its targets create (CheckSpace;
// simulated targets are created in their directory). Each problem names
// the suite line that sets the value (threads:, interval:, elapsed:,
// targets:, size:, or under simulate:), or the profile's entry.
func (s *Suite) CheckHost(lim HostLimits) error {
	plans, err := s.Plans()
	if err != nil {
		return err
	}
	file := cmp.Or(s.File, "suite")
	key := s.profilesKey
	if key == nil {
		key = []any{"profiles"}
	}
	var errs []error
	var runs []Run
	var total float64 // seconds
	for i, p := range plans {
		runs = append(runs, p.Run)
		total += p.Length().Seconds()
		var joined interface{ Unwrap() []error }
		err := CheckBounds("", []Run{p.Run}, lim)
		if err == nil {
			continue
		}
		list := []error{err}
		if errors.As(err, &joined) {
			list = joined.Unwrap()
		}
		for _, e := range list {
			pe := &ParseError{Msg: e.Error()}
			errors.As(e, &pe)
			line, ok := s.keyOf(suiteKeyOf[pe.Keyword])
			if !ok {
				line = s.line(append(slices.Clone(key), i)...)
			}
			errs = append(errs, &ParseError{File: file, Line: line, Keyword: "profile " + p.Profile.Name + ": " + pe.Keyword, Msg: pe.Msg})
		}
	}
	if total > MaxTotalTime.Seconds() {
		line, _ := s.keyOf("elapsed")
		errs = append(errs, &ParseError{File: file, Line: line, Keyword: "elapsed",
			Msg: fmt.Sprintf("the %d profiles would take %s in all; at most %s", len(plans), longDuration(total), longDuration(MaxTotalTime.Seconds()))})
	}
	if err := CheckSpace(runs); err != nil {
		line, _ := s.keyOf("size")
		errs = append(errs, &ParseError{File: file, Line: line, Keyword: "size", Msg: err.Error()})
	}
	return errors.Join(errs...)
}
