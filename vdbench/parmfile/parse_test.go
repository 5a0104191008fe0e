package parmfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, src string) *Params {
	t.Helper()
	p, err := Parse("t.vdb", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return p
}

// problemsOf parses and validates src and returns the error text.
func problemsOf(src string) string {
	p, err := Parse("t.vdb", []byte(src))
	if err == nil {
		err = p.Validate()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// A file with the features HCIBench and hand-written vdbench files use:
// general no-ops, defaults, abbreviations, both continuation forms,
// comments, units, quotes, wildcards and eof.
const fullFile = `* comment line
# another comment
/ and a third
debug=86
data_errors=10000
sd=default,openflags=o_direct,hitarea=4k,
   range=(0,25),threads=4
sd=default,th=16
sd=sd1,lun=/dev/sdb          * the first drive
sd=sd2,lun="/data/a file",si=10g,hi=2m,openf=(o_direct,fsync)
wd=default,xf=8k,se=random
wd=wd1,sd=sd*,rdpct=70
wd=wd2,sd=(sd1,sd2),xf=(4k,50,
  8k,25,64k,25),rdpct=0,seekpct=seq,rh=0,wh=10,ra=(0,50),sk=30
wd=wd3,sd=*,xfersize=(4k,64k,4k),readpct=100,seekpct=eof
rd=default,el=1m,in=5,wa=10
rd=rd1,wd=wd*,io=curve,cu=(10-120,10),di=uniform
,stopc=0.5
rd=rd2,wd=(wd1,wd3),iorate=(1000,2000),elapsed=30,interval=5,forth=(1-4,d),forx=(4k,8k)
rd=rd3,wd=wd1,iorate=max,elapsed=10,warmup=0,interval=5,forrdpct=(0,100)
eof
this is not parsed
`

func TestParseFull(t *testing.T) {
	p := mustParse(t, fullFile)
	want := &Params{
		File: "t.vdb",
		Ignored: []IgnoredParam{
			{Keyword: "debug", Value: "86", Why: generalWhy["debug"], Line: 4},
			{Keyword: "data_errors", Value: "10000", Why: generalWhy["data_errors"], Line: 5},
		},
		SDs: []SD{
			{Name: "sd1", Lun: "/dev/sdb", Range: [2]float64{0, 25}, Threads: 16, OpenFlags: []string{"o_direct"}, HitArea: 4096, Line: 9},
			{Name: "sd2", Lun: "/data/a file", Size: 10 << 30, Range: [2]float64{0, 25}, Threads: 16, OpenFlags: []string{"o_direct", "fsync"}, HitArea: 2 << 20, Line: 10},
		},
		WDs: []WD{
			{Name: "wd1", SDs: []string{"sd*"}, Xfer: Single(8192), RdPct: 70, Seek: Seek{Pct: 100}, Range: [2]float64{0, 100}, Line: 12},
			{Name: "wd2", SDs: []string{"sd1", "sd2"}, Xfer: XferSize{Sizes: []int64{4096, 8192, 65536}, Pcts: []float64{50, 25, 25}},
				RdPct: 0, Seek: Seek{}, WhPct: 10, Range: [2]float64{0, 50}, Skew: 30, Line: 13},
			{Name: "wd3", SDs: []string{"*"}, Xfer: XferSize{Min: 4096, Max: 65536, Align: 4096}, RdPct: 100, Seek: Seek{EOF: true}, Range: [2]float64{0, 100}, Line: 15},
		},
		RDs: []RD{
			{Name: "rd1", WDs: []string{"wd*"}, IORate: IORate{Curve: true}, Curve: []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120},
				Elapsed: time.Minute, Interval: 5 * time.Second, Warmup: 10 * time.Second, WarmupSet: true, Distribution: "uniform", StopCurve: 500 * time.Microsecond, Line: 17},
			{Name: "rd2", WDs: []string{"wd1", "wd3"}, IORate: IORate{Rates: []float64{1000, 2000}}, Curve: DefaultCurve(),
				Elapsed: 30 * time.Second, Interval: 5 * time.Second, Warmup: 10 * time.Second, WarmupSet: true, Distribution: "exponential",
				ForXfer: []XferSize{Single(4096), Single(8192)}, ForThreads: []int{1, 2, 4}, LoopOrder: []string{"threads", "xfersize"}, Line: 19},
			{Name: "rd3", WDs: []string{"wd1"}, IORate: IORate{Max: true}, Curve: DefaultCurve(), Elapsed: 10 * time.Second, Interval: 5 * time.Second,
				WarmupSet: true, Distribution: "exponential", ForRdPct: []float64{0, 100}, LoopOrder: []string{"rdpct"}, Line: 20},
		},
	}
	if got := withoutKeyLines(p); !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
	if l := keyLine(p.WDs[1].keyLines, "seekpct", 0); l != 14 {
		t.Errorf("wd2's seekpct= is on line 14, recorded as %d", l)
	}

	// Text writes a file that Parse reads back into the same model.
	back, err := Parse("t.vdb", []byte(p.Text()))
	if err != nil {
		t.Fatalf("Parse(Text()): %v\n%s", err, p.Text())
	}
	if a, b := withoutLines(p), withoutLines(back); !reflect.DeepEqual(a, b) {
		t.Errorf("round trip:\n got %+v\nwant %+v\ntext:\n%s", b, a, p.Text())
	}
}

// withoutLines zeroes the line numbers, which a round trip changes.
// withoutKeyLines returns a copy of p without the keywords' lines and
// spellings.
func withoutKeyLines(p *Params) *Params {
	q := *p
	q.SDs, q.WDs, q.RDs = slices.Clone(p.SDs), slices.Clone(p.WDs), slices.Clone(p.RDs)
	for i := range q.SDs {
		q.SDs[i].keyLines = nil
	}
	for i := range q.WDs {
		q.WDs[i].keyLines = nil
	}
	for i := range q.RDs {
		q.RDs[i].keyLines, q.RDs[i].keyWritten = nil, nil
	}
	return &q
}

func withoutLines(p *Params) *Params {
	q := withoutKeyLines(p)
	q.Ignored = slices.Clone(p.Ignored)
	for i := range q.Ignored {
		q.Ignored[i].Line = 0
	}
	for i := range q.SDs {
		q.SDs[i].Line = 0
	}
	for i := range q.WDs {
		q.WDs[i].Line = 0
	}
	for i := range q.RDs {
		q.RDs[i].Line = 0
	}
	return q
}

func TestDefaults(t *testing.T) {
	p := mustParse(t, "sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n")
	sd, wd, rd := p.SDs[0], p.WDs[0], p.RDs[0]
	if sd.Threads != 8 || sd.HitArea != 1<<20 || sd.Range != [2]float64{0, 100} || !slices.Equal(sd.OpenFlags, []string{"o_direct"}) || sd.Size != 0 {
		t.Errorf("sd defaults: %+v", sd)
	}
	if !reflect.DeepEqual(wd.Xfer, Single(4096)) || wd.RdPct != 100 || wd.Seek != (Seek{Pct: 100}) || wd.Range != [2]float64{0, 100} || wd.Skew != 0 {
		t.Errorf("wd defaults: %+v", wd)
	}
	if rd.Elapsed != 30*time.Second || rd.Interval != 15*time.Second || rd.Warmup != 0 || rd.Distribution != "exponential" ||
		!slices.Equal(rd.Curve, []float64{10, 50, 70, 80, 90, 100}) || rd.StopCurve != 0 {
		t.Errorf("rd defaults: %+v", rd)
	}
	for elapsed, interval := range map[string]time.Duration{"300": time.Minute, "10m": time.Minute, "60": 30 * time.Second, "4": 2 * time.Second} {
		p := mustParse(t, "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed="+elapsed+"\n")
		if got := p.RDs[0].Interval; got != interval {
			t.Errorf("elapsed=%s: interval %v, want %v (min(elapsed/2, 60 s))", elapsed, got, interval)
		}
	}
	// rd=default's interval is inherited, not recomputed.
	p = mustParse(t, "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=default,interval=2\nrd=rd1,wd=wd1,iorate=max,elapsed=300\n")
	if p.RDs[0].Interval != 2*time.Second {
		t.Errorf("interval from rd=default: %v", p.RDs[0].Interval)
	}
	// openflags=none is kept as the engine's "buffered" value.
	p = mustParse(t, "sd=sd1,lun=/x,openflags=none\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n")
	if !slices.Equal(p.SDs[0].OpenFlags, []string{"none"}) {
		t.Errorf("openflags=none: %q", p.SDs[0].OpenFlags)
	}
}

func TestValueForms(t *testing.T) {
	head := "sd=sd1,lun=/x\n"
	wdOf := func(v string) WD { return mustParse(t, head+"wd=wd1,sd=sd1,"+v+"\nrd=rd1,wd=wd1,iorate=max\n").WDs[0] }
	rdOf := func(v string) RD { return mustParse(t, head+"wd=wd1,sd=sd1\nrd=rd1,wd=wd1,"+v+"\n").RDs[0] }
	for v, want := range map[string]Seek{"seekpct=seq": {}, "seekpct=sequential": {}, "seekpct=0": {},
		"seekpct=rand": {Pct: 100}, "seekpct=RANDOM": {Pct: 100}, "seekpct=eof": {EOF: true}, "seekpct=30": {Pct: 30}} {
		if got := wdOf(v).Seek; got != want {
			t.Errorf("%s: %+v, want %+v", v, got, want)
		}
	}
	for v, want := range map[string]XferSize{
		"xfersize=512":               Single(512),
		"xfersize=(64k)":             Single(65536),
		"xfersize=(4k,100)":          Single(4096),
		"xfersize=(4k,33.3,8k,66.7)": {Sizes: []int64{4096, 8192}, Pcts: []float64{33.3, 66.7}},
		"xfersize=(512,64k,512)":     {Min: 512, Max: 65536, Align: 512},
	} {
		if got := wdOf(v).Xfer; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", v, got, want)
		}
	}
	if got := wdOf("wrpct=30").RdPct; got != 70 {
		t.Errorf("wrpct=30: rdpct %v", got)
	}
	for v, want := range map[string]IORate{"iorate=max": {Max: true}, "iorate=MAX": {Max: true}, "iorate=curve": {Curve: true},
		"iorate=1500": {Rates: []float64{1500}}, "iorate=(1000,2000)": {Rates: []float64{1000, 2000}},
		"iorate=(1000-3000,1000)": {Rates: []float64{1000, 2000, 3000}}} {
		if got := rdOf(v).IORate; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", v, got, want)
		}
	}
	for _, d := range []string{"exponential", "uniform", "deterministic", "Uniform"} {
		if got := rdOf("iorate=100,distribution=" + d).Distribution; got != strings.ToLower(d) {
			t.Errorf("distribution=%s: %q", d, got)
		}
	}
	// vdbench's rd aliases of the for-loops, and abbreviations of rd keywords.
	rd := rdOf("io=max,el=60,in=5,wa=10,threads=(8,16),xfersize=4k,rdpct=(70,30)")
	if !slices.Equal(rd.ForThreads, []int{8, 16}) || !reflect.DeepEqual(rd.ForXfer, []XferSize{Single(4096)}) ||
		!slices.Equal(rd.ForRdPct, []float64{70, 30}) || !slices.Equal(rd.LoopOrder, []string{"threads", "xfersize", "rdpct"}) ||
		rd.Elapsed != time.Minute || rd.Interval != 5*time.Second || rd.Warmup != 10*time.Second {
		t.Errorf("rd aliases and abbreviations: %+v", rd)
	}
	if got := rdOf("iorate=curve,stopcurve=2").StopCurve; got != 2*time.Millisecond {
		t.Errorf("stopcurve=2: %v", got)
	}
}

