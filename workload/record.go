package workload

import (
	"io"
	"math"
	"reflect"
	"strconv"

	"github.com/spf13/pflag"
)

// The recorded flags: what a Result (oltp.Result.Flags), a campaign's
// campaign.yaml and an agent's job hold of a Config's options. They are
// derived from the flag set BindFlags binds, with one meaning for every
// tool:
//
// every option the tool binds, at the value its flag reads back once the
// Config is complete (after Complete, and Validate), by its own name;
// left out are the options marked at their binding (Alias: another name
// of a recorded option; NotRecorded: where the database is, a password,
// what is only printed) and an option whose recorded value is empty
// (an override not given, vdbench's -e; an option that does not apply
// given the others, RecordAs).
//
// Why every option's value and not only the options given: a Result or
// campaign.yaml then says what ran whatever the defaults of the version
// that reads it, two runs compare (and merge) as equal exactly when they
// ran the same options, and an agent that parses the record (without the
// connection options, which its job carries as the database) runs the
// Config the campaign parsed. Why derived from the flag set: an option
// bound later is recorded without anyone listing it; leaving one out
// takes a mark where it is bound, which the flag round-trip test checks
// (agent/flags_roundtrip_test.go).

// Annotation keys of a flag (pflag.Flag.Annotations) that RecordedFlags
// reads.
const (
	annotationAliasOf     = "vmbench-alias-of"
	annotationNotRecorded = "vmbench-not-recorded"
)

// Alias marks the flag alias of fs, bound by the tool, as another name
// of the option name (sysbench 0.5's --num-threads for --threads, go-tpc's
// --count for --events): RecordedFlags records the option under name
// only. It panics when either is not bound (a programming error, found by
// every test that binds the tool's flags).
func Alias(fs *pflag.FlagSet, alias, name string) {
	if fs.Lookup(name) == nil {
		panic("workload.Alias: --" + name + " is not bound")
	}
	if err := fs.SetAnnotation(alias, annotationAliasOf, []string{name}); err != nil {
		panic("workload.Alias: " + err.Error())
	}
}

// NotRecorded marks options of fs that RecordedFlags leaves out because
// they cannot change what is run or measured: where the database is
// (host, port, user, database name, socket, SQLite file: a campaign sets
// them for each VM), a password (never recorded), what is only printed
// (sysbench's --percentile). It panics when one is not bound.
func NotRecorded(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, annotationNotRecorded, []string{"true"}); err != nil {
			panic("workload.NotRecorded: " + err.Error())
		}
	}
}

// RecordedValue is a flag Value whose recorded form is not its String:
// the value the run uses where the option's default stands for a value
// derived from other options (tpcc's --terminals 0, 10 per warehouse),
// a canonical spelling (a duration of 0 recorded as "0s"), or "" when
// the option does not apply given the others (sysbench's --rand-spec-pct
// beside --rand-type uniform). Parsing the recorded form gives the same
// Config.
type RecordedValue interface {
	pflag.Value
	// Recorded is the value RecordedFlags records; "" leaves the option
	// out.
	Recorded() string
}

// RecordAs makes the recorded form of option name of fs record(value),
// value being what its flag reads back (a RecordedValue wrapping the
// bound Value): help, parsing and String stay the flag's. record is
// called on the Config that RecordedFlags binds, once it is complete. It
// panics when name is not bound.
func RecordAs(fs *pflag.FlagSet, name string, record func(value string) string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("workload.RecordAs: --" + name + " is not bound")
	}
	f.Value = &recordedAs{Value: f.Value, record: record}
}

type recordedAs struct {
	pflag.Value
	record func(string) string
}

func (r *recordedAs) Recorded() string { return r.record(r.String()) }

// RecordedFlags returns cfg's recorded flags (see above): names without
// dashes, values as the flag parser reads them back (workload.Parse gives
// the same Config from them). It binds a shallow copy of cfg (a Config is
// a pointer to a struct holding its options), so cfg itself is only read:
// several goroutines may record one Config at once.
func RecordedFlags(cfg Config) map[string]string {
	m := map[string]string{}
	visitRecorded(cfg, func(f *pflag.Flag, v string) { m[f.Name] = v })
	return m
}

// TypedFlags are RecordedFlags with each value of its flag's own type, as
// campaign.yaml writes them: an int64 for an integer option (pflag type
// int, int64...), a float64 for a floating-point one (float64, or a Value
// whose Get, as the standard library's flag.Getter, returns a float64),
// a string for any other (durations, on/off, lists, names). Infinities
// and NaN stay strings.
func TypedFlags(cfg Config) map[string]any {
	m := map[string]any{}
	visitRecorded(cfg, func(f *pflag.Flag, v string) { m[f.Name] = typed(f.Value, v) })
	return m
}

func visitRecorded(cfg Config, visit func(f *pflag.Flag, v string)) {
	fs := pflag.NewFlagSet("record", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shallowCopy(cfg).BindFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Annotations[annotationAliasOf] != nil || f.Annotations[annotationNotRecorded] != nil {
			return
		}
		v := f.Value.String()
		if r, ok := f.Value.(RecordedValue); ok {
			v = r.Recorded()
		}
		if v != "" {
			visit(f, v)
		}
	})
}

// shallowCopy returns a copy of the struct cfg points to, so that binding
// it writes nothing to cfg (pflag's IntVar and the like store the default
// they are given); cfg itself when it is not a pointer to a struct.
func shallowCopy(cfg Config) Config {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return cfg
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	if c, ok := cp.Interface().(Config); ok {
		return c
	}
	return cfg
}

// typed is recorded value s of a flag whose Value is v, as v's type.
func typed(v pflag.Value, s string) any {
	if g, ok := v.(interface{ Get() any }); ok {
		if f, ok := g.Get().(float64); ok && !math.IsInf(f, 0) && !math.IsNaN(f) && strconv.FormatFloat(f, 'g', -1, 64) == s {
			return f
		}
	}
	switch v.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case "float32", "float64":
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return s
}
