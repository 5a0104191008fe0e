package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"vmbench/dialect"
	"vmbench/internal/flagvalue"
	"vmbench/workload"
)

// ErrBadJob is matched (errors.Is) by every error of a job that cannot run
// as written: job.json missing or malformed, or refused by ParseJob or by
// the tool's flag parser and Validate. Nothing was created when one is
// returned; IsBadInput reports it.
var ErrBadJob = errors.New("bad job")

// badJob marks err as a bad job (errors.Is(err, ErrBadJob)) without
// changing its message.
type badJob struct{ err error }

func (e badJob) Error() string           { return e.err.Error() }
func (e badJob) Unwrap() error           { return e.err }
func (e badJob) Is(target error) bool    { return target == ErrBadJob }
func asBadJob(err error) error           { return badJob{err} }
func jobErrorf(f string, a ...any) error { return badJob{fmt.Errorf(JobFile+": "+f, a...)} }

// IsBadInput reports whether err was caused by the input rather than by the
// run: a bad job (ErrBadJob), a *workload.FlagError, or a flag that does
// not fit the database (workload.ErrFlagValue). Status.FlagError is set for
// these, and `vmbench agent run` exits with status 2.
func IsBadInput(err error) bool {
	var fe *workload.FlagError
	return errors.Is(err, ErrBadJob) || errors.As(err, &fe) || errors.Is(err, workload.ErrFlagValue)
}

// jobAlias is Job without its methods, for encoding/json.
type jobAlias Job

// ParseJob decodes job.json strictly and checks it: an unknown field, a
// second JSON value, a Version other than JobVersion, a Tool that is not
// registered, no Steps or a step that is not prepare, run, check (for a
// tool with checks: a workload.Checker) or cleanup or is named twice, a
// connection flag of the tool's workload.Connector in Flags, a Database
// for a tool that is no Connector or none for one, a Database with a
// password, Disks for a tool without a TargetFlag or beside a target in
// Flags, and a Disk whose name is empty, bus is not 0-3, unit is not 0-15
// or is 7, UUID is not 32 hex digits (dashes allowed) or size is not
// above 0, or that repeats another's name, bus and unit, or UUID, are
// refused. Every error starts with "job.json: ", names the
// field, and matches ErrBadJob. Flag names and values are checked later by
// the tool's parser (Run).
func ParseJob(b []byte) (*Job, error) {
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, jobErrorf("not a vmbench job: %v", err)
	}
	if v.Version != JobVersion {
		return nil, jobErrorf("version: %d is not supported (this vmbench reads version %d)", v.Version, JobVersion)
	}
	var w jobWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, jobErrorf("not a vmbench job: %v", err)
	}
	if dec.More() {
		return nil, jobErrorf("more than one JSON value; a job is one object")
	}
	j := Job(w.jobAlias)
	var password string
	if w.Database != nil {
		j.Database, password = w.Database.config()
	}
	if err := j.check(password); err != nil {
		return nil, err
	}
	return &j, nil
}

// check returns every problem of j at once (see ParseJob); password is
// the one job.json's database held, if any.
func (j *Job) check(password string) error {
	tool, err := workload.Lookup(j.Tool)
	if err != nil {
		return jobErrorf("tool: %v", err)
	}
	cfg := tool.NewConfig()
	conn, isConn := cfg.(workload.Connector)
	var errs []error
	if len(j.Steps) == 0 {
		errs = append(errs, jobErrorf("steps: empty (give one or more of prepare, run, check, cleanup)"))
	}
	for i, s := range j.Steps {
		switch s {
		case workload.VerbPrepare, workload.VerbRun, workload.VerbCleanup:
		case workload.VerbCheck:
			if _, ok := cfg.(workload.Checker); !ok {
				errs = append(errs, jobErrorf("steps[%d]: %s has no consistency checks (valid: prepare, run, cleanup)", i, j.Tool))
			}
		default:
			errs = append(errs, jobErrorf("steps[%d]: %q is not a step (valid: prepare, run, check, cleanup)", i, s))
		}
		if slices.Index(j.Steps, s) < i {
			errs = append(errs, jobErrorf("steps[%d]: %s is named twice; give each step once", i, s))
		}
	}
	if isConn {
		refused := conn.ConnectionFlags()
		for _, k := range slices.Sorted(maps.Keys(j.Flags)) {
			if n := flagvalue.Name(k); slices.Contains(refused, n) {
				errs = append(errs, jobErrorf("flags.%s: a connection flag of %s; the job's database field sets the connection", k, j.Tool))
			}
		}
	}
	switch {
	case isConn && j.Database == nil:
		errs = append(errs, jobErrorf("database: missing; %s runs against a database", j.Tool))
	case !isConn && j.Database != nil:
		errs = append(errs, jobErrorf("database: given, but %s uses no database; remove it", j.Tool))
	case j.Database != nil && password != "":
		errs = append(errs, jobErrorf("database.password: a job never holds a password; pass it in $%s", PasswordEnv))
	case j.Database != nil:
		if err := conn.Supports(j.Database.Driver); err != nil {
			errs = append(errs, jobErrorf("database.driver: %v", err))
		}
		if p := j.Database.SQLitePath; p != "" && !filepath.IsAbs(p) {
			errs = append(errs, jobErrorf("database.sqlite_path: %q is relative; give an absolute path (a relative one would be resolved against wherever the agent was started, not its run directory)", p))
		}
	}
	errs = append(errs, j.checkDisks(tool)...)
	for k := range j.Labels {
		if k == "" {
			errs = append(errs, jobErrorf("labels: a label has an empty name"))
		}
	}
	return errors.Join(errs...)
}

