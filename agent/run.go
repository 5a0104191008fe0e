package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"vmbench/oltp"
	"vmbench/workload"
)

// ErrInterrupted is matched (errors.Is) by Run's error when its context
// was cancelled (SIGINT or SIGTERM in the CLI); the error also wraps
// context.Canceled. Status.Error is then "interrupted".
var ErrInterrupted = errors.New("interrupted")

// Run runs the job in dir (an existing directory holding job.json) and
// leaves the files the package comment lists. It writes status.json
// (StateStarting) first, then reads and checks the job (ParseJob), looks up
// its tool, parses its workload and flags (workload.Parse, connection flags
// refused), gives a workload.Connector the job's Database with the password
// getenv(PasswordEnv) returns, and validates; a problem there leaves
// status.json and job.json alone in dir. Then each step runs in order,
// its progress lines appended to log.txt; the run step's ticks become
// interval files (and intervals.hlog, written when it ends), its phases
// move the status to StatePrecondition and StateMeasure, and its Output is
// written (result.json, record.json) also when the run stopped early.
//
// On success the status is StateDone and Run returns nil. On a failure it
// is StateFailed with the error's message (FlagError set when IsBadInput),
// and the error is returned; when ctx was cancelled the message is
// "interrupted" and the error wraps ErrInterrupted and context.Canceled.
// Every file but log.txt is written atomically. getenv may be nil.
func Run(ctx context.Context, dir string, getenv func(string) string) error {
	return run(ctx, dir, getenv, nil)
}

// run is Run with onStatus, when set, called with every status written
// (tests observe the state sequence with it).
func run(ctx context.Context, dir string, getenv func(string) string, onStatus func(Status)) error {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	st := &status{dir: dir, onStatus: onStatus, s: Status{Version: StatusVersion, PID: os.Getpid()}}
	if err := st.set(StateStarting, ""); err != nil {
		return err
	}
	job, cfg, err := load(dir, getenv)
	if err != nil {
		return st.fail(ctx, err)
	}
	logf, err := os.OpenFile(filepath.Join(dir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return st.fail(ctx, fmt.Errorf("opening %s: %w", LogFile, err))
	}
	defer logf.Close()
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

// load reads and checks dir's job and builds its tool's Config, creating
// nothing. Every error is a bad input (IsBadInput).
func load(dir string, getenv func(string) string) (*Job, workload.Config, error) {
	b, err := os.ReadFile(filepath.Join(dir, JobFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, jobErrorf("does not exist in %s", dir)
	} else if err != nil {
		return nil, nil, asBadJob(err)
	}
	job, err := ParseJob(b)
	if err != nil {
		return nil, nil, err
	}
	tool, err := workload.Lookup(job.Tool)
	if err != nil {
		return nil, nil, jobErrorf("tool: %v", err)
	}
	var refuse []string
	conn, isConn := tool.NewConfig().(workload.Connector)
	if isConn {
		refuse = conn.ConnectionFlags()
	}
	cfg, err := workload.Parse(tool, job.Workload, job.Flags, getenv, refuse)
	if err != nil {
		return nil, nil, asBadJob(fmt.Errorf("%s: %w", JobFile, err))
	}
	if c, ok := cfg.(workload.Connector); ok && job.Database != nil {
		db := *job.Database
		db.Password = getenv(PasswordEnv)
		c.SetDatabase(db)
		if err := cfg.Validate(); err != nil {
			return nil, nil, asBadJob(fmt.Errorf("%s: database: %w", JobFile, err))
		}
	}
	return job, cfg, nil
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
	if err := os.MkdirAll(filepath.Join(st.dir, IntervalDir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", IntervalDir, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := &observer{st: st, cancel: cancel}
	env.Observer, env.StartAt = obs, job.StartAt
	out, err := cfg.Run(runCtx, env)
	obsErr := obs.failure()
	if obsErr != nil {
		err = obsErr // the run was stopped for it
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
	mu     sync.Mutex // guards err: failure reads it after Run returned
	err    error
}

// Phase moves the status to the phase's state.
func (o *observer) Phase(name string, _ time.Duration) {
	state := StateMeasure
	if name == oltp.PhasePrecondition {
		state = StatePrecondition
	}
	o.keep(o.st.set(state, workload.VerbRun))
}

// Interval writes the next interval file, adds its hlog lines and counts
// it in the status.
func (o *observer) Interval(r oltp.IntervalReport) {
	if o.failure() != nil {
		return
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
		err = interrupted{errs: []error{ErrInterrupted, ctx.Err(), err}}
		st.s.Error = err.Error()
	}
	return errors.Join(err, st.writeLocked())
}

// interrupted is Run's error after its context was cancelled: its message
// is "interrupted", and it wraps ErrInterrupted, the context's error and
// the step's.
type interrupted struct{ errs []error }

func (interrupted) Error() string     { return ErrInterrupted.Error() }
func (e interrupted) Unwrap() []error { return e.errs }
