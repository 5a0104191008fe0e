package review

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"vmbench/oltp"
	"vmbench/report"
)

// The vSphere counters and entity kind the platform summary reads, as
// the campaign records them (vsphere's Counter* and KindHost: the
// campaign engine's tests pin these to them).
const (
	counterCPUUsage              = "cpu.usage.average"
	counterCPUReady              = "cpu.ready.summation"
	counterMemUsage              = "mem.usage.average"
	counterMemBalloon            = "mem.vmmemctl.average"
	counterDatastoreReadLatency  = "datastore.totalReadLatency.average"
	counterDatastoreWriteLatency = "datastore.totalWriteLatency.average"
	kindHost                     = "host"
)

// summary is the mean and the peak of one series' values.
type summary struct{ Mean, Max float64 }

// summarize is the mean and the peak of values (zeros for none), as
// vSphere's series summary gives them.
func summarize(values []float64) summary {
	if len(values) == 0 {
		return summary{}
	}
	s := summary{Max: values[0]}
	for _, v := range values {
		s.Mean += v
		s.Max = max(s.Max, v)
	}
	s.Mean /= float64(len(values))
	return s
}

// PlatformLines summarises a merged Result's platform counters for the
// review (Review.Platform), one fact per line: each host's facts
// (Result.Hosts), its CPU and memory usage and ballooned memory (mean and
// peak), the worst VM CPU ready, and per datastore its read and write
// latency beside the workload's own average. The counters are vSphere's
// as the campaign records them (oltp.CounterSeries, in the units it
// converted them to: %, KB, ms); none gives no line.
func PlatformLines(r *oltp.Result) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(r.Hosts)) {
		out = append(out, hostLine(name, r.Hosts[name]))
	}
	worstReady, readyVM := -1.0, ""
	for _, s := range r.PlatformCounters {
		sum := summarize(s.Values)
		switch s.Counter {
		case counterCPUUsage:
			out = append(out, fmt.Sprintf("host %s CPU usage: mean %.1f%%, peak %.1f%% (%d sample(s) of %s)",
				s.EntityName, sum.Mean, sum.Max, len(s.Values), s.Interval))
		case counterMemUsage:
			if s.EntityKind == kindHost {
				out = append(out, fmt.Sprintf("host %s memory usage: mean %.1f%%, peak %.1f%%", s.EntityName, sum.Mean, sum.Max))
			}
		case counterMemBalloon:
			if s.EntityKind == kindHost {
				out = append(out, fmt.Sprintf("host %s ballooned memory: mean %.0f MB, peak %.0f MB", s.EntityName, sum.Mean/1024, sum.Max/1024))
			}
		case counterCPUReady:
			if sum.Max > worstReady {
				worstReady, readyVM = sum.Max, s.EntityName
			}
		case counterDatastoreReadLatency, counterDatastoreWriteLatency:
			what := strings.TrimPrefix(strings.TrimSuffix(s.Counter, ".average"), "datastore.total")
			out = append(out, fmt.Sprintf("datastore %s %s on host %s: mean %.2f ms, peak %.2f ms (the workload's own average: %.2f ms)",
				s.InstanceName, strings.ToLower(what), s.EntityName, sum.Mean, sum.Max, workloadAvgMs(r)))
		}
	}
	if readyVM != "" {
		out = append(out, fmt.Sprintf("worst CPU ready: %.2f%% per vCPU (%s)", worstReady, readyVM))
	}
	return out
}

// hostLine describes a host from its facts (Result.Hosts: vSphere's host
// facts as the campaign records them).
func hostLine(name string, f map[string]string) string {
	return fmt.Sprintf("host %s: %s %s, %s sockets x %s cores (%s threads) %s at %s MHz, %s GiB, %s",
		name, f["vendor"], f["model"], f["sockets"], coresPerSocket(f), f["threads"], f["cpu_model"], f["cpu_mhz"], f["memory_gib"], f["product"])
}

// coresPerSocket is cores / sockets from host facts, or "?".
func coresPerSocket(f map[string]string) string {
	c, err1 := strconv.Atoi(f["cores"])
	s, err2 := strconv.Atoi(f["sockets"])
	if err1 != nil || err2 != nil || s == 0 {
		return "?"
	}
	return strconv.Itoa(c / s)
}

// workloadAvgMs is the average latency of the Result's events (the
// review's avg column), in ms: what the workload saw, beside what the
// datastore saw; 0 when it cannot be read.
func workloadAvgMs(r *oltp.Result) float64 {
	h, err := allOps(r)
	if err != nil {
		return 0
	}
	return report.Millis(h.Mean())
}
