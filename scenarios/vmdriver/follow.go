package vmdriver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"vmbench/agent"
	"vmbench/internal/boundedread"
	"vmbench/oltp"
	"vmbench/target"
	"vmbench/workload"
)

// follower follows one agent job: its status, its interval files (passed
// on to the observer as they appear) and its process.
type follower struct {
	t      target.Target
	dir    string
	env    workload.Env
	bounds oltp.RunConfig
	proc   target.Process
	next   int          // the next interval file to read
	phases []oltp.Phase // the phases announced to the observer
	// failing is when reads from the guest started failing (zero while
	// they succeed); reported once.
	failing time.Time
	// now is the clock for failing (time.Now; tests give their own).
	now func() time.Time
	// deadline, when set, is when a run step that has not ended is given
	// up: its planned end plus agentOverrun (an agent stopped or hung).
	deadline time.Time
	// grace is how long stop waits for the agent's final status;
	// StopGrace when 0.
	grace time.Duration
}

// follow polls until the agent's status is final, and returns it; an
// agent that failed, or ended without a final status, is an error.
func (f *follower) follow(ctx context.Context) (agent.Status, error) {
	tick := time.NewTicker(guestPoll)
	defer tick.Stop()
	name := f.t.Name()
	for {
		st, err := f.poll(ctx)
		if err != nil {
			if !f.retry(err) {
				return st, err
			}
			if ctx.Err() != nil {
				return f.stop(st)
			}
			<-tick.C
			continue
		}
		switch {
		case st.State == agent.StateDone:
			return st, nil
		case st.State == agent.StateFailed:
			if st.FlagError {
				return st, &workload.FlagError{Err: fmt.Errorf("agent on %s: %s", name, st.Error)}
			}
			return st, fmt.Errorf("agent on %s: %s", name, st.Error)
		}
		running, code, err := f.proc.State(ctx)
		if err == nil && !running {
			// It may have written its final status just before it ended.
			if st, err := f.poll(ctx); err == nil && (st.State == agent.StateDone || st.State == agent.StateFailed) {
				continue
			}
			return st, fmt.Errorf("agent on %s ended (exit code %d) while %s: see %s/agent.out there", name, code, st.State, f.dir)
		}
		if !f.deadline.IsZero() && time.Now().After(f.deadline) {
			st, _ = f.stop(st)
			return st, fmt.Errorf("agent on %s had not finished %s after the run's planned end (state %s): stopped", name, agentOverrun, st.State)
		}
		select {
		case <-ctx.Done():
			return f.stop(st)
		case <-tick.C:
		}
	}
}

// retry says whether a failed read from the guest is to be tried again:
// a read error (the guest unreachable, a file mid-download) for up to
// guestUnreachable, logged once; a file that is there but malformed is
// not retried.
func (f *follower) retry(err error) bool {
	var bad *badFileError
	if errors.As(err, &bad) {
		return false
	}
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	if f.failing.IsZero() {
		f.failing = now()
		if f.env.Log != nil {
			fmt.Fprintf(f.env.Log, "%v; trying again for up to %s\n", err, guestUnreachable)
		}
		return true
	}
	return now().Sub(f.failing) < guestUnreachable
}

// badFileError is a file read from the guest that is not what the agent
// writes: retrying does not mend it.
type badFileError struct{ err error }

func (e *badFileError) Error() string { return e.err.Error() }
func (e *badFileError) Unwrap() error { return e.err }

// refusedFile says whether err refuses a guest's file that is not a
// regular file or is over its bound: a bad file, which reading again does
// not mend, rather than a failed read.
func refusedFile(err error) bool {
	return errors.Is(err, boundedread.ErrTooLarge) || errors.Is(err, boundedread.ErrNotRegular)
}

// stop ends an agent after the campaign was cancelled: the agent writes
// its partial Result on SIGTERM, and the campaign waits for its final
// status at most the grace (StopGrace), and no longer than the
// agent's process runs: one that ended without a final status (killed
// before it could write one) has nothing more to say.
func (f *follower) stop(st agent.Status) (agent.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(f.grace, StopGrace))
	defer cancel()
	_ = f.proc.Kill(ctx) // one that ended already cannot be killed: the polls below read what it left
	tick := time.NewTicker(guestPoll)
	defer tick.Stop()
	for ctx.Err() == nil {
		if s, err := f.poll(ctx); err == nil {
			st = s
			if st.State == agent.StateDone || st.State == agent.StateFailed {
				break
			}
		}
		if running, _, err := f.proc.State(ctx); err == nil && !running {
			if s, err := f.poll(ctx); err == nil { // what it wrote as it ended
				st = s
			}
			break
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	return st, context.Canceled
}

// poll reads the status and every interval file written since the last
// poll, and passes the new intervals to the observer in order.
func (f *follower) poll(ctx context.Context) (agent.Status, error) {
	b, err := f.t.ReadFileMax(ctx, f.dir+"/"+agent.StatusFile, agent.MaxStatusSize)
	if errors.Is(err, fs.ErrNotExist) {
		return agent.Status{State: agent.StateStarting}, nil // not written yet
	}
	if refusedFile(err) {
		return agent.Status{}, &badFileError{err}
	}
	if err != nil {
		return agent.Status{}, fmt.Errorf("reading the agent's status on %s: %w", f.t.Name(), err)
	}
	f.failing = time.Time{}
	st, err := agent.ParseStatus(b)
	if err != nil {
		return st, &badFileError{fmt.Errorf("%s:%s/%s: %w", f.t.Name(), f.dir, agent.StatusFile, err)}
	}
	switch st.State {
	case agent.StatePrecondition:
		f.announce(oltp.PhasePrecondition)
	case agent.StateMeasure:
		f.announce(oltp.PhaseMeasure)
	default: // the other states start no phase of the live view
	}
	for ; f.next < st.Intervals; f.next++ {
		b, err := f.t.ReadFileMax(ctx, f.dir+"/"+agent.IntervalPath(f.next+1), agent.MaxIntervalSize)
		if refusedFile(err) {
			return st, &badFileError{fmt.Errorf("%s: interval %d: %w", f.t.Name(), f.next+1, err)}
		}
		if err != nil {
			return st, fmt.Errorf("reading interval %d on %s: %w", f.next+1, f.t.Name(), err)
		}
		iv, err := agent.ParseInterval(b)
		if err != nil {
			return st, &badFileError{fmt.Errorf("%s: interval %d: %w", f.t.Name(), f.next+1, err)}
		}
		r, err := iv.Report()
		if err != nil {
			return st, &badFileError{fmt.Errorf("%s: interval %d: %w", f.t.Name(), f.next+1, err)}
		}
		f.announce(r.Phase)
		f.env.OnInterval(r)
	}
	return st, nil
}

// announce tells the observer that phase has started, once per phase.
func (f *follower) announce(phase oltp.Phase) {
	if slices.Contains(f.phases, phase) {
		return
	}
	f.phases = append(f.phases, phase)
	length := f.bounds.Time
	if phase == oltp.PhasePrecondition {
		length = f.bounds.WarmupTime
	}
	f.env.OnPhase(phase, length)
}
