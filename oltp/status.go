package oltp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Status is how a phase ended: StatusComplete, StatusInterrupted or
// StatusFailed, written as a Result's "status" (Result.Status; "" in a
// version 1 file, which Result.State reads).
type Status string

// Status values of Result.Status.
const (
	// StatusComplete: the phase ran to its planned end (--time, --events,
	// or the workload had no more events).
	StatusComplete Status = "complete"
	// StatusInterrupted: the run was stopped from outside (Ctrl-C, or a
	// campaign stopping this part because another failed); the figures
	// cover what was measured until then.
	StatusInterrupted Status = "interrupted"
	// StatusFailed: a fatal error stopped the run (Result.Error says
	// which, e.g. a KILL QUERY); the figures cover what was measured
	// until then.
	StatusFailed Status = "failed"
)

// State returns r's status, reading an empty Status (a version 1 file, or
// a Result made by hand) as interrupted when Interrupted is set and as
// complete otherwise.
func (r *Result) State() Status {
	switch {
	case r.Status != "":
		return r.Status
	case r.Interrupted:
		return StatusInterrupted
	}
	return StatusComplete
}

// SetStatus marks r by the error that ended its run: nil is complete, an
// error wrapping ErrInterrupted is interrupted, any other error failed;
// Error keeps the text. Run marks its Results itself; a caller that judges
// the error otherwise (a workload's own normal end) or that fails after
// Run (before writing the result file) sets it again.
func (r *Result) SetStatus(err error) {
	switch {
	case err == nil:
		r.Status, r.Error, r.Interrupted = StatusComplete, "", false
	case errors.Is(err, ErrInterrupted):
		r.Status, r.Error, r.Interrupted = StatusInterrupted, err.Error(), true
	default:
		r.Status, r.Error, r.Interrupted = StatusFailed, err.Error(), false
	}
}

// Overrun is a phase or a report interval that ran longer than planned
// because the runner handled its end late: on a host starved of CPU the
// goroutine that ends phases and ticks intervals may run seconds after its
// timer. The figures stay exact over what was covered (every event is
// counted in the interval whose clock covers it); the window is simply
// longer than asked for.
type Overrun struct {
	// Interval is the 1-based index into Intervals, 0 for the phase.
	Interval int `json:"interval,omitempty"`
	// Part names the part of a merged Result the overrun is from (its
	// labels, e.g. "vm=vm2"), empty in a single run.
	Part    string        `json:"part,omitempty"`
	Planned time.Duration `json:"planned_ns"`
	Ran     time.Duration `json:"ran_ns"`
}

// String says it in words: "phase ran 7.5 s for a planned 1 s: the host
// was starved".
func (o Overrun) String() string {
	what := "phase"
	if o.Interval > 0 {
		what = "interval " + strconv.Itoa(o.Interval)
	}
	if o.Part != "" {
		what = o.Part + ": " + what
	}
	return fmt.Sprintf("%s ran %s for a planned %s: the host was starved (the runner handled its end late)",
		what, secs(o.Ran), secs(o.Planned))
}

// secs writes d in seconds to the millisecond: "7.5 s", "1 s".
func secs(d time.Duration) string {
	t := strings.TrimRight(strconv.FormatFloat(d.Seconds(), 'f', 3, 64), "0")
	return strings.TrimSuffix(t, ".") + " s"
}

// OverrunSlack is how much longer than planned a phase or interval may run
// before it counts as an overrun: a tenth of the planned length, and at
// least OverrunFloor (timers fire a little late on any busy machine).
const (
	OverrunSlack = 0.10
	OverrunFloor = 50 * time.Millisecond
)

// overran reports whether ran exceeds planned by more than the slack.
func overran(planned, ran time.Duration) bool {
	return planned > 0 && ran > planned+max(time.Duration(float64(planned)*OverrunSlack), OverrunFloor)
}

// OverrunNotes says each overrun of res's precondition and then of res
// in a sentence, as the text reports print them: "Overran: phase ran 7.5 s
// for a planned 1 s: the host was starved (...); the figures cover the
// time it ran." precondition names the precondition phase in the
// workload's words ("Warm-up").
func OverrunNotes(res *Result, precondition string) []string {
	var l []string
	for _, r := range []*Result{res.Precondition, res} {
		if r == nil {
			continue
		}
		what := "Overran"
		if r.Phase == PhasePrecondition {
			what = precondition + " overran"
		}
		for _, ov := range r.Overruns {
			l = append(l, fmt.Sprintf("%s: %s; the figures cover the time it ran.", what, ov))
		}
	}
	return l
}

// overruns lists the overruns of r's phase and intervals.
func overruns(r *Result) []Overrun {
	var out []Overrun
	if overran(r.Planned, r.Elapsed) {
		out = append(out, Overrun{Planned: r.Planned, Ran: r.Elapsed})
	}
	for i, iv := range r.Intervals {
		if overran(iv.Planned, iv.Length) {
			out = append(out, Overrun{Interval: i + 1, Planned: iv.Planned, Ran: iv.Length})
		}
	}
	return out
}

// CatchUp policies of Result.CatchUp.
const (
	// CatchUpFullSpeed: arrivals keep their absolute schedule; those that
	// fell due while every thread was busy (a stall, an outage) start as
	// soon as threads are free, back to back, until the schedule is met:
	// after an outage the rate bursts above the target. None is dropped
	// within a phase. sysbench --rate drains its queue the same way
	// (akopytov/sysbench issue #224).
	CatchUpFullSpeed = "full-speed"
)

// CatchUpWords says what a catch-up policy does, in a sentence.
func CatchUpWords(policy string) string {
	switch policy {
	case CatchUpFullSpeed:
		return "arrivals keep their absolute schedule: those that fell due while every thread was busy start as soon as threads are free, back to back, so after a stall the rate bursts above the target until the schedule is met (as sysbench --rate)"
	case "":
		return ""
	}
	return "catch-up policy " + strconv.Quote(policy)
}
