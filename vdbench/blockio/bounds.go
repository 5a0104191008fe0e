package blockio

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"vmbench/report"
	"vmbench/vdbench/parmfile"
)

// HostLimits are what this machine can do, as CheckBounds reads them.
type HostLimits struct {
	// CPUs is runtime.NumCPU().
	CPUs int
	// Memory is the memory available to this process in bytes:
	// MemAvailable of /proc/meminfo, or less when a cgroup limit
	// (memory.max less memory.current) leaves less.
	Memory int64
	// OSThreads is how many threads the kernel lets this process start:
	// the least of kernel.threads-max, kernel.pid_max and RLIMIT_NPROC.
	OSThreads int
	// Files is how many files this process may hold open (RLIMIT_NOFILE;
	// Go raises the soft limit to the hard one at start).
	Files int
	// Source says where the figures come from, for messages.
	Source string
}

// Costs CheckBounds counts against HostLimits. They are estimates, on the
// generous side, of what the engine holds.
const (
	// threadMemory is what one I/O thread holds besides its buffer: its
	// latency histograms (two buffers of read and write, service time and
	// from the intended start, about 300 KiB each at 3 significant digits
	// up to 24 h) and its goroutine and OS-thread stacks. (Measured: a run
	// of 64 threads of 4 KiB reads peaks at 137 MB resident, some 1.8 MB a
	// thread; the Go heap may grow to twice what is live.)
	threadMemory = 3 << 20
	// intervalMemory is what one report interval of one sd keeps in
	// memory until the end of its point: compressed histograms of read and
	// write, service time and from the intended start.
	intervalMemory = 16 << 10
	// maxIOPSPerCPU bounds iorate=: each I/O is one blocking pread or
	// pwrite, which costs a CPU at least about half a microsecond.
	maxIOPSPerCPU = 2_000_000
	// reservedFiles are the descriptors left for everything but the luns.
	reservedFiles = 64
	// MaxTotalTime bounds the time of all the runs of a parameter file
	// together: a longer campaign is a typo in elapsed= or warmup= (and
	// durations must stay far from time.Duration's 292 years).
	MaxTotalTime = 366 * 24 * time.Hour
)

// ReadHostLimits reads this machine's limits (see HostLimits). A figure
// it cannot read stays at a default that never refuses what a small
// server can run: 1 GiB of memory, 10,000 threads, 1,024 files.
func ReadHostLimits() HostLimits {
	l := HostLimits{CPUs: runtime.NumCPU(), Memory: 1 << 30, OSThreads: 10000, Files: 1024}
	var src []string
	if kb := meminfoKB("MemAvailable"); kb > 0 {
		l.Memory = kb << 10
		src = append(src, "/proc/meminfo MemAvailable")
	}
	if maxB, ok := readInt("/sys/fs/cgroup/memory.max"); ok {
		cur, _ := readInt("/sys/fs/cgroup/memory.current")
		if free := maxB - cur; free >= 0 && free < l.Memory {
			l.Memory = free
			src = append(src, "cgroup memory.max")
		}
	}
	threads := int64(math.MaxInt32)
	for _, f := range []string{"/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max"} {
		if v, ok := readInt(f); ok && v > 0 {
			threads = min(threads, v)
		}
	}
	if n, ok := rlimit(rlimitNPROC); ok && n > 0 {
		threads = min(threads, n)
	}
	if threads < math.MaxInt32 {
		l.OSThreads = int(threads)
		src = append(src, "kernel.threads-max, kernel.pid_max, RLIMIT_NPROC")
	}
	if n, ok := rlimit(rlimitNOFILE); ok && n > 0 {
		l.Files = int(min(n, math.MaxInt32))
		src = append(src, "RLIMIT_NOFILE")
	}
	l.Source = strings.Join(src, ", ")
	return l
}

func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

func meminfoKB(key string) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

