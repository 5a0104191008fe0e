package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/workload"
)

func histOf(ds ...time.Duration) *hist.Histogram {
	h := hist.New()
	for _, d := range ds {
		h.Record(d)
	}
	return h
}

func spread(n int, step time.Duration) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = time.Duration(i+1) * step
	}
	return ds
}

// TestIntervalRoundTrip: an IntervalReport survives NewInterval, JSON and
// Report exactly: counts, sums, minima, maxima, clamped values and the
// percentiles of every histogram.
func TestIntervalRoundTrip(t *testing.T) {
	end := time.Date(2026, 1, 2, 15, 4, 5, 123456789, time.UTC)
	for _, tc := range []struct {
		name string
		r    oltp.IntervalReport
	}{
		{"empty op", oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"transaction"}, Latency: []*hist.Histogram{hist.New()}}},
		{"one value", oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"transaction"}, Latency: []*hist.Histogram{histOf(1234567 * time.Nanosecond)}}},
		{"many values and counters", oltp.IntervalReport{
			Phase: oltp.PhasePrecondition, At: 3 * time.Second, End: end, Length: time.Second, Threads: 8,
			Ops:      []string{"read", "write"},
			Latency:  []*hist.Histogram{histOf(spread(5000, 7919*time.Nanosecond)...), histOf(spread(17, time.Millisecond)...)},
			Counters: map[string]int64{"errors": 3, "reconnects": 1},
		}},
		{"open loop with backlog", oltp.IntervalReport{
			Phase: oltp.PhaseMeasure, At: time.Second, End: end, Length: time.Second, Threads: 2, Backlog: 42,
			Ops:      []string{"transaction"},
			Latency:  []*hist.Histogram{histOf(spread(300, 13*time.Microsecond)...)},
			Intended: []*hist.Histogram{histOf(spread(300, 29*time.Microsecond)...)},
		}},
		{"clamped", oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"newOrder"}, Latency: []*hist.Histogram{histOf(time.Millisecond, 30*time.Hour)}}},
		{"with CPU", oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"transaction"}, Latency: []*hist.Histogram{histOf(time.Millisecond)},
			CPU: &oltp.IntervalCPU{ClientCPU: 830 * time.Millisecond, Cores: 2, HostBusyCPU: 1900 * time.Millisecond, HostCPU: 2 * time.Second, Hosts: 1}}},
		{"with CPU but no host figures", oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"transaction"}, Latency: []*hist.Histogram{histOf(time.Millisecond)},
			CPU: &oltp.IntervalCPU{ClientCPU: 7 * time.Millisecond, Cores: 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(NewInterval(7, tc.r))
			if err != nil {
				t.Fatal(err)
			}
			iv, err := ParseInterval(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := iv.Report()
			if err != nil {
				t.Fatal(err)
			}
			if iv.Seq != 7 || got.Phase != tc.r.Phase || got.At != tc.r.At || !got.End.Equal(tc.r.End) || got.Length != tc.r.Length ||
				got.Threads != tc.r.Threads || got.Backlog != tc.r.Backlog || !reflect.DeepEqual(got.Ops, tc.r.Ops) || !reflect.DeepEqual(got.Counters, tc.r.Counters) {
				t.Errorf("report %+v, want %+v", got, tc.r)
			}
			if (got.CPU == nil) != (tc.r.CPU == nil) || got.CPU != nil && *got.CPU != *tc.r.CPU {
				t.Errorf("cpu %+v, want %+v", got.CPU, tc.r.CPU)
			}
			sameHists(t, "latency", got.Latency, tc.r.Latency)
			if (got.Intended == nil) != (tc.r.Intended == nil) {
				t.Fatalf("intended %v, want %v", got.Intended, tc.r.Intended)
			}
			sameHists(t, "intended", got.Intended, tc.r.Intended)
		})
	}
}

func sameHists(t *testing.T, what string, got, want []*hist.Histogram) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d histograms, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Count() != w.Count() || g.Sum() != w.Sum() || g.Min() != w.Min() || g.Max() != w.Max() || g.Clamped() != w.Clamped() {
			t.Errorf("%s[%d]: count %d sum %s min %s max %s clamped %d, want %d %s %s %s %d", what, i,
				g.Count(), g.Sum(), g.Min(), g.Max(), g.Clamped(), w.Count(), w.Sum(), w.Min(), w.Max(), w.Clamped())
		}
		for _, p := range []float64{0, 50, 90, 99, 99.9, 100} {
			if g.Percentile(p) != w.Percentile(p) {
				t.Errorf("%s[%d]: p%g %s, want %s", what, i, p, g.Percentile(p), w.Percentile(p))
			}
		}
	}
}

