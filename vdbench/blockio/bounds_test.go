package blockio

import (
	"runtime"
	"strings"
	"testing"

	"vmbench/vdbench/parmfile"
)

// smallHost is a host of 2 CPUs, 4 GiB of memory, 1,000 OS threads and
// 66 open files: its bounds are 500 threads (by OS threads; memory allows
// 681 of 4 KiB), 2 luns, 4,000,000 I/Os per second, 65,536 intervals of
// one sd.
var smallHost = HostLimits{CPUs: 2, Memory: 4 << 30, OSThreads: 1000, Files: 66, Source: "test"}

// Every count a user types is bounded by what the host can do, checked
// before anything starts, and each refusal names the parameter, its line,
// the bound and why; huge and negative values that parmfile.Parse already refuses
// never reach the check.
func TestBoundsOfCounts(t *testing.T) {
	const sd, wd = "sd=sd1,lun=/dev/x\n", "wd=wd1,sd=sd*\n"
	for _, c := range []struct {
		name, src string
		want      []string // "" = accepted
	}{
		{"threads within", sd + wd + "rd=rd1,wd=wd1,iorate=max,forthreads=(1,64)\n", nil},
		{"threads beyond memory", "sd=sd1,lun=/dev/x,\n  threads=1048576\n" + wd + "rd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: threads: rd=rd1: run rd1 would start 1048576 I/O threads", "at most 500", "this host allows 1000 threads"}},
		{"forthreads beyond OS threads", sd + wd + "rd=rd1,wd=wd1,iorate=max,\n  forthreads=(1,600)\n",
			[]string{"t.vdb:4: forthreads:", "run rd1_threads=600", "at most 500", "this host allows 1000 threads"}},
		{"xfersize eats memory", "sd=sd1,lun=/dev/x,threads=8\nwd=wd1,sd=sd1,xfersize=256m\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"threads: rd=rd1: run rd1 would start 8 I/O threads", "at most 7", "a 256.0 MiB I/O buffer", "half of the 4.0 GiB available"}},
		{"mixed xfersize eats twice the memory", "sd=sd1,lun=/dev/x,threads=8\nwd=wd1,sd=sd1,xfersize=256m,rdpct=50\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"at most 3", "a read and a write buffer of 256.0 MiB each"}},
		{"threads huge", sd + "sd=default,threads=100000000\n", []string{`"100000000" is not a whole number from 1 to 1048576`}},
		{"threads negative", "sd=sd1,lun=/dev/x,threads=-8\n", []string{`"-8" is not a whole number`}},
		{"sd count", sd + "sd=sd2,lun=/dev/y\nsd=sd3,lun=/dev/z\n" + wd + "rd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:5: sd: rd=rd1: run rd1 uses 3 luns", "may hold 66 files open", "at most 2 luns"}},
		{"iorate huge", sd + wd + "rd=rd1,wd=wd1,\n  iorate=(1000,1e12)\n",
			[]string{"t.vdb:4: iorate: rd=rd1: 1000000000000 I/Os per second", "at most 4000000", "2 CPUs"}},
		{"iorate max float", sd + wd + "rd=rd1,wd=wd1,iorate=1e308\n", []string{"at most 4000000"}},
		{"iorate inf", sd + wd + "rd=rd1,wd=wd1,iorate=inf\n", []string{`"inf" is not a positive number`}},
		{"iorate negative", sd + wd + "rd=rd1,wd=wd1,iorate=-100\n", []string{`"-100" is not a positive number`}},
		{"intervals", sd + wd + "rd=rd1,wd=wd1,iorate=max,elapsed=100000,\n  interval=1\n",
			[]string{"t.vdb:4: interval: rd=rd1: interval=1 over warmup=0 and elapsed=100000 gives 100000 intervals", "a quarter of it"}},
		{"elapsed a year", sd + wd + "rd=rd1,wd=wd1,iorate=max,\n  elapsed=40000000,interval=20000000\n",
			[]string{"t.vdb:4: elapsed: rd=rd1: the 1 run(s) would take 463 days in all; at most 366 days"}},
		{"warmup over curve points", sd + wd + "rd=rd1,wd=wd1,iorate=curve,curve=(10-1000,10),elapsed=120,interval=60,warmup=600000\n",
			[]string{"elapsed: rd=rd1: the 1 run(s) would take 702 days"}},
		{"elapsed beyond parse", sd + wd + "rd=rd1,wd=wd1,iorate=max,elapsed=2000000000\n", []string{`"2000000000" is more than 1,000,000,000 seconds`}},
		{"size huge", "sd=sd1,lun=/dev/x,size=9000000t\n", []string{`size "9000000t" is too large`}},
		{"size negative", "sd=sd1,lun=/dev/x,size=-1\n", []string{`size "-1" is negative`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := boundsProblems(c.src, smallHost)
			if c.want == nil && got != "" {
				t.Errorf("refused:\n%s", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
		})
	}
}

// boundsProblems parses src, expands its runs and checks them against lim
// for the psync engine.
func boundsProblems(src string, lim HostLimits) string {
	return engineBoundsProblems(src, lim, EnginePsync)
}

// engineBoundsProblems is boundsProblems for the I/O engine engine.
func engineBoundsProblems(src string, lim HostLimits, engine string) string {
	p, err := parmfile.Parse("t.vdb", []byte(src))
	if err != nil {
		return err.Error()
	}
	runs, err := p.Runs()
	if err != nil {
		return err.Error()
	}
	if err := CheckBounds("t.vdb", runs, lim, engine); err != nil {
		return err.Error()
	}
	return ""
}

// With io_uring each thread is a goroutine parked on its ring slot, not
// an OS thread blocked in its I/O: the host's OS-thread limit does not
// bound threads=, its memory still does, and so does a ring's depth. A
// refusal names the keyword as the file wrote it (threads= on an rd is
// forthreads=).
func TestBoundsOfEngines(t *testing.T) {
	const wd = "wd=wd1,sd=sd*\n"
	for _, c := range []struct {
		name, engine, src string
		want              []string // "" = accepted
	}{
		{"psync beyond OS threads", EnginePsync, "sd=sd1,lun=/dev/x,threads=600\n" + wd + "rd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:1: threads: rd=rd1: run rd1 would start 600 I/O threads", "this host allows 1000 threads"}},
		{"io_uring beyond OS threads", EngineURing, "sd=sd1,lun=/dev/x,threads=600\n" + wd + "rd=rd1,wd=wd1,iorate=max\n", nil},
		{"io_uring beyond memory", EngineURing, "sd=sd1,lun=/dev/x,threads=700\n" + wd + "rd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:1: threads: rd=rd1: run rd1 would start 700 I/O threads", "at most 681", "half of the 4.0 GiB available"}},
		{"io_uring deeper than a ring", EngineURing, "sd=sd1,lun=/dev/x,\n  threads=40000\n" + wd + "rd=rd1,wd=wd1,iorate=max\n",
			[]string{"t.vdb:2: threads: rd=rd1: sd=sd1: threads=40000 is deeper than an io_uring takes", "at most 32767"}},
		{"rd threads= spelled threads", EnginePsync, "sd=sd1,lun=/dev/x\n" + wd + "rd=rd1,wd=wd1,iorate=max,\n  threads=100000\n",
			[]string{"t.vdb:4: threads: rd=rd1: run rd1_threads=100000 would start 100000 I/O threads"}},
		{"rd forthreads= spelled forthreads", EnginePsync, "sd=sd1,lun=/dev/x\n" + wd + "rd=rd1,wd=wd1,iorate=max,forthreads=(1,100000)\n",
			[]string{"t.vdb:3: forthreads: rd=rd1: run rd1_threads=100000"}},
		{"rd forthreads= abbreviated", EnginePsync, "sd=sd1,lun=/dev/x\n" + wd + "rd=rd1,wd=wd1,iorate=max,forth=(1,100000)\n",
			[]string{"t.vdb:3: forthreads: rd=rd1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := engineBoundsProblems(c.src, smallHost, c.engine)
			if c.want == nil && got != "" {
				t.Errorf("refused:\n%s", got)
			}
			if c.want != nil && got == "" {
				t.Errorf("accepted; want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
		})
	}
}

// Reading and checking the largest counts allocates nothing per unit of
// them: threads=1048576 on 100 sds and 1e12 I/Os per second cost what
// threads=1 and 1 I/O per second cost.
func TestBoundsAllocateNothingPerCount(t *testing.T) {
	file := func(threads, rate string) string {
		var b strings.Builder
		b.WriteString("sd=default,threads=" + threads + "\n")
		for i := range 100 {
			b.WriteString("sd=sd" + itoa(i) + ",lun=/dev/x" + itoa(i) + "\n")
		}
		b.WriteString("wd=wd1,sd=*\nrd=rd1,wd=wd1,iorate=(" + rate + ")\n")
		return b.String()
	}
	alloc := func(src string) (uint64, string) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got := boundsProblems(src, ReadHostLimits())
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, got
	}
	small, got := alloc(file("1", "1"))
	if got != "" {
		t.Fatalf("small counts refused: %s", got)
	}
	huge, got := alloc(file("1048576", "1e12"))
	if !strings.Contains(got, "I/O threads") || !strings.Contains(got, "I/Os per second") {
		t.Fatalf("not refused:\n%s", got)
	}
	if huge > small+256<<10 {
		t.Errorf("threads=1048576 allocated %d bytes, threads=1 %d", huge, small)
	}
}

func itoa(i int) string { return parmfile.FormatNum(float64(i)) }

// The host's limits are read, and a 128-thread 4 KiB profile on one target
// fits any machine that runs the tests.
func TestReadHostLimits(t *testing.T) {
	l := ReadHostLimits()
	if l.CPUs < 1 || l.Memory <= 0 || l.OSThreads <= 0 || l.Files <= 0 {
		t.Fatalf("limits %+v", l)
	}
	if n, why := l.ThreadBound(EnginePsync, 4096, 2); n < 128 {
		t.Errorf("this host bounds threads at %d (%s)", n, why)
	}
	t.Logf("%+v", l)
}

// CheckBounds refuses runs whose times add up to more than time.Duration
// holds: 1,001 points of 2,000,000,000 s each.
func TestBoundsHugeTimes(t *testing.T) {
	if got := boundsProblems("sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=curve,curve=(1-1000,1),elapsed=999999998,warmup=999999998,interval=499999999\n", smallHost); !strings.Contains(got, "at most 366 days") {
		t.Errorf("CheckBounds: %s", got)
	}
}
