package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"vmbench/oltp"
	"vmbench/workload"
)

// ErrInterrupted is matched (errors.Is) by Run's error when its context
// was cancelled (SIGINT or SIGTERM in the CLI); the error also wraps
// context.Canceled. Status.Error is then "interrupted", or "interrupted
// before the start" when the run step was cancelled while it waited for
// the job's StartAt (nothing measured: no result.json, record.json,
// intervals/ or intervals.hlog is written).
var ErrInterrupted = errors.New("interrupted")

// errBeforeStart marks a run step cancelled before the job's StartAt.
var errBeforeStart = errors.New("interrupted before the start")

// Run runs the job in dir (an existing directory holding job.json) and
// leaves the files the package comment lists. It first takes dir's
// LockFile (see ErrLocked: another agent's live lock makes Run return at
// once, writing nothing), removed when Run returns. It writes status.json
// (StateStarting), then reads and checks the job (ParseJob), finds the
// block device of each of the job's Disks in the guest (its path becomes
// a TargetFlag, in order; see ErrDiskPlacement), looks up its tool,
// parses its workload and flags (workload.Parse, connection flags
// refused), gives a workload.Connector the job's Database with the
// password getenv(PasswordEnv) returns, and validates; with Disks, the
// tool's workload.Preflighter CheckTargets then checks the devices (in
// use, mounted, signatures). A problem there leaves status.json and
// job.json alone in dir. Then each step runs in order, its progress lines
// appended to log.txt (created at the first line); the run step's ticks
// become interval files (intervals/ created with the first) and
// intervals.hlog, its phases move the status to StatePrecondition and
// StateMeasure, and its Output is written (result.json, record.json) also
// when the run stopped early, unless it was interrupted before the start.
//
// On success the status is StateDone and Run returns nil. On a failure it
// is StateFailed with the error's message (FlagError set when IsBadInput),
// and the error is returned; when ctx was cancelled the message is
// "interrupted" (or "interrupted before the start") and the error wraps
// ErrInterrupted and context.Canceled. A bad input found once a step has
// begun (a tpcc flag that does not fit the loaded database, for one) may
// leave log.txt with the lines the tool wrote before it; nothing else.
// Every file but log.txt is written atomically. getenv may be nil.
func Run(ctx context.Context, dir string, getenv func(string) string) error {
	return run(ctx, dir, getenv, hooks{})
}

// hooks are what tests change in run.
type hooks struct {
	onStatus func(Status) // called with every status written
	sysRoot  string       // where sys/block is read; "" is "/"
}

// run is Run with h.
func run(ctx context.Context, dir string, getenv func(string) string, h hooks) (err error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	lock, err := lockDir(dir, time.Now())
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, lock.unlock()) }()
	st := &status{dir: dir, onStatus: h.onStatus, s: Status{Version: StatusVersion, PID: os.Getpid()}}
	if err := st.set(StateStarting, ""); err != nil {
		return err
	}
	job, cfg, err := load(dir, getenv, cmp.Or(h.sysRoot, "/"))
	if err != nil {
		return st.fail(ctx, err)
	}
	logf := &lazyLog{path: filepath.Join(dir, LogFile)}
	defer logf.Close()
	if lock.tookOver != "" {
		fmt.Fprintln(logf, lock.tookOver)
	}
	env := workload.Env{Log: logf, Labels: job.Labels}
	for _, step := range job.Steps {
		if err := runStep(ctx, st, cfg, job, step, env); err != nil {
			return st.fail(ctx, err)
		}
	}
	if err := logf.Close(); err != nil {
		return st.fail(ctx, fmt.Errorf("closing %s: %w", LogFile, err))
	}
	return st.set(StateDone, "")
}

// runStep runs one step of job with cfg.
func runStep(ctx context.Context, st *status, cfg workload.Config, job *Job, step workload.Verb, env workload.Env) error {
	switch step {
	case workload.VerbPrepare:
		if err := st.set(StatePrepare, step); err != nil {
			return err
		}
		return cfg.Prepare(ctx, env)
	case workload.VerbRun:
		return runRun(ctx, st, cfg, job, env)
	case workload.VerbCheck:
		if err := st.set(StateCheck, step); err != nil {
			return err
		}
		ch, ok := cfg.(workload.Checker)
		if !ok { // ParseJob refuses it; kept for a Config that changed its mind
			return jobErrorf("steps: %s has no consistency checks", job.Tool)
		}
		return ch.Check(ctx, env)
	case workload.VerbCleanup:
		if err := st.set(StateCleanup, step); err != nil {
			return err
		}
		return cfg.Cleanup(ctx, env)
	}
	return jobErrorf("steps: %q is not a step", step)
}

