package agent

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"vmbench/dialect"
	"vmbench/workload"
)

// flagCase is how the round-trip test sets one option to a value other
// than its default.
type flagCase struct {
	// value is the value given; "" derives one from the flag's type and
	// default (an integer plus 1, a float plus 0.5, a boolean flipped, a
	// duration plus a second).
	value string
	// with are the other options the value needs to be valid and to
	// apply (sysbench's --rand-spec-pct applies beside --rand-type
	// special).
	with map[string]string
	// alone drops the tool's base options (vdbench's -f instead of a
	// --profile on a --target).
	alone bool
	// campaignRefuses, when set, says why a campaign refuses the value
	// today (the test checks that it does, so that the entry goes once it
	// does not).
	campaignRefuses string
}

// toolFlags is, per tool, what the round-trip test needs beyond the flag
// set: the options every case starts from, the values it cannot derive,
// and the options not recorded, each with why.
type toolFlags struct {
	base       map[string]string
	cases      map[string]flagCase
	unrecorded map[string]string
}

// roundTripFlags are the tools' entries. A tool's newly bound option
// needs none when its value derives from its type; otherwise, or when it
// is left out of the record, the test fails until it is added here.
func roundTripFlags(t *testing.T) map[string]toolFlags {
	dir := t.TempDir()
	params := filepath.Join(dir, "params.txt")
	if err := os.WriteFile(params, []byte("sd=sd1,lun="+filepath.Join(dir, "x.img")+",size=1m\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\n"+
		"rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	where := "where the database is: the campaign sets it for each VM"
	return map[string]toolFlags{
		"sysbench": {
			cases: map[string]flagCase{
				"rand-type":           {value: "gaussian"},
				"rand-spec-iter":      {with: map[string]string{"rand-type": "gaussian"}},
				"rand-spec-pct":       {with: map[string]string{"rand-type": "special"}},
				"rand-spec-res":       {with: map[string]string{"rand-type": "special"}},
				"rand-pareto-h":       {with: map[string]string{"rand-type": "pareto"}},
				"rand-zipfian-exp":    {with: map[string]string{"rand-type": "zipfian"}},
				"db-driver":           {value: "sqlite"},
				"mysql-ignore-errors": {value: "1213"},
			},
			unrecorded: map[string]string{
				"mysql-host": where, "mysql-port": where, "mysql-socket": where, "mysql-user": where, "mysql-db": where, "sqlite-path": where,
				"pgsql-host": where, "pgsql-port": where, "pgsql-user": where, "pgsql-db": where,
				"mysql-password": "a password", "pgsql-password": "a password",
				"percentile":  "only what the report prints",
				"num-threads": "alias of threads", "max-time": "alias of time", "max-requests": "alias of events", "tx-rate": "alias of rate",
			},
		},
		"tpcc": {
			cases: map[string]flagCase{
				"db-driver":  {value: "sqlite"},
				"wait-scale": {value: "0.5"},
				"isolation": {value: "serializable", with: map[string]string{"db-driver": "postgres"},
					campaignRefuses: "a campaign validates its workload flags before it sets each VM's database (scenarios' parseWorkload), " +
						"and --isolation applies to PostgreSQL only"},
			},
			unrecorded: map[string]string{
				"host": where, "port": where, "mysql-socket": where, "user": where, "db": where, "sqlite-path": where, "password": "a password",
				"mysql-host": "alias of host", "mysql-port": "alias of port", "mysql-user": "alias of user", "mysql-password": "alias of password",
				"mysql-db": "alias of db", "wait": "alias of wait-scale", "interval": "alias of report-interval", "count": "alias of events",
				"ramp": "alias of warmup-time",
			},
		},
		"vdbench": {
			base: map[string]string{"profile": "4k-random-read", "target": filepath.Join(dir, "a.img")},
			cases: map[string]flagCase{
				"profile":  {value: "4k-random-write"},
				"target":   {value: filepath.Join(dir, "b.img") + "," + filepath.Join(dir, "c.img")},
				"file":     {value: params, alone: true},
				"ioengine": {value: "io_uring"},
				"size":     {value: "1m"},
				"curve":    {value: "10,50"},
				"elapsed":  {value: "10"}, // at least twice the profile's interval=5
				"warmup":   {value: "5"},  // a multiple of interval=5
			},
		},
	}
}

// TestFlagsRoundTrip: every option of every registered tool, set to a
// value other than its default, is in the recorded flags
// (workload.RecordedFlags) and survives both ways a campaign hands them
// on: record -> agent job (job.json without the connection options, the
// database beside them) -> the agent's load (workload.Parse), and record
// -> campaign.yaml (workload.TypedFlags as YAML) -> workload.Parse. An
// option left out of the record must be listed as unrecorded with why.
func TestFlagsRoundTrip(t *testing.T) {
	entries := roundTripFlags(t)
	for _, tool := range workload.Tools() {
		name := tool.Describe().Name
		e, ok := entries[name]
		if !ok {
			t.Errorf("tool %s: no entry in roundTripFlags", name)
			continue
		}
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		tool.NewConfig().BindFlags(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			if why, ok := e.unrecorded[f.Name]; ok {
				checkUnrecorded(t, tool, e, f.Name, why)
				return
			}
			t.Run(name+"/"+f.Name, func(t *testing.T) { roundTripFlag(t, tool, e, f) })
		})
		for n := range e.unrecorded {
			if fs.Lookup(n) == nil {
				t.Errorf("%s: --%s is listed as unrecorded but not bound", name, n)
			}
		}
	}
}

// checkUnrecorded fails when option n, listed as unrecorded, is recorded.
func checkUnrecorded(t *testing.T, tool workload.Tool, e toolFlags, n, why string) {
	cfg, err := workload.Parse(tool, "", e.base, nil, nil)
	if err != nil {
		t.Fatalf("%s %v: %v", tool.Describe().Name, e.base, err)
	}
	if v, ok := workload.RecordedFlags(cfg)[n]; ok {
		t.Errorf("%s: --%s is listed as unrecorded (%s) but recorded as %q", tool.Describe().Name, n, why, v)
	}
}

// roundTripFlag sets option f of tool to a value other than its default
// and checks the two ways.
func roundTripFlag(t *testing.T, tool workload.Tool, e toolFlags, f *pflag.Flag) {
	c := e.cases[f.Name]
	flags := maps.Clone(e.base)
	if c.alone || flags == nil {
		flags = map[string]string{}
	}
	maps.Copy(flags, c.with)
	var was string
	before, err := workload.Parse(tool, "", flags, nil, nil)
	switch {
	case err == nil:
		was = workload.RecordedFlags(before)[f.Name]
	case !c.alone:
		t.Fatalf("without --%s, %v: %v", f.Name, flags, err)
	}
	v := c.value
	if v == "" {
		if v = otherValue(f); v == "" {
			t.Fatalf("--%s (%s): no value derives from its type; add one to roundTripFlags", f.Name, f.Value.Type())
		}
	}
	flags[f.Name] = v
	cfg, err := workload.Parse(tool, "", flags, nil, nil)
	if err != nil {
		t.Fatalf("%v: %v (give a valid value in roundTripFlags)", flags, err)
	}
	rec := workload.RecordedFlags(cfg)
	got, ok := rec[f.Name]
	if !ok {
		t.Fatalf("--%s=%s is not recorded (%v): mark it workload.NotRecorded and list it as unrecorded, or record it", f.Name, v, rec)
	}
	if got == was {
		t.Fatalf("--%s=%s is recorded as %q, as its default is", f.Name, v, got)
	}
	if back := viaJob(t, tool, cfg, rec); !maps.Equal(back, rec) {
		t.Errorf("record -> job -> agent: %v,\nrecorded %v", back, rec)
	}
	back, err := viaYAML(tool, cfg)
	switch {
	case c.campaignRefuses != "" && err == nil:
		t.Errorf("a campaign takes --%s=%s now: drop campaignRefuses (%s) from its case", f.Name, v, c.campaignRefuses)
	case c.campaignRefuses != "":
	case err != nil:
		t.Error(err)
	case !maps.Equal(back, rec):
		t.Errorf("record -> campaign.yaml -> parse: %v,\nrecorded %v", back, rec)
	}
}

// otherValue is a value of f other than its default, derived from its
// type; "" for a type it does not know.
func otherValue(f *pflag.Flag) string {
	def := f.DefValue
	switch f.Value.Type() {
	case "int", "int64":
		n, _ := strconv.ParseInt(def, 10, 64)
		return strconv.FormatInt(n+1, 10)
	case "float64":
		x, _ := strconv.ParseFloat(def, 64)
		return strconv.FormatFloat(x+0.5, 'g', -1, 64)
	case "bool":
		return strconv.FormatBool(def != "true")
	case "on|off":
		return map[bool]string{true: "off", false: "on"}[def == "on"]
	case "seconds":
		var d time.Duration
		if s, err := strconv.ParseFloat(def, 64); err == nil {
			d = time.Duration(s * float64(time.Second))
		} else if def != "" {
			d, _ = time.ParseDuration(def)
		}
		return strconv.Itoa(int(d/time.Second) + 1)
	}
	return ""
}

// viaJob is what an agent parses of rec, the recorded flags of cfg, as a
// campaign's guest driver hands them on: a job without the connection
// options, cfg's database beside them (without its password), run by
// load from job.json.
func viaJob(t *testing.T, tool workload.Tool, cfg workload.Config, rec map[string]string) map[string]string {
	j := &Job{Version: JobVersion, Tool: tool.Describe().Name, Flags: maps.Clone(rec), Steps: []workload.Verb{workload.VerbRun}}
	if conn, ok := cfg.(workload.Connector); ok {
		for _, n := range conn.ConnectionFlags() {
			delete(j.Flags, n)
		}
		db := conn.Database()
		db.Password = ""
		if db.Driver != dialect.SQLite {
			db.SQLitePath = "" // a VM's database on a server, as a campaign gives it
		} else {
			db.SQLitePath = filepath.Join(t.TempDir(), "vm.db")
		}
		j.Database = &db
	}
	b, err := j.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, JobFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, back, err := load(dir, func(string) string { return "" }, "")
	if err != nil {
		t.Fatalf("the agent refuses the job %s: %v", b, err)
	}
	return workload.RecordedFlags(back)
}

// viaYAML is what a campaign parses of cfg's recorded flags written in
// campaign.yaml: TypedFlags without the connection options, as YAML,
// read back as the campaign reads a flag (its scalar as written), parsed
// with the connection options refused, then on cfg's database.
func viaYAML(tool workload.Tool, cfg workload.Config) (map[string]string, error) {
	typed := workload.TypedFlags(cfg)
	var refuse []string
	conn, isConn := cfg.(workload.Connector)
	if isConn {
		refuse = conn.ConnectionFlags()
		for _, n := range refuse {
			delete(typed, n)
		}
	}
	b, err := yaml.Marshal(map[string]any{"flags": typed})
	if err != nil {
		return nil, err
	}
	var doc struct {
		Flags yaml.Node `yaml:"flags"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	flags := map[string]string{}
	for i := 0; i+1 < len(doc.Flags.Content); i += 2 {
		flags[doc.Flags.Content[i].Value] = doc.Flags.Content[i+1].Value
	}
	back, err := workload.Parse(tool, "", flags, nil, refuse)
	if err != nil {
		return nil, fmt.Errorf("campaign.yaml's flags\n%s do not parse: %w", b, err)
	}
	if isConn { // a campaign runs a copy on each VM's database, validated again
		back.(workload.Connector).SetDatabase(conn.Database())
		if err := back.Validate(); err != nil {
			return nil, fmt.Errorf("campaign.yaml's flags\n%s do not validate on the database: %w", b, err)
		}
	}
	return workload.RecordedFlags(back), nil
}
