package review

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"vmbench/report"
)

// Reference is the published figures of one server in the seed reviews
// (docs/methodology.md's tables), shipped as data so that a report can show
// where a new server stands (`vmbench report --reference R750`).
type Reference struct {
	// Server is the server as the review names it, with its CPUs or
	// drives ("PowerEdge R750 (2x Xeon 8380)").
	Server string
	// Source is where the figures were published.
	Source string
	// Rows are the published rows, one per test and VM count or drive set.
	Rows []ReferenceRow
}

// ReferenceRow is one published row: the test it is a row of, as a
// report's test key (refKey), the VM count (0 for the block suite), what
// it ran on, and its figures, named as the report names its own
// (oltpFigures, the tool's ReviewFigures).
type ReferenceRow struct {
	Test    string
	VMs     int
	Config  string
	Figures []report.Figure
	// Protocol are the workload flags the published run used, as the
	// tool names them (sysbench's threads, tables, table-size; tpcc's
	// warehouses), or for the block suite its drives, targets and threads
	// (blockProtocol): a run with other values is not compared with it.
	Protocol map[string]string
}

// Test keys of the published rows: the tool and workload of an OLTP
// campaign, or "block" and the profile of the block suite.
const (
	refSysbench = "sysbench oltp_read_write"
	refSQL      = "tpcc tpcc"
	refSource   = "StorageReview server reviews (application workload analysis and VDBench suite), as distilled in vmbench's docs/methodology.md"
)

// Figure names shared by the report's figures and the published rows.
const (
	figTPS      = "aggregate TPS"
	figTPSMin   = "per-VM TPS min"
	figTPSMax   = "per-VM TPS max"
	figAvgPub   = "avg latency, published"
	figAvgExact = "avg latency, exact"
	figP99Pub   = "p99 latency, published"
	figP99Exact = "p99 latency, exact"
)

func ms(name string, v float64) report.Figure {
	return report.Figure{Name: name, Unit: "ms", Value: v, Digits: 2}
}

func rate(name string, v float64) report.Figure {
	return report.Figure{Name: name, Value: v, Digits: 1}
}

// sysbenchRow is a published sysbench row: aggregate TPS (0 when not
// published), per-VM range (0, 0 when not published), average and p99
// latency as the reviews aggregate them.
func sysbenchRow(vms int, tps, lo, hi, avg, p99 float64) ReferenceRow {
	r := ReferenceRow{Test: refSysbench, VMs: vms, Config: fmt.Sprintf("MySQL (Percona 5.5), %d VMs x 32 threads, 100 tables x 10M rows", vms),
		Protocol: map[string]string{"threads": "32", "tables": "100", "table-size": "10000000"}}
	if tps > 0 {
		r.Figures = append(r.Figures, rate(figTPS, tps))
	}
	if lo > 0 {
		r.Figures = append(r.Figures, rate(figTPSMin, lo), rate(figTPSMax, hi))
	}
	return addLatency(r, avg, p99)
}

func sqlRow(vms int, tps, lo, hi, avg float64) ReferenceRow {
	r := ReferenceRow{Test: refSQL, VMs: vms, Config: fmt.Sprintf("SQL Server 2014, %d VMs x 1,500 warehouses, 15,000 clients each", vms),
		Protocol: map[string]string{"warehouses": "1500"}}
	if tps > 0 {
		r.Figures = append(r.Figures, rate(figTPS, tps), rate(figTPSMin, lo), rate(figTPSMax, hi))
	}
	return addLatency(r, avg, 0)
}

func addLatency(r ReferenceRow, avg, p99 float64) ReferenceRow {
	r.Figures = append(r.Figures, ms(figAvgPub, avg))
	if p99 > 0 {
		r.Figures = append(r.Figures, ms(figP99Pub, p99))
	}
	return r
}

// Block protocol keys (blockProtocol): what a block test shares with a
// published VDBench row.
const (
	protoDrives  = "drives"
	protoTargets = "targets"
	protoThreads = "threads"
	// profileThreads is the threads of a run without --threads: the
	// profile's own, the reviews' (docs/methodology.md, the block suite).
	profileThreads = "the profile's own per target"
)

// blockProtocol is a block test's protocol (its vdbench flags) as the
// published rows state theirs: how many targets (drives), whether they
// were drives or temporary files (a simulation), and the threads per
// target. The published runs used their drives, JBOD, at the profiles'
// own threads.
func blockProtocol(flags map[string]string) map[string]string {
	p := map[string]string{protoDrives: "0", protoTargets: "drives", protoThreads: profileThreads}
	if t := flags["target"]; t != "" {
		p[protoDrives] = strconv.Itoa(len(strings.Split(t, ",")))
	}
	if flags["temporary-targets"] == "true" {
		p[protoTargets] = "temporary files"
	}
	if n := flags["threads"]; n != "" && n != "0" { // 0: the profile's own
		p[protoThreads] = n + " per target"
	}
	return p
}