// MaxStartAhead bounds how far ahead of the guest's clock a job's common
// start (Job.StartAt) may be when the agent reads it. A campaign sets it a
// few seconds after the end of prepare (StartDelayRemote, plus the
// guest's clock offset, bounded by guest.max-clock-offset); a day covers
// any start planned by hand, and a start further on (2099) would keep the
// agent waiting, holding its database connections, for good.
const MaxStartAhead = 24 * time.Hour

// checkStart refuses a common start more than MaxStartAhead after now.
func checkStart(at, now time.Time) error {
	if d := at.Sub(now); !at.IsZero() && d > MaxStartAhead {
		return jobErrorf("start_at: %s is %.1f h ahead of this guest's clock (%s); a job's common start is at most %s ahead",
			at.UTC().Format(time.RFC3339), d.Hours(), now.UTC().Format(time.RFC3339), MaxStartAhead)
	}
	return nil
}

// Marshal returns j as indented JSON for job.json, with a newline at the
// end, its Database in snake_case fields (see Job). The database's
// Password is never written (there is no field for it, whatever j holds):
// the agent reads it from PasswordEnv. j is not changed.
func (j *Job) Marshal() ([]byte, error) {
	w := jobWire{jobAlias: jobAlias(*j)}
	if j.Database != nil {
		w.Database = newJobDatabase(*j.Database)
	}
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", JobFile, err)
	}
	return append(b, '\n'), nil
}

// jobWire is job.json: a Job whose Database is a jobDatabase.
type jobWire struct {
	jobAlias
	Database *jobDatabase `json:"database,omitempty"`
}

// jobDatabase is a Job's Database in job.json (see Job for the fields).
// Password is only read, so that ParseJob can refuse it by name.
type jobDatabase struct {
	Driver     dialect.Driver    `json:"driver"`
	Host       string            `json:"host,omitempty"`
	Port       int               `json:"port,omitempty"`
	Socket     string            `json:"socket,omitempty"`
	User       string            `json:"user,omitempty"`
	Password   string            `json:"password,omitempty"`
	Database   string            `json:"database,omitempty"`
	Instance   string            `json:"instance,omitempty"`
	SQLitePath string            `json:"sqlite_path,omitempty"`
	Params     map[string]string `json:"params,omitempty"`
}

// newJobDatabase is db in job.json's form, without its password.
func newJobDatabase(db dialect.Config) *jobDatabase {
	return &jobDatabase{Driver: db.Driver, Host: db.Host, Port: db.Port, Socket: db.Socket, User: db.User,
		Database: db.Database, Instance: db.Instance, SQLitePath: db.SQLitePath, Params: db.Params}
}

// config is d as a dialect.Config without a password, and the password
// job.json held.
func (d *jobDatabase) config() (*dialect.Config, string) {
	return &dialect.Config{Driver: d.Driver, Host: d.Host, Port: d.Port, Socket: d.Socket, User: d.User,
		Database: d.Database, Instance: d.Instance, SQLitePath: d.SQLitePath, Params: d.Params}, d.Password
}
