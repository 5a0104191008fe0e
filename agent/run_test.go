package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/workload"
)

// sqliteJob is a sysbench job on a fresh SQLite file: one small table, two
// threads, a run of runTime seconds with 1 s report intervals.
func sqliteJob(t *testing.T, runTime string, steps ...workload.Verb) *Job {
	t.Helper()
	return &Job{
		Version: JobVersion, Tool: "sysbench", Workload: "oltp_read_write",
		Flags:    map[string]string{"tables": "1", "table-size": "200", "threads": "2", "time": runTime, "report-interval": "1"},
		Database: &dialect.Config{Driver: dialect.SQLite, SQLitePath: filepath.Join(t.TempDir(), "sbtest.db")},
		Steps:    steps,
		Labels:   map[string]string{"vm": "db-01", "role": "sysbench", "campaign": "agent-test"},
	}
}

// runDir writes job into a new run directory and returns it.
func runDir(t *testing.T, job *Job) string {
	t.Helper()
	b, err := job.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return rawRunDir(t, b)
}

func rawRunDir(t *testing.T, job []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, JobFile), job, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readStatus(t *testing.T, dir string) Status {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, StatusFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readResult(t *testing.T, dir string) *oltp.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseResult(ResultFile, b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readIntervals reads intervals/000001.json, 000002.json, ... as a
// campaign polls them, until the next number is missing.
func readIntervals(t *testing.T, dir string) []Interval {
	t.Helper()
	var ivs []Interval
	for seq := 1; ; seq++ {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(IntervalPath(seq))))
		if errors.Is(err, os.ErrNotExist) {
			return ivs
		} else if err != nil {
			t.Fatal(err)
		}
		iv, err := ParseInterval(b)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Seq != seq {
			t.Fatalf("%s holds seq %d", IntervalPath(seq), iv.Seq)
		}
		ivs = append(ivs, iv)
	}
}

// stateLog records the states a run passed through (run's onStatus).
type stateLog struct {
	mu     sync.Mutex
	states []State
}

func (l *stateLog) add(s Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.states) == 0 || l.states[len(l.states)-1] != s.State {
		l.states = append(l.states, s.State)
	}
}

func (l *stateLog) get() []State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.states)
}

// TestAgentRunSysbenchSQLite runs prepare and a 3 s run of sysbench on
// SQLite through the run directory and checks every file it leaves.
func TestAgentRunSysbenchSQLite(t *testing.T) {
	job := sqliteJob(t, "3", workload.VerbPrepare, workload.VerbRun)
	dir := runDir(t, job)
	var log stateLog
	if err := run(t.Context(), dir, nil, hooks{onStatus: log.add}); err != nil {
		t.Fatalf("run: %v", err)
	}
	if st := readStatus(t, dir); st.State != StateDone || st.Error != "" || st.PID != os.Getpid() {
		t.Errorf("status %+v, want done", st)
	}
	for _, want := range []State{StateStarting, StatePrepare, StateWaiting, StateMeasure, StateDone} {
		if !slices.Contains(log.get(), want) {
			t.Errorf("states %v, want %s among them", log.get(), want)
		}
	}
	res := readResult(t, dir)
	if res.State() != oltp.StatusComplete || res.Phase != oltp.PhaseMeasure {
		t.Errorf("result %s phase %s, want complete measure", res.State(), res.Phase)
	}
	if !equalMaps(res.Labels, job.Labels) {
		t.Errorf("result labels %v, want the job's %v", res.Labels, job.Labels)
	}
	ivs := readIntervals(t, dir)
	if st := readStatus(t, dir); st.Intervals != len(ivs) {
		t.Errorf("status counts %d intervals, %d files", st.Intervals, len(ivs))
	}
	counts := map[string]int64{}
	measured := 0
	for _, iv := range ivs {
		if iv.Phase != oltp.PhaseMeasure {
			continue
		}
		measured++
		for i, op := range iv.Ops {
			counts[op] += iv.Latency[i].Count
		}
	}
	if measured < 2 {
		t.Errorf("%d measure intervals, want at least 2", measured)
	}
	for _, op := range res.Ops {
		if counts[op.Name] != op.Latency.Count {
			t.Errorf("op %s: intervals count %d, result %d", op.Name, counts[op.Name], op.Latency.Count)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, RecordFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record.json: %v, want none for sysbench", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, LogFile)); err != nil || fi.Size() == 0 {
		t.Errorf("log.txt: %v, want prepare's lines", err)
	}
	checkHlog(t, dir, ivs)
	checkNoTemp(t, dir)
}

// checkHlog reads intervals.hlog with hdrhistogram-go's reader and checks
// its lines are ivs' histograms, one per op, in order, with their tags,
// counts, a percentile and times.
func checkHlog(t *testing.T, dir string, ivs []Interval) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, HlogFile))
	if err != nil {
		t.Fatal(err)
	}
	r := hdr.NewHistogramLogReader(bytes.NewReader(b))
	for _, iv := range ivs {
		for i, op := range iv.Ops {
			h, err := r.NextIntervalHistogram()
			if err != nil || h == nil {
				t.Fatalf("%s %s: no hlog line (%v)", IntervalPath(iv.Seq), op, err)
			}
			want, err := hdrOf(iv.Latency[i])
			if err != nil {
				t.Fatal(err)
			}
			if h.Tag() != string(iv.Phase)+"/"+op || h.TotalCount() != iv.Latency[i].Count ||
				h.ValueAtQuantile(99) != want.ValueAtQuantile(99) {
				t.Errorf("%s %s: hlog tag %q count %d p99 %d, want %s/%s %d %d", IntervalPath(iv.Seq), op,
					h.Tag(), h.TotalCount(), h.ValueAtQuantile(99), iv.Phase, op, iv.Latency[i].Count, want.ValueAtQuantile(99))
			}
			// The log holds the start and the length as seconds with three
			// decimals, and the reader adds them in floating point: the end
			// it gives back may be a millisecond short.
			if d := iv.End.UnixMilli() - h.EndTimeMs(); d < 0 || d > 1 {
				t.Errorf("%s %s: hlog end %d ms, want %d", IntervalPath(iv.Seq), op, h.EndTimeMs(), iv.End.UnixMilli())
			}
		}
	}
	if h, err := r.NextIntervalHistogram(); h != nil || err != nil {
		t.Errorf("hlog has more lines than intervals (%v)", err)
	}
}