// TestParseErrors checks that each problem is reported with file, line
// and keyword, and what is valid.
func TestParseErrors(t *testing.T) {
	ok := "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n"
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"unsupported general", "hd=default,jvms=1\n" + ok, []string{"t.vdb:1: hd: hd= is a vdbench keyword that is not supported by vmbench"}},
		{"unsupported compratio", "compratio=2\n" + ok, []string{"t.vdb:1: compratio: ", "not supported by vmbench"}},
		{"unsupported fsd", "fsd=fsd1,anchor=/tmp\n" + ok, []string{"t.vdb:1: fsd: ", "not supported by vmbench", "raw block I/O"}},
		{"unsupported sd keyword", "sd=sd1,lun=/x,offset=4k\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:1: offset: offset= is a vdbench keyword that is not supported by vmbench (vmbench's sd keywords: lun, size, range, threads, openflags, hitarea)"}},
		{"unsupported dedup", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,dedupratio=2\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: dedupratio: ", "not supported by vmbench"}},
		{"unsupported abbreviation", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,hot=(10,90)\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: hot: hotband= is a vdbench keyword that is not supported"}},
		{"wd threads", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,threads=8\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: threads: ", "threads belong to the sd"}},
		{"unknown keyword", "sd=sd1,lun=/x,thraeds=8\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:1: thraeds: unknown sd keyword (valid: lun, size, range, threads, openflags, hitarea)"}},
		{"ambiguous wd prefix", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,r=50\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: r: ambiguous abbreviation: it could be range, rdpct, rhpct"}},
		{"ambiguous with unsupported", "sd=sd1,lun=/x,o=o_direct\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:1: o: ambiguous abbreviation: it could be offset, openflags"}},
		{"ambiguous rd prefix", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,i=max\n",
			[]string{"t.vdb:3: i: ambiguous abbreviation: it could be interval, iorate"}},
		{"error on a continuation line", "sd=sd1,lun=/x,\n  range=(0,25),\n  threads=many\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:3: threads: "many" is not a whole number`}},
		{"leading-comma continuation line", "sd=sd1,lun=/x\n* comment between\n,size=4q\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:3: size: size "4q" is not a size (valid: bytes such as 512`}},
		{"definition after a trailing comma", "sd=sd1,lun=/x,\nsd=sd2,lun=/y\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: sd: unknown sd keyword", "a new definition starts on a line of its own"}},
		{"continuation without definition", ",threads=8\n" + ok, []string{"t.vdb:1: this line starts with a comma"}},
		{"text after blank", "sd=sd1,lun=/x threads=8\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{`t.vdb:1: text after a blank: "threads=8"`}},
		{"xfersize sum", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,xfersize=(4k,50,8k,40)\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: xfersize: the percentages add up to 90, not 100 (valid:"}},
		{"xfersize odd", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,xfersize=(4k,50,8k,30,16k)\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: xfersize: 5 values: a distribution needs pairs"}},
		{"xfersize 512", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,xf=1000\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: xf (xfersize): transfer size 1000 is not a positive multiple of 512 bytes"}},
		{"size below a transfer", "sd=sd1,lun=/x,size=2k\nwd=wd1,sd=sd1,xfersize=(4k,50,8k,50)\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: xfersize: wd=wd1: sd=sd1 has size=2k, too small for this workload's largest transfer of 8k", "(valid: size= of at least 16k, or smaller transfers)"}},
		{"size of one transfer", "sd=sd1,lun=/x,size=32m\nwd=wd1,sd=sd1,xfersize=32m\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: xfersize: wd=wd1: sd=sd1 has size=32m, too small", "LBA 0 being never used", "(valid: size= of at least 64m"}},
		{"size of one transfer in a range", "sd=sd1,lun=/x,size=64m,range=(0,50)\nwd=wd1,sd=sd1,xfersize=32m\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"sd=sd1 has size=64m, too small", "(valid: size= of at least 128m"}},
		{"xfersize min max", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,xfersize=(8k,4k,4k)\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: xfersize: (min,max,align) needs min <= max"}},
		{"seekpct word", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,seekpct=poisson\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{`t.vdb:2: seekpct: "poisson" is not a seekpct (valid: a percentage of random I/Os from 0 to 100, sequential, random, eof)`}},
		{"rdpct range", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,rdpct=101\nrd=rd1,wd=wd1,iorate=max\n", []string{`t.vdb:2: rdpct: "101" is not a percentage`}},
		{"range backwards", "sd=sd1,lun=/x,range=(25,0)\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:1: range: (25,0) is empty or backwards"}},
		{"iorate word", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=fast\n", []string{`t.vdb:3: iorate: "fast" is not a positive number (valid: max, curve,`}},
		{"iorate mixed", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=(max,100)\n", []string{"t.vdb:3: iorate: "}},
		{"distribution", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=100,distribution=normal\n",
			[]string{`t.vdb:3: distribution: "normal" is not a distribution (valid: exponential, uniform, deterministic)`}},
		{"elapsed twice interval", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=5,interval=3\n",
			[]string{"t.vdb:3: elapsed: rd=rd1: elapsed=5 must be at least twice interval=3"}},
		{"elapsed multiple", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=10,interval=3\n",
			[]string{"t.vdb:3: elapsed: rd=rd1: elapsed=10 must be a multiple of interval=3"}},
		{"default interval not a divisor", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=150\n",
			[]string{"t.vdb:3: elapsed: rd=rd1: elapsed=150 must be a multiple of interval=60"}},
		{"warmup multiple", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=30,interval=5,warmup=7\n",
			[]string{"t.vdb:3: warmup: rd=rd1: warmup=7 must be a multiple of interval=5"}},
		{"interval zero", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,interval=0\n", []string{"t.vdb:3: interval: must be at least 1 second"}},
		{"general after sd", "sd=sd1,lun=/x\ndebug=1\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: debug: general parameters must come before sd= definitions"}},
		{"sd after wd", "wd=wd1,sd=sd1\nsd=sd1,lun=/x\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: sd: sd= must come before wd= definitions"}},
		{"duplicate keyword", "sd=sd1,lun=/x,threads=8,th=4\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:1: th (threads): given twice"}},
		{"duplicate name", "sd=sd1,lun=/x\nsd=sd1,lun=/y\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: sd=sd1: sd=sd1 is already defined on line 1"}},
		{"curve without curve", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,curve=(50,100)\n", []string{"t.vdb:3: curve: rd=rd1: curve= is given but iorate= is not curve"}},
		{"stopcurve without curve", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,stopcurve=1\n", []string{"t.vdb:3: stopcurve: rd=rd1: stopcurve= applies to iorate=curve only"}},
		{"unclosed paren", "sd=sd1,lun=/x,range=(0,25\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:1: unclosed parenthesis"}},
		{"no value", "sd=sd1,lun=\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:1: lun: no value after lun="}},
		{"no equals", "sd=sd1,lun\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{`t.vdb:1: expected keyword=value, found "lun"`}},
		{"list of names", "sd=(sd1,sd2),lun=/x\n" + ok, []string{"t.vdb:1: sd: takes one value"}},
		{"bad openflag", "sd=sd1,lun=/x,openflags=(o_direct,o_fast)\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{`t.vdb:1: openflags: "o_fast" is not an open flag (valid: o_direct,`}},
		{"unknown sd", "sd=sd1,lun=/x\nwd=wd1,sd=sd9\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: sd: wd=wd1: sd=sd9 matches no sd definition (defined: sd1)"}},
		{"unknown wd", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=xx*,iorate=max\n", []string{"t.vdb:3: wd: rd=rd1: wd=xx* matches no wd definition (defined: wd1)"}},
		{"no lun", "sd=sd1,size=1g\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:1: lun: sd=sd1: lun= is required"}},
		{"placeholder lun", "sd=sd1,lun=$target\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:1: lun: sd=sd1: lun=$target is a placeholder"}},
		{"no iorate", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1\n", []string{"t.vdb:3: iorate: rd=rd1: iorate= is required"}},
		{"no wd in rd", "sd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,iorate=max\n", []string{"t.vdb:3: wd: rd=rd1: wd= is required"}},
		{"skews over 100", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,skew=60\nwd=wd2,sd=sd1,skew=50\nrd=rd1,wd=wd*,iorate=max\n",
			[]string{"t.vdb:4: skew: rd=rd1: the skews of its wds add up to 110%, more than 100"}},
		{"skews under 100", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,skew=60\nwd=wd2,sd=sd1,skew=30\nrd=rd1,wd=wd*,iorate=max\n",
			[]string{"every wd has a skew and they add up to 90%, not 100"}},
		{"skews leave nothing", "sd=sd1,lun=/x\nwd=wd1,sd=sd1,skew=100\nwd=wd2,sd=sd1\nrd=rd1,wd=wd*,iorate=max\n",
			[]string{"leaving nothing for wd2"}},
		{"hit area", "sd=sd1,lun=/x,hitarea=0\nwd=wd1,sd=sd1,rhpct=10\nrd=rd1,wd=wd1,iorate=max\n", []string{"t.vdb:2: rhpct: wd=wd1: rhpct/whpct send I/O to the hit area, but sd=sd1 has hitarea=0"}},
		{"empty file", "* nothing\n", []string{"t.vdb: no sd= definition", "t.vdb: no wd= definition", "t.vdb: no rd= definition"}},
		{"several at once", "sd=sd1,lun=/x,threads=0,size=big\nwd=wd1,sd=sd1,xfersize=1000\nrd=rd1,wd=wd1,iorate=max,warmup=x\n",
			[]string{"t.vdb:1: threads:", "t.vdb:1: size:", "t.vdb:2: xfersize:", "t.vdb:3: warmup:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := problemsOf(c.src)
			if got == "" {
				t.Fatalf("no error for:\n%s", c.src)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("error does not contain %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestParseErrorType(t *testing.T) {
	_, err := Parse("f.vdb", []byte("sd=sd1,lun=/x,threads=0\nwd=wd1,sd=sd1,bogus=1\n"))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "f.vdb" || pe.Line != 1 || pe.Keyword != "threads" {
		t.Fatalf("errors.As: %+v (%v)", pe, err)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 2 {
		t.Errorf("%d errors, want 2: %v", n, err)
	}
}

func TestParseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my.vdb")
	if err := os.WriteFile(path, []byte("sd=sd1,lun=/x\r\nwd=wd1,sd=sd1\r\nrd=rd1,wd=wd1,iorate=max,elapsed=bad\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":3: elapsed: ") {
		t.Errorf("ParseFile: %v", err)
	}
	if _, err := ParseFile(filepath.Join(t.TempDir(), "missing.vdb")); err == nil {
		t.Error("ParseFile of a missing file: no error")
	}
}

func TestRuns(t *testing.T) {
	p := mustParse(t, `sd=sd1,lun=/a,threads=4
sd=sd2,lun=/b,threads=4
sd=sd3,lun=/c
wd=wd1,sd=sd*,xfersize=8k,rdpct=70
wd=wd2,sd=(sd1,sd2),skew=20
wd=other,sd=sd3
rd=loops,wd=wd*,iorate=(100,200),elapsed=10,interval=5,forthreads=(8,32),forxfersize=(4k,64k),forrdpct=(0,50,100)
rd=plain,wd=other,iorate=curve,elapsed=10,interval=5
`)
	runs, err := p.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2*2*3+1 {
		t.Fatalf("%d runs, want 13", len(runs))
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	// forthreads was given first, so it is the outermost loop.
	if want := []string{"loops_threads=8_xfer=4k_rdpct=0", "loops_threads=8_xfer=4k_rdpct=50", "loops_threads=8_xfer=4k_rdpct=100",
		"loops_threads=8_xfer=64k_rdpct=0"}; !slices.Equal(names[:4], want) {
		t.Errorf("first names %q, want %q", names[:4], want)
	}
	if names[12] != "plain" {
		t.Errorf("last run %q, want plain", names[12])
	}
	r := runs[11] // threads=32, xfer=64k, rdpct=100
	if r.Name != "loops_threads=32_xfer=64k_rdpct=100" {
		t.Fatalf("run 11 is %s", r.Name)
	}
	if !slices.Equal(r.RD.WDs, []string{"wd1", "wd2"}) || r.RD.ForThreads != nil || r.RD.ForXfer != nil || r.RD.ForRdPct != nil {
		t.Errorf("run RD: %+v", r.RD)
	}
	if !slices.Equal(r.RD.IORate.Rates, []float64{100, 200}) {
		t.Errorf("the rate list stays in the run: %+v", r.RD.IORate)
	}
	if len(r.WDs) != 2 || !slices.Equal(r.WDs[0].SDs, []string{"sd1", "sd2", "sd3"}) || !reflect.DeepEqual(r.WDs[0].Xfer, Single(65536)) ||
		r.WDs[0].RdPct != 100 || r.WDs[1].Skew != 20 || r.WDs[1].RdPct != 100 {
		t.Errorf("run WDs: %+v", r.WDs)
	}
	if len(r.SDs) != 3 || r.SDs[0].Name != "sd1" || r.SDs[0].Threads != 32 || r.SDs[2].Threads != 32 {
		t.Errorf("run SDs: %+v", r.SDs)
	}
	// The parsed model is not changed by the expansion.
	if p.SDs[0].Threads != 4 || !reflect.DeepEqual(p.WDs[0].Xfer, Single(8192)) || p.WDs[0].SDs[0] != "sd*" {
		t.Errorf("Runs changed the model: %+v %+v", p.SDs[0], p.WDs[0])
	}
	plain := runs[12]
	if len(plain.SDs) != 1 || plain.SDs[0].Name != "sd3" || plain.SDs[0].Threads != 8 || !plain.RD.IORate.Curve {
		t.Errorf("plain run: %+v", plain)
	}

	// Runs refuses an invalid model.
	p.WDs[0].SDs = []string{"nope"}
	if _, err := p.Runs(); err == nil {
		t.Error("Runs of an invalid model: no error")
	}
}

func TestDescribeMentionsIgnored(t *testing.T) {
	p := mustParse(t, "debug=86\ndata_errors=10000\nsd=sd1,lun=/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=10,interval=5\n")
	d, err := p.Describe()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"debug=86 (line 1)", "data_errors=10000 (line 2)", "no meaning in vmbench", "no data validation",
		"the first interval is left out of the averages", "1 point(s) x 10s = 10s"} {
		if !strings.Contains(d, w) {
			t.Errorf("Describe does not say %q:\n%s", w, d)
		}
	}
}

// TestProgrammaticModel: a model built in code (as the engine's tests do)
// validates and expands; the zero range means all of it, and the loops run
// in the default order, xfersize outermost.
func TestProgrammaticModel(t *testing.T) {
	p := &Params{
		SDs: []SD{{Name: "sd1", Lun: "/dev/x", Threads: 4, HitArea: DefaultHitArea}},
		WDs: []WD{{Name: "wd1", SDs: []string{"sd1"}, Xfer: Single(4096), RdPct: 100, Seek: Seek{Pct: 100}}},
		RDs: []RD{{Name: "rd1", WDs: []string{"wd1"}, IORate: IORate{Max: true}, Elapsed: 10 * time.Second, Interval: 5 * time.Second,
			Distribution: DefaultDistribution, ForXfer: []XferSize{Single(4096)}, ForThreads: []int{32}}},
	}
	runs, err := p.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Name != "rd1_xfer=4k_threads=32" || runs[0].SDs[0].Threads != 32 {
		t.Errorf("runs: %+v", runs)
	}
	if err := (&Params{File: "x"}).Validate(); err == nil || !strings.Contains(err.Error(), "x: no sd= definition") {
		t.Errorf("Validate of an empty model: %v", err)
	}
}
