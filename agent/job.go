package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"vmbench/dialect"
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
// for a tool that is no Connector or none for one, and a Database with a
// Password are refused. Every error starts with "job.json: ", names the
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
	var j Job
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*jobAlias)(&j)); err != nil {
		return nil, jobErrorf("not a vmbench job: %v", err)
	}
	if dec.More() {
		return nil, jobErrorf("more than one JSON value; a job is one object")
	}
	if err := j.check(); err != nil {
		return nil, err
	}
	return &j, nil
}

// check returns every problem of j at once (see ParseJob).
func (j *Job) check() error {
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
			if n := flagName(k); slices.Contains(refused, n) {
				errs = append(errs, jobErrorf("flags.%s: a connection flag of %s; the job's database field sets the connection", k, j.Tool))
			}
		}
	}
	switch {
	case isConn && j.Database == nil:
		errs = append(errs, jobErrorf("database: missing; %s runs against a database", j.Tool))
	case !isConn && j.Database != nil:
		errs = append(errs, jobErrorf("database: given, but %s uses no database; remove it", j.Tool))
	case j.Database != nil && j.Database.Password != "":
		errs = append(errs, jobErrorf("database.Password: a job never holds a password; pass it in $%s", PasswordEnv))
	case j.Database != nil:
		if err := conn.Supports(j.Database.Driver); err != nil {
			errs = append(errs, jobErrorf("database.Driver: %v", err))
		}
	}
	for k := range j.Labels {
		if k == "" {
			errs = append(errs, jobErrorf("labels: a label has an empty name"))
		}
	}
	return errors.Join(errs...)
}

// flagName is a flag's name as workload.Parse reads it: without leading
// dashes, '_' as '-'.
func flagName(k string) string {
	return strings.ReplaceAll(strings.TrimLeft(k, "-"), "_", "-")
}

// Marshal returns j as indented JSON for job.json, with a newline at the
// end. The database's Password is never written (the field is left out,
// whatever j holds): the agent reads it from PasswordEnv. j is not
// changed.
func (j *Job) Marshal() ([]byte, error) {
	w := struct {
		*jobAlias
		Database json.RawMessage `json:"database,omitempty"`
	}{jobAlias: (*jobAlias)(j)}
	if j.Database != nil {
		db, err := databaseJSON(*j.Database)
		if err != nil {
			return nil, err
		}
		w.Database = db
	}
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", JobFile, err)
	}
	return append(b, '\n'), nil
}

// databaseJSON encodes db without its Password field.
func databaseJSON(db dialect.Config) (json.RawMessage, error) {
	db.Password = ""
	b, err := json.Marshal(db)
	if err != nil {
		return nil, fmt.Errorf("%s: database: %w", JobFile, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("%s: database: %w", JobFile, err)
	}
	delete(fields, "Password")
	return json.Marshal(fields)
}