// blockRows are a drive set's published peaks of the four corners: IOPS
// and latency (µs) of the 4K profiles, GB/s and latency of the 64K ones.
// drives is the set as published, its count first ("8x P5510").
func blockRows(drives string, rdIOPS, rdUs, wrIOPS, wrUs, seqRdGBps, seqRdUs, seqWrGBps, seqWrUs float64) []ReferenceRow {
	n, _, _ := strings.Cut(drives, "x")
	proto := map[string]string{protoDrives: n, protoTargets: "drives", protoThreads: profileThreads}
	iops := func(profile string, v, us float64) ReferenceRow {
		return ReferenceRow{Test: "block " + profile, Config: drives, Protocol: proto, Figures: []report.Figure{
			{Name: "peak IOPS", Value: v}, {Name: "peak latency", Unit: "µs", Value: us, Digits: 1}}}
	}
	gbps := func(profile string, v, us float64) ReferenceRow {
		return ReferenceRow{Test: "block " + profile, Config: drives, Protocol: proto, Figures: []report.Figure{
			{Name: "peak throughput", Unit: "GB/s", Value: v, Digits: 2}, {Name: "peak latency", Unit: "µs", Value: us, Digits: 1}}}
	}
	return []ReferenceRow{iops("4k-random-read", rdIOPS, rdUs), iops("4k-random-write", wrIOPS, wrUs),
		gbps("64k-sequential-read", seqRdGBps, seqRdUs), gbps("64k-sequential-write", seqWrGBps, seqWrUs)}
}

// References are the published rows, by server (docs/methodology.md's
// tables are generated from them). A figure a review did not publish is
// absent.
var References = []Reference{
	{Server: "PowerEdge R7415 (1x EPYC 7551P)", Source: refSource, Rows: append([]ReferenceRow{
		sysbenchRow(4, 7567.3, 1817.6, 1967.1, 16.9, 45.4),
		sqlRow(4, 12618.1, 3152.9, 3155.8, 11.75)},
		append(blockRows("4x NVMe", 2358609, 212, 1252375, 179, 12.1, 329, 5.51, 355),
			blockRows("4x SAS", 196299, 2110, 179249, 816, 1.74, 2300, 1.95, 1000)...)...)},
	{Server: "PowerEdge R750 (2x Xeon 8380)", Source: refSource, Rows: append([]ReferenceRow{
		sysbenchRow(8, 29174, 3631, 3665, 8.77, 15.2),
		sysbenchRow(16, 26838, 1662, 1690, 19.1, 35.4),
		sqlRow(8, 0, 0, 0, 1)},
		blockRows("8x P5510", 5.69e6, 608, 3.44e6, 986, 40.3, 396, 15.8, 939)...)},
	{Server: "Supermicro 1124US-TNRP (2x EPYC 7713)", Source: refSource, Rows: append([]ReferenceRow{
		sysbenchRow(8, 28665, 3474, 3707, 8.93, 14.98),
		sysbenchRow(16, 38960, 2360, 2492, 13.14, 55.22),
		sqlRow(8, 0, 0, 0, 1)},
		blockRows("12x P5510", 3985505, 1050, 2256082, 2400, 59.6, 400, 21.7, 779)...)},
	{Server: "ThinkSystem SR665 (2x EPYC 7742)", Source: refSource, Rows: append([]ReferenceRow{
		sysbenchRow(8, 17238, 0, 0, 14.85, 30.27),
		sysbenchRow(16, 32649, 0, 0, 15.68, 30.12),
		sqlRow(8, 0, 0, 0, 1)},
		blockRows("8x Gen4", 3851738, 170.2, 2898564, 154.4, 32.6, 366.1, 13.3, 442.1)...)},
	{Server: "PowerEdge R6525", Source: refSource,
		Rows: blockRows("4x Gen4", 3505292, 127.4, 1619322, 247.6, 20.7, 381.2, 7.02, 551.7)},
}

// LookupReference returns the reference whose server name contains name
// (case-insensitive: "R750", "sr665"); an error lists the names when none
// or several match.
func LookupReference(name string) (*Reference, error) {
	var found []*Reference
	for i := range References {
		if strings.Contains(strings.ToLower(References[i].Server), strings.ToLower(name)) {
			found = append(found, &References[i])
		}
	}
	if len(found) == 1 && name != "" {
		return found[0], nil
	}
	var names []string
	for _, r := range References {
		names = append(names, r.Server)
	}
	sort.Strings(names)
	what := "no published server"
	if len(found) > 1 {
		what = "several published servers"
	}
	return nil, fmt.Errorf("--reference %q: %s match (give part of one of: %s)", name, what, strings.Join(names, "; "))
}

// rows returns the reference's rows of test key.
func (r *Reference) rows(key string) []ReferenceRow {
	var out []ReferenceRow
	for _, row := range r.Rows {
		if row.Test == key {
			out = append(out, row)
		}
	}
	return out
}