// ThreadBound is the most I/O threads a run may start on this host with
// the I/O engine engine (EnginePsync, EngineURing; "" is psync), with
// transfers of up to xfer bytes: with psync half its OS threads (each I/O
// thread is one OS thread blocked in pread or pwrite; the rest of the
// system needs some too), with io_uring no OS-thread bound (each thread
// is a goroutine parked on its ring slot while its I/O is in flight), and
// with either as many as half its memory holds at threadMemory plus
// the page-rounded I/O buffers each: buffers is 1 for a run that only
// reads or only writes, 2 for one that does both (a thread's reads and
// writes have buffers of their own). why says which limit it is.
func (l HostLimits) ThreadBound(engine string, xfer int64, buffers int) (bound int, why string) {
	byThreads := l.OSThreads / 2
	if engine == EngineURing {
		byThreads = math.MaxInt32
	}
	buffers = min(max(buffers, 1), 2)
	per := float64(threadMemory) + float64(buffers)*math.Ceil(float64(max(xfer, 1))/4096)*4096
	byMemory := int(min(float64(l.Memory)/2/per, math.MaxInt32))
	if byMemory < byThreads || engine == EngineURing {
		what := "a " + report.BinaryBytes(max(xfer, 1)) + " I/O buffer"
		if buffers == 2 {
			what = "a read and a write buffer of " + report.BinaryBytes(max(xfer, 1)) + " each"
		}
		return max(byMemory, 0), fmt.Sprintf("each thread holds about %s (its latency histograms and stacks, and %s), and half of the %s available is %s",
			report.BinaryBytes(int64(per)), what, report.BinaryBytes(l.Memory), report.BinaryBytes(l.Memory/2))
	}
	return byThreads, fmt.Sprintf("each thread is one OS thread blocked in its I/O, and this host allows %d threads (half is left to the rest of the system)", l.OSThreads)
}

// boundErrors collects one error per rd and parameter.
type boundErrors struct {
	file string
	seen map[string]bool
	list []error
}

func (b *boundErrors) add(rdName string, line int, kw, format string, args ...any) {
	key := rdName + "\x00" + kw
	if b.seen[key] {
		return
	}
	b.seen[key] = true
	if b.file == "" {
		line = 0
	}
	b.list = append(b.list, &parmfile.ParseError{File: b.file, Line: line, Keyword: kw, Msg: "rd=" + rdName + ": " + fmt.Sprintf(format, args...)})
}

// CheckBounds refuses runs that ask for more than the host lim can do
// with the I/O engine engine (EnginePsync, EngineURing; "" is psync),
// before anything is opened or allocated: the I/O threads of a run
// (threads= or forthreads=, summed over its sds; see ThreadBound), its
// sds (open files), iorate= (maxIOPSPerCPU per CPU), the report intervals
// a point keeps in memory ((warmup+elapsed)/interval per sd), and the time
// of all runs together (MaxTotalTime). It costs nothing per unit of a
// count. The errors are ParseErrors naming the parameter, file and the
// line of the keyword; with file "" they name neither (a profile or a
// suite, whose rendered lines mean nothing to its user).
func CheckBounds(file string, runs []parmfile.Run, lim HostLimits, engine string) error {
	b := &boundErrors{file: file, seen: map[string]bool{}}
	src := ""
	if lim.Source != "" {
		src = " (" + lim.Source + ")"
	}
	var total float64 // seconds
	for _, r := range runs {
		rd := r.RD
		luns := map[string]bool{}
		for _, sd := range r.SDs {
			luns[sd.Lun] = true
		}
		b.checkThreads(r, lim, engine, src)
		if maxLuns := lim.Files - reservedFiles; len(luns) > maxLuns {
			b.add(rd.Name, rd.Line, "sd", "run %s uses %d luns; this process may hold %d files open, %d of them kept for everything else, so at most %d luns%s",
				r.Name, len(luns), lim.Files, reservedFiles, max(maxLuns, 0), src)
		}
		maxRate := float64(lim.CPUs) * maxIOPSPerCPU
		for _, rate := range rd.IORate.Rates {
			if rate > maxRate {
				b.add(rd.Name, cmp.Or(rd.KeyLine("iorate"), rd.Line), "iorate", "%s I/Os per second is more than this host can issue: at most %s (%d per second on each of its %d CPUs: each I/O is one pread or pwrite)",
					parmfile.FormatNum(rate), parmfile.FormatNum(maxRate), maxIOPSPerCPU, lim.CPUs)
			}
		}
		points := 1.0
		switch {
		case rd.IORate.Curve:
			points += float64(len(rd.Curve))
		case len(rd.IORate.Rates) > 0:
			points = float64(len(rd.IORate.Rates))
		}
		each := (rd.Warmup + rd.Elapsed).Seconds()
		total += points * each
		if rd.Interval > 0 {
			intervals := math.Ceil(each / rd.Interval.Seconds())
			memory := intervals * float64(len(r.SDs)) * intervalMemory
			if memory > float64(lim.Memory)/4 {
				b.add(rd.Name, cmp.Or(rd.KeyLine("interval"), rd.Line), "interval", "interval=%s over warmup=%s and elapsed=%s gives %s intervals per point on each of %d sd(s), which hold about %s in memory until the point ends; this host has %s available, and a quarter of it may go to intervals%s (valid: a longer interval=, or a shorter elapsed=)",
					parmfile.FormatSeconds(rd.Interval), parmfile.FormatSeconds(rd.Warmup), parmfile.FormatSeconds(rd.Elapsed), parmfile.FormatNum(intervals), len(r.SDs), report.BinaryBytes(int64(min(memory, math.MaxInt64/2))), report.BinaryBytes(lim.Memory), src)
			}
		}
	}
	if total > MaxTotalTime.Seconds() && len(runs) > 0 {
		rd := runs[0].RD
		b.add(rd.Name, cmp.Or(rd.KeyLine("elapsed"), rd.Line), "elapsed", "the %d run(s) would take %s in all; at most %s (a longer campaign is taken for a typo in elapsed= or warmup=)",
			len(runs), longDuration(total), longDuration(MaxTotalTime.Seconds()))
	}
	return errors.Join(b.list...)
}