func TestParseIntervalRefuses(t *testing.T) {
	good := NewInterval(1, oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"transaction"}, Latency: []*hist.Histogram{histOf(time.Millisecond)}})
	for _, tc := range []struct {
		name string
		edit func(iv *Interval)
		raw  string
		want string
	}{
		{name: "newer version", edit: func(iv *Interval) { iv.Version = 3 }, want: "intervals/000001.json: version: 3 is not supported (this vmbench reads versions 1 to 2)"},
		{name: "no version", edit: func(iv *Interval) { iv.Version = 0 }, want: "intervals/000001.json: version: 0 is not supported"},
		{name: "bad CPU", edit: func(iv *Interval) { iv.CPU = &oltp.IntervalCPU{ClientCPU: time.Second} },
			want: "intervals/000001.json: cpu: interval CPU on 0 cores"},
		{name: "no seq", edit: func(iv *Interval) { iv.Seq = 0 }, want: "interval: seq: 0"},
		{name: "histograms not per op", edit: func(iv *Interval) { iv.Ops = append(iv.Ops, "x") }, want: "latency: 1 histograms for 2 ops"},
		{name: "corrupt histogram", edit: func(iv *Interval) { iv.Latency[0].HDR = "bm9wZQ==" }, want: "latency of transaction"},
		{name: "count disagrees", edit: func(iv *Interval) { iv.Latency[0].Count = 9 }, want: "says count 9"},
		{name: "unknown field", raw: `{"version":1,"seq":1,"colour":"red"}`, want: `unknown field "colour"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.raw)
			if tc.edit != nil {
				iv := good
				iv.Ops = append([]string(nil), good.Ops...)
				iv.Latency = append([]hist.Snapshot(nil), good.Latency...)
				tc.edit(&iv)
				b, _ = json.Marshal(iv)
			}
			if _, err := ParseInterval(b); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseInterval: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	s := Status{Version: StatusVersion, State: StateFailed, Step: workload.VerbRun, Error: "boom", FlagError: true, PID: 42,
		Updated: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Intervals: 3}
	b, _ := json.Marshal(s)
	if got, err := ParseStatus(b); err != nil || !reflect.DeepEqual(got, s) {
		t.Errorf("ParseStatus: %+v %v, want %+v", got, err, s)
	}
	for _, tc := range []struct{ raw, want string }{
		{`{"version":2,"state":"done"}`, "status.json: version: 2 is not supported"},
		{`{"version":1,"state":"sleeping"}`, `status.json: state: "sleeping" is not a state`},
		{`{"version":1,"state":"done","extra":1}`, `status.json: json: unknown field "extra"`},
		{`{"version":1,"state":"done"} {}`, "more than one JSON value"},
	} {
		if _, err := ParseStatus([]byte(tc.raw)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseStatus(%s): %v, want %q", tc.raw, err, tc.want)
		}
	}
}

func TestIntervalPath(t *testing.T) {
	for seq, want := range map[int]string{1: "intervals/000001.json", 42: "intervals/000042.json", 1234567: "intervals/1234567.json"} {
		if got := IntervalPath(seq); got != want {
			t.Errorf("IntervalPath(%d) = %q, want %q", seq, got, want)
		}
	}
}

// TestHlogReadsBack: the log hdrhistogram-go's reader reads has one line
// per op and interval, tagged, timed and with the intervals' counts and
// percentiles.
func TestHlogReadsBack(t *testing.T) {
	end := time.Date(2026, 1, 2, 15, 4, 5, 250*int(time.Millisecond), time.UTC)
	var ivs []Interval
	for i := range 3 {
		ivs = append(ivs, NewInterval(i+1, oltp.IntervalReport{
			Phase: []oltp.Phase{oltp.PhasePrecondition, oltp.PhaseMeasure, oltp.PhaseMeasure}[i],
			End:   end.Add(time.Duration(i) * time.Second), Length: time.Second,
			Ops:     []string{"new order", "payment"}, // a space becomes '_' in the tag
			Latency: []*hist.Histogram{histOf(spread(100*(i+1), 37*time.Microsecond)...), hist.New()},
		}))
	}
	var l hlog
	for _, iv := range ivs {
		if err := l.add(iv); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := l.flush(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, HlogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("nanoseconds")) || !bytes.Contains(b, []byte("#[BaseTime: ")) {
		t.Errorf("hlog header lacks the units or the base time:\n%s", b)
	}
	r := hdr.NewHistogramLogReader(bytes.NewReader(b))
	for _, iv := range ivs {
		for i, op := range iv.Ops {
			h, err := r.NextIntervalHistogram()
			if err != nil || h == nil {
				t.Fatalf("line %s %s: %v", IntervalPath(iv.Seq), op, err)
			}
			want, _ := iv.Latency[i].Histogram()
			tag := string(iv.Phase) + "/" + strings.ReplaceAll(op, " ", "_")
			if h.Tag() != tag || h.TotalCount() != want.Count() || time.Duration(h.ValueAtQuantile(99)) != want.Percentile(99) ||
				h.StartTimeMs() != iv.End.Add(-iv.Length).UnixMilli() || h.EndTimeMs() != iv.End.UnixMilli() {
				t.Errorf("line %s %s: tag %q count %d p99 %d [%d, %d] ms; want %q %d %d [%d, %d]", IntervalPath(iv.Seq), op,
					h.Tag(), h.TotalCount(), h.ValueAtQuantile(99), h.StartTimeMs(), h.EndTimeMs(),
					tag, want.Count(), want.Percentile(99), iv.End.Add(-iv.Length).UnixMilli(), iv.End.UnixMilli())
			}
		}
	}
	if h, _ := r.NextIntervalHistogram(); h != nil {
		t.Error("more lines than intervals")
	}
	var empty hlog
	if err := empty.flush(t.TempDir()); err != nil {
		t.Errorf("flush of no interval: %v", err)
	}
}

// TestJobMarshalNeverWritesPassword: Marshal leaves the password out and
// ParseJob reads the rest back as it was.
func TestJobMarshalNeverWritesPassword(t *testing.T) {
	j := &Job{
		Version: JobVersion, Tool: "sysbench", Workload: "oltp_read_only",
		Flags:    map[string]string{"tables": "4", "time": "30"},
		Database: &dialect.Config{Driver: dialect.MySQL, Host: "10.0.0.5", Port: 3306, User: "sbtest", Password: "s3cret", Database: "sbtest"},
		Steps:    []workload.Verb{workload.VerbRun},
		StartAt:  time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		Labels:   map[string]string{"vm": "db-01"},
	}
	b, err := j.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("s3cret")) || bytes.Contains(bytes.ToLower(b), []byte("password")) {
		t.Errorf("job.json holds the password:\n%s", b)
	}
	if j.Database.Password != "s3cret" {
		t.Error("Marshal changed the job")
	}
	got, err := ParseJob(b)
	if err != nil {
		t.Fatal(err)
	}
	want := *j
	db := *j.Database
	db.Password = ""
	want.Database = &db
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("read back %+v\nwant %+v", got, &want)
	}
}

func TestParseJobRefuses(t *testing.T) {
	base := `{"version":1,"tool":"sysbench","database":{"driver":"sqlite","sqlite_path":"/srv/x.db"},"steps":["prepare","run"]`
	for _, tc := range []struct{ raw, want string }{
		{base + `}`, ""},
		{base + `,"flags":{"--sqlite-path":"y.db"}}`, "job.json: flags.--sqlite-path: a connection flag of sysbench"},
		{base + `,"flags":{"db_driver":"mysql"}}`, "job.json: flags.db_driver: a connection flag"},
		{base + `,"flags":{"tables":4}}`, "job.json: not a vmbench job"},
		{strings.Replace(base, `"steps":["prepare","run"]`, `"steps":["run","run"]`, 1) + `}`, "job.json: steps[1]: run is named twice"},
		{`{"version":1,"tool":"vdbench","steps":["check"]}`, "job.json: steps[0]: vdbench has no consistency checks"},
		{strings.Replace(base, `"steps":["prepare","run"]`, `"steps":["check"]`, 1) + `}`, ""}, // sysbench checks its tables
		{strings.Replace(base, `"driver":"sqlite"`, `"driver":"sqlserver"`, 1) + `}`, "job.json: database.driver:"},
		{strings.Replace(base, `"sqlite_path":"/srv/x.db"`, `"password":"pw"`, 1) + `}`, "job.json: database.password"},
		{strings.Replace(base, `"/srv/x.db"`, `"../../etc/x.db"`, 1) + `}`, `job.json: database.sqlite_path: "../../etc/x.db" is relative`},
		{`{"version":1,"tool":"vdbench","database":{"driver":"sqlite"},"steps":["run"]}`, "job.json: database: given, but vdbench uses no database"},
		{`{"tool":"sysbench"}`, "job.json: version: 0 is not supported"},
		{base + `} []`, "job.json: not a vmbench job: invalid character"},
		{base + `,"labels":{"":"x"}}`, "labels: a label has an empty name"},
	} {
		_, err := ParseJob([]byte(tc.raw))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ParseJob(%s): %v", tc.raw, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !IsBadInput(err)):
			t.Errorf("ParseJob(%s): %v, want a bad job naming %q", tc.raw, err, tc.want)
		}
	}
}

// TestParseIntervalVersion1: an interval file of version 1 (before CPU)
// from an older agent still reads, with no CPU figures.
func TestParseIntervalVersion1(t *testing.T) {
	iv := NewInterval(1, oltp.IntervalReport{Phase: oltp.PhaseMeasure, Ops: []string{"transaction"}, Latency: []*hist.Histogram{histOf(time.Millisecond)}})
	iv.Version = 1
	b, _ := json.Marshal(iv)
	got, err := ParseInterval(b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := got.Report()
	if err != nil || r.CPU != nil || r.Latency[0].Count() != 1 {
		t.Errorf("version 1 interval: %v, cpu %v", err, r.CPU)
	}
}