// checkNoTemp fails when an atomic write left a temporary file behind.
func checkNoTemp(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestAgentBadJobCreatesNothing: a job that cannot run leaves status.json
// failed with flag_error, and nothing but job.json beside it.
func TestAgentBadJobCreatesNothing(t *testing.T) {
	good := func(t *testing.T) *Job { return sqliteJob(t, "1", workload.VerbRun) }
	for _, tc := range []struct {
		name string
		job  func(t *testing.T) []byte
		want string
	}{
		{"unknown tool", marshalled(func(j *Job) { j.Tool = "sysbnech" }), `"sysbnech" is not a known tool`},
		{"unknown flag", marshalled(func(j *Job) { j.Flags["tabels"] = "2" }), "--tabels: not an option of sysbench"},
		{"bad flag value", marshalled(func(j *Job) { j.Flags["threads"] = "0" }), "--threads"},
		{"connection flag", marshalled(func(j *Job) { j.Flags["mysql_host"] = "db1" }), "flags.mysql_host: a connection flag"},
		{"unknown workload", marshalled(func(j *Job) { j.Workload = "oltp_nope" }), "oltp_nope"},
		{"no steps", marshalled(func(j *Job) { j.Steps = nil }), "steps: empty"},
		{"bad step", marshalled(func(j *Job) { j.Steps = []workload.Verb{"runn"} }), `steps[0]: "runn" is not a step`},
		{"no database", marshalled(func(j *Job) { j.Database = nil }), "database: missing"},
		{"password", func(t *testing.T) []byte {
			b, _ := good(t).Marshal()
			return bytes.Replace(b, []byte(`"driver"`), []byte(`"password": "s3cret", "driver"`), 1)
		}, "database.password: a job never holds a password"},
		{"unknown field", func(t *testing.T) []byte {
			b, _ := good(t).Marshal()
			return bytes.Replace(b, []byte(`"tool"`), []byte(`"colour": "red", "tool"`), 1)
		}, `unknown field "colour"`},
		{"newer version", func(t *testing.T) []byte {
			b, _ := good(t).Marshal()
			return bytes.Replace(b, []byte(`"version": 1`), []byte(`"version": 2`), 1)
		}, "version: 2 is not supported"},
		{"not json", func(*testing.T) []byte { return []byte("tool: sysbench\n") }, "not a vmbench job"},
		{"start in 2099", marshalled(func(j *Job) { j.StartAt = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC) }),
			"start_at: 2099-01-01T00:00:00Z is "},
		{"start a day and an hour ahead", marshalled(func(j *Job) { j.StartAt = time.Now().Add(MaxStartAhead + time.Hour) }),
			"ahead of this guest's clock"},
		{"a run that never ends", marshalled(func(j *Job) { j.Flags["time"] = "0" }), "flags: time 0 and no events: the run would never end"},
		{"more than a MiB", func(t *testing.T) []byte { // a good job, padded: it would parse
			b, _ := good(t).Marshal()
			return bytes.Replace(b, []byte("{"), append([]byte("{"), bytes.Repeat([]byte(" "), MaxJobSize)...), 1)
		}, "more than 1 MiB, the bound on this file: refused unread (a job is a few kilobytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rawRunDir(t, tc.job(t))
			err := Run(t.Context(), dir, nil)
			if !IsBadInput(err) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), JobFile+": ") {
				t.Fatalf("Run: %v; want a bad job starting %s: naming %q", err, JobFile, tc.want)
			}
			st := readStatus(t, dir)
			if st.State != StateFailed || !st.FlagError || st.Error != err.Error() {
				t.Errorf("status %+v, want failed with flag_error and the error", st)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{JobFile, StatusFile}) {
				t.Errorf("run directory holds %v, want only %s and %s", names, JobFile, StatusFile)
			}
		})
	}
	t.Run("no job.json", func(t *testing.T) {
		dir := t.TempDir()
		if err := Run(t.Context(), dir, nil); !IsBadInput(err) || !strings.Contains(err.Error(), "job.json: does not exist") {
			t.Errorf("Run: %v, want a bad job naming job.json", err)
		}
	})
}