// checkThreads refuses the threads of run r when the host lim cannot
// hold them with engine (see ThreadBound), and with io_uring an sd whose
// threads= is deeper than a ring takes. src names where lim comes from.
func (b *boundErrors) checkThreads(r parmfile.Run, lim HostLimits, engine, src string) {
	rd := r.RD
	threads, largest := 0.0, int64(0)
	for _, sd := range r.SDs {
		threads += float64(sd.Threads)
		if engine == EngineURing && sd.Threads > maxURingThreads {
			b.add(rd.Name, cmp.Or(sd.KeyLine("threads"), sd.Line), "threads", "sd=%s: threads=%d is deeper than an io_uring takes: with --ioengine %s threads= is the queue depth of the sd's ring, at most %d",
				sd.Name, sd.Threads, EngineURing, maxURingThreads)
		}
	}
	reads, writes := false, false
	for _, wd := range r.WDs {
		largest = max(largest, wd.Xfer.Largest())
		reads, writes = reads || wd.RdPct > 0, writes || wd.RdPct < 100
	}
	buffers := 1
	if reads && writes {
		buffers = 2
	}
	bound, why := lim.ThreadBound(engine, largest, buffers)
	if threads <= float64(bound) {
		return
	}
	kw, line := "threads", 0
	if len(r.SDs) > 0 {
		line = cmp.Or(r.SDs[0].KeyLine("threads"), r.SDs[0].Line)
	}
	if l := rd.KeyLine("forthreads"); l > 0 {
		kw, line = rd.SpelledAs("forthreads"), l
	}
	b.add(rd.Name, line, kw, "run %s would start %s I/O threads over its %d sd(s); this host runs at most %d: %s%s",
		r.Name, parmfile.FormatNum(threads), len(r.SDs), bound, why, src)
}

// longDuration writes seconds as days, hours or seconds.
func longDuration(sec float64) string {
	switch {
	case sec >= 2*86400:
		return parmfile.FormatNum(math.Round(sec/86400)) + " days"
	case sec >= 2*3600:
		return parmfile.FormatNum(math.Round(sec/3600)) + " hours"
	}
	return parmfile.FormatNum(math.Round(sec)) + " s"
}
