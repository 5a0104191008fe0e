package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/internal/boundedread"
	"vmbench/workload"
)

// MaxJobSize bounds job.json: a job is a few kilobytes (a campaign's
// sysbench job is under 1 KiB), and a larger file is refused unread.
const MaxJobSize = 1 << 20

// load reads and checks dir's job (job.json a regular file of at most
// MaxJobSize bytes; its start at most MaxStartAhead ahead
// of this clock, and a run step that ends: workload.CheckEnds), finds its
// disks under sysRoot and builds its tool's Config, creating nothing. Every error is a bad input
// (IsBadInput) except a disk that is not in the guest as the job says or
// that its tool's CheckTargets refuses (ErrDiskPlacement): a placement
// problem of the VM, not of the job.
func load(dir string, getenv func(string) string, sysRoot string) (*Job, workload.Config, error) {
	b, err := boundedread.ReadFile(filepath.Join(dir, JobFile), MaxJobSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, jobErrorf("does not exist in %s", dir)
	} else if err != nil {
		return nil, nil, jobErrorf("%v (a job is a few kilobytes: at most %d bytes are read)", err, MaxJobSize)
	}
	job, err := ParseJob(b)
	if err != nil {
		return nil, nil, err
	}
	if err := checkStart(job.StartAt, time.Now()); err != nil {
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
	jt := &jobTool{Tool: tool, database: job.Database}
	if len(job.Disks) > 0 {
		if jt.targets, err = resolveDisks(sysRoot, job.Disks); err != nil {
			return nil, nil, err
		}
	}
	cfg, err := workload.Parse(jt, job.Workload, job.Flags, getenv, refuse)
	if jt.cfg != nil {
		cfg = jt.cfg.Config
	}
	if err != nil {
		return nil, nil, asBadJob(fmt.Errorf("%s: %w", JobFile, err))
	}
	if slices.Contains(job.Steps, workload.VerbRun) {
		if err := workload.CheckEnds(cfg); err != nil { // as a campaign refuses it
			return nil, nil, jobErrorf("flags: %v", err)
		}
	}
	if c, ok := cfg.(workload.Connector); ok && job.Database != nil {
		db := *job.Database
		db.Password = getenv(PasswordEnv)
		c.SetDatabase(db)
		if err := cfg.Validate(); err != nil {
			return nil, nil, asBadJob(fmt.Errorf("%s: database: %w", JobFile, err))
		}
	}
	if p, ok := cfg.(workload.Preflighter); ok && len(jt.targets) > 0 {
		if err := p.CheckTargets(); err != nil {
			return nil, nil, fmt.Errorf("%w: disks: %w", ErrDiskPlacement, err)
		}
	}
	return job, cfg, nil
}

// jobTool is a Tool whose Config gets what the job gives beside its
// flags: TargetFlag set to targets (the disks found), once each and in
// order, before Complete; the job's database (a Connector's, without its
// password) after Complete, so that Validate checks the flags on the
// VM's database, as a campaign's Config on each VM is (tpcc's --isolation
// applies to PostgreSQL only).
type jobTool struct {
	workload.Tool
	targets  []string
	database *dialect.Config
	cfg      *jobConfig // the Config NewConfig made
}

// NewConfig returns the tool's Config, wrapped.
func (t *jobTool) NewConfig() workload.Config {
	t.cfg = &jobConfig{Config: t.Tool.NewConfig(), targets: t.targets, database: t.database}
	return t.cfg
}

// jobConfig is a Config that keeps the flag set BindFlags bound, to set
// its targets there before Complete, and sets its database after.
type jobConfig struct {
	workload.Config
	targets  []string
	database *dialect.Config
	fs       *pflag.FlagSet
}

func (c *jobConfig) BindFlags(fs *pflag.FlagSet) {
	c.Config.BindFlags(fs)
	c.fs = fs
}

func (c *jobConfig) Complete(name string, getenv func(string) string, changed func(string) bool) error {
	for _, t := range c.targets {
		if err := c.fs.Set(TargetFlag, t); err != nil {
			return fmt.Errorf("--%s=%s: %w", TargetFlag, t, err)
		}
	}
	if err := c.Config.Complete(name, getenv, changed); err != nil {
		return err
	}
	if conn, ok := c.Config.(workload.Connector); ok && c.database != nil {
		conn.SetDatabase(*c.database)
	}
	return nil
}

// lazyLog is log.txt, created (for appending) at its first write, so that
// a job that never logs leaves none.
type lazyLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
	err  error
}

func (l *lazyLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		l.f, l.err = os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	}
	if l.err != nil {
		return 0, fmt.Errorf("opening %s: %w", LogFile, l.err)
	}
	return l.f.Write(p)
}

// Close closes the file if it was created; a second Close does nothing.
func (l *lazyLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.err = nil, os.ErrClosed
	return err
}