// marshalled returns a job maker: a good one-step sysbench job changed by
// edit, as job.json.
func marshalled(edit func(j *Job)) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		j := sqliteJob(t, "1", workload.VerbRun)
		edit(j)
		b, err := j.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestAgentInterruptMidMeasure: cancelling the context once the measure
// phase has reported an interval leaves result.json marked interrupted and
// the status failed "interrupted".
func TestAgentInterruptMidMeasure(t *testing.T) {
	dir := runDir(t, sqliteJob(t, "60", workload.VerbPrepare, workload.VerbRun))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := run(ctx, dir, nil, hooks{onStatus: func(s Status) {
		if s.State == StateMeasure && s.Intervals >= 1 {
			cancel()
		}
	}})
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || IsBadInput(err) {
		t.Fatalf("run: %v, want interrupted", err)
	}
	if st := readStatus(t, dir); st.State != StateFailed || st.Error != "interrupted" || st.FlagError || st.Step != workload.VerbRun {
		t.Errorf("status %+v, want failed interrupted in the run step", st)
	}
	res := readResult(t, dir)
	if !res.Interrupted || res.State() != oltp.StatusInterrupted {
		t.Errorf("result interrupted %v state %s, want interrupted", res.Interrupted, res.State())
	}
	ivs := readIntervals(t, dir)
	if len(ivs) == 0 {
		t.Fatal("no interval files")
	}
	checkHlog(t, dir, ivs)
	checkNoTemp(t, dir)
}

// TestAgentWaitsForStartAt: a run step whose StartAt is ahead reports
// StateWaiting before its measure phase, as a campaign runs it: prepare in
// one job, then the run in another once the common start is set.
func TestAgentWaitsForStartAt(t *testing.T) {
	job := sqliteJob(t, "1", workload.VerbPrepare)
	if err := Run(t.Context(), runDir(t, job), nil); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	job.Steps = []workload.Verb{workload.VerbRun}
	job.StartAt = time.Now().Add(1500 * time.Millisecond)
	dir := runDir(t, job)
	var log stateLog
	if err := run(t.Context(), dir, nil, hooks{onStatus: log.add}); err != nil {
		t.Fatalf("run: %v", err)
	}
	states := log.get()
	w, m := slices.Index(states, StateWaiting), slices.Index(states, StateMeasure)
	if w < 0 || m < w || states[len(states)-1] != StateDone {
		t.Errorf("states %v, want waiting, then measure, then done", states)
	}
	if res := readResult(t, dir); res.Start.Before(job.StartAt) {
		t.Errorf("measure started at %s, before the job's StartAt %s", res.Start, job.StartAt)
	}
}