// runRun runs the run step: StateWaiting until the first phase, interval
// files and hlog lines from the ticks, then result.json and record.json
// from whatever Output Run returned (also beside an error).
func runRun(ctx context.Context, st *status, cfg workload.Config, job *Job, env workload.Env) error {
	if err := st.set(StateWaiting, workload.VerbRun); err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := &observer{st: st, cancel: cancel}
	stop := context.AfterFunc(ctx, obs.cancelled)
	defer stop()
	env.Observer, env.StartAt = obs, job.StartAt
	out, err := cfg.Run(runCtx, env)
	obsErr := obs.failure()
	if obsErr != nil {
		err = obsErr // the run was stopped for it
	}
	if ctx.Err() != nil && obs.beforeStart(job.StartAt) {
		return errors.Join(errBeforeStart, err) // nothing measured: no output claims otherwise
	}
	errs := []error{err, obs.hlog.flush(st.dir)}
	if out != nil {
		errs = append(errs, writeOutput(st.dir, out.Result, out.Record))
	}
	return errors.Join(errs...)
}

// observer turns a run's ticks into interval files and hlog lines and its
// phases into states. The first error writing them stops the run (cancel)
// and is kept.
type observer struct {
	st     *status
	cancel context.CancelFunc
	hlog   hlog
	seq    int
	mu     sync.Mutex // guards the fields below: Run's goroutine reads them after Run returned
	err    error
	// began says a phase or an interval was reported; cancelAt is when
	// Run's context was cancelled (zero if it was not).
	began    bool
	cancelAt time.Time
}

// cancelled notes when Run's context was cancelled.
func (o *observer) cancelled() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cancelAt = time.Now()
}

// beforeStart says, for a cancelled run, that it was cancelled before
// startAt (non-zero) and before any phase or interval was reported.
// context.AfterFunc runs cancelled in a goroutine of its own, which may
// not have run yet: the cancellation was then no later than now.
func (o *observer) beforeStart(startAt time.Time) bool {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	return !startAt.IsZero() && !o.began && cmp.Or(o.cancelAt, now).Before(startAt)
}

// begin notes that the run has begun measuring.
func (o *observer) begin() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.began = true
}

// Phase moves the status to the phase's state.
func (o *observer) Phase(name oltp.Phase, _ time.Duration) {
	o.begin()
	state := StateMeasure
	if name == oltp.PhasePrecondition {
		state = StatePrecondition
	}
	o.keep(o.st.set(state, workload.VerbRun))
}

// Interval writes the next interval file, adds its hlog lines and counts
// it in the status.
func (o *observer) Interval(r oltp.IntervalReport) {
	o.begin()
	if o.failure() != nil {
		return
	}
	if o.seq == 0 {
		if err := os.MkdirAll(filepath.Join(o.st.dir, IntervalDir), 0o755); err != nil {
			o.keep(fmt.Errorf("creating %s: %w", IntervalDir, err))
			return
		}
	}
	iv := NewInterval(o.seq+1, r)
	if err := writeInterval(o.st.dir, iv); err != nil {
		o.keep(fmt.Errorf("writing %s: %w", IntervalPath(iv.Seq), err))
		return
	}
	o.seq = iv.Seq
	o.keep(o.hlog.add(iv))
	o.keep(o.st.setIntervals(o.seq))
}

func (o *observer) keep(err error) {
	if err == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
		o.cancel()
	}
}

func (o *observer) failure() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// status is status.json, rewritten atomically at every change.
type status struct {
	dir      string
	onStatus func(Status)
	mu       sync.Mutex // the observer's goroutine and Run's write it
	s        Status
}

// set writes the status with state and step.
func (st *status) set(state State, step workload.Verb) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.State, st.s.Step = state, step
	return st.writeLocked()
}

// setIntervals writes the status with n interval files written.
func (st *status) setIntervals(n int) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.Intervals = n
	return st.writeLocked()
}

func (st *status) writeLocked() error {
	st.s.Updated = time.Now()
	if err := writeStatus(st.dir, st.s); err != nil {
		return fmt.Errorf("writing %s: %w", StatusFile, err)
	}
	if st.onStatus != nil {
		st.onStatus(st.s)
	}
	return nil
}

// fail writes StateFailed for err, keeping the step that failed, and
// returns err (wrapping ErrInterrupted when ctx was cancelled), joined
// with any error writing the status.
func (st *status) fail(ctx context.Context, err error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.State, st.s.Error, st.s.FlagError = StateFailed, err.Error(), IsBadInput(err)
	if ctx.Err() != nil && !IsBadInput(err) {
		msg := ErrInterrupted.Error()
		if errors.Is(err, errBeforeStart) {
			msg = errBeforeStart.Error()
		}
		err = interrupted{msg: msg, errs: []error{ErrInterrupted, ctx.Err(), err}}
		st.s.Error = err.Error()
	}
	return errors.Join(err, st.writeLocked())
}

// interrupted is Run's error after its context was cancelled: its message
// is "interrupted" (or "interrupted before the start"), and it wraps
// ErrInterrupted, the context's error and the step's.
type interrupted struct {
	msg  string
	errs []error
}

func (e interrupted) Error() string   { return e.msg }
func (e interrupted) Unwrap() []error { return e.errs }
