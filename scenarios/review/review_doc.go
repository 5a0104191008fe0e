package review

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vmbench/internal/textfmt"
	"vmbench/oltp"
	"vmbench/report"
	"vmbench/workload"
)

// htmlForm is the review's rendering in a report.Document (the HTML
// report and its JSON): numbers as in Markdown (grouped), without
// Markdown's emphasis.
const htmlForm form = csvForm + 1

// ReportHTMLFile is the HTML report of a results directory (Document):
// self-contained, charts inline.
const ReportHTMLFile = "report.html"

// Document builds the report of the directory as a report.Document: the
// same review tables report.md shows (the same cells, from the same
// computation), the charts (TPS over time and latency percentiles per VM
// and aggregate, or each block profile's latency-vs-IOPS curve), the
// warnings a reader must see first and, for a VM campaign whose run.json
// records it, the harness overhead in a section of its own, as report.md
// has it.
func (r *Report) Document() (*report.Document, error) { return r.document(htmlForm) }

// document is Document with the review table in form f (htmlForm, or
// csvForm for plain numbers).
func (r *Report) document(f form) (*report.Document, error) {
	var s *report.Section
	var err error
	if r.Review != nil {
		s, err = r.oltpSection(f)
	} else {
		s, err = r.suite.section()
	}
	if err != nil {
		return nil, err
	}
	d := &report.Document{Title: s.Heading, Subtitle: "vmbench report of " + strings.TrimSuffix(filepath.Base(r.Dir), ".incomplete"), // its id: the report is written before the directory is renamed
		Warnings: s.Warnings, Sections: []report.Section{*s}}
	d.Sections[0].Warnings = nil // shown once, at the top
	if o := r.Info.Overhead; o != nil && r.Review != nil {
		d.Sections = append(d.Sections, overheadView{o}.section(r.Review.Campaign))
	}
	return d, nil
}

// sectionID makes an HTML id of a name: lower-case letters, digits and
// '-'.
func sectionID(name string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return "t-" + b.String()
}

// oltpSection is a VM campaign's section: warnings, facts, the review
// table, the charts and, for a tool with its own report (tpcc), that
// report of the merged Result.
func (r *Report) oltpSection(f form) (*report.Section, error) {
	rv := r.Review
	s := &report.Section{ID: sectionID(rv.Campaign),
		Heading:  fmt.Sprintf("%s: %s, %d VMs", rv.Campaign, rv.Workload, len(rv.VMs)),
		Warnings: rv.warnings(), Figures: rv.figureMap()}
	s.Facts = append(s.Facts, report.Fact{Name: "Measured", Value: fmt.Sprintf("%s per VM; %s", rv.Elapsed.Round(1e6), rv.Measured)},
		report.Fact{Name: "vmbench", Value: r.Info.VMBench})
	for _, f := range []report.Fact{{Name: "VMs", Value: rv.Layout}, {Name: "Data", Value: rv.Data}, {Name: "Checks", Value: rv.Checks}, {Name: "Client", Value: rv.Client}} {
		if f.Value != "" {
			s.Facts = append(s.Facts, f)
		}
	}
	s.Facts = append(s.Facts, hostFacts(rv.merged)...)
	if p := withoutHosts(rv.Platform, rv.merged); len(p) > 0 {
		s.Text = append(s.Text, textfmt.Capitalize(platformHeading)+": "+strings.Join(p, "; ")+".")
	}
	s.Tables = []report.TableBlock{{Caption: "Review table: per VM and aggregate (published and exact)", Table: rv.table(f)}}
	if hasIntervals(rv.perVM) {
		tps, err := tpsChart(rv)
		if err != nil {
			return nil, err
		}
		s.Charts = append(s.Charts, tps)
	} else {
		s.Text = append(s.Text, "No TPS-over-time chart: the Results hold no report intervals.")
	}
	pct, err := percentileChart(rv)
	if err != nil {
		return nil, err
	}
	s.Charts = append(s.Charts, pct)
	if tf := rv.toolFigures(); tf != nil {
		s.Tables = append(s.Tables, *tf)
	}
	tables, pre, err := r.toolReport()
	if err != nil {
		return nil, err
	}
	s.Tables, s.Pre = append(s.Tables, tables...), pre
	return s, nil
}

// warnings are what a reader of the review must see first: a simulated
// or incomplete run, client-bound rows, VMs whose run did not complete.
func (rv *Review) warnings() []string {
	var w []string
	if rv.Simulated != "" {
		w = append(w, rv.simulated()+".")
	}
	if rv.Incomplete != "" {
		w = append(w, textfmt.Capitalize(rv.Incomplete)+".")
	}
	if rv.anyClientBound() {
		n := 0
		for _, v := range rv.VMs {
			if v.ClientBound {
				n++
			}
		}
		var who []string
		if n > 0 {
			who = append(who, fmt.Sprintf("the client of %d of %d VMs", n, len(rv.VMs)))
		}
		if rv.ClientBound {
			who = append(who, "the clients together (the aggregate rows)")
		}
		w = append(w, fmt.Sprintf("Client-bound: %s used more than %.0f%% of the CPU available (rows marked %s); those figures may be the client's limit, not the server's.",
			strings.Join(who, " and "), 100*oltp.ClientBoundShare, clientBoundMark))
	}
	if late := startSpread(rv.perVM); len(late) > 0 {
		w = append(w, fmt.Sprintf("Late start: %s after the earliest VM began (a driver not ready by the common start): "+
			"those VMs' windows are shifted, so part of each ran with fewer VMs loading the server.", strings.Join(late, ", ")))
	}
	for _, r := range rv.perVM {
		if st := r.State(); st != oltp.StatusComplete {
			w = append(w, fmt.Sprintf("%s's run was %s: its figures cover the time measured until then.", r.Labels["vm"], st))
		}
	}
	return w
}

// figureMap is the review's aggregate figures by name, for JSON.
func (rv *Review) figureMap() map[string]float64 {
	m := map[string]float64{"vms": float64(len(rv.VMs)), "tps_sum": rv.TPSSum, "tps_min": rv.TPSMin, "tps_max": rv.TPSMax,
		"avg_published_ms": rv.AvgPublishedMs, "avg_exact_ms": rv.AvgExactMs, "p95_published_ms": rv.P95PublishedMs,
		"p95_exact_ms": rv.P95ExactMs, "p99_published_ms": rv.P99PublishedMs, "p99_exact_ms": rv.P99ExactMs}
	for i, c := range rv.Columns {
		if c.Value != nil {
			m[publishedLabel(c.Header)] = rv.Figures[i]
			m[mergedLabel(c.Header)] = rv.MergedFigures[i]
		}
	}
	return m
}

// hostFacts are the facts the merged Result records about the physical
// hosts, one per host, as a sentence ("Host esx01": "Dell Inc.
// PowerEdge R750, 2 sockets x 28 cores (112 threads) Intel(R) Xeon(R) Gold
// 6330 at 2000 MHz, 1024 GiB, VMware ESXi 8.0.2 build-22380479").
func hostFacts(merged *oltp.Result) []report.Fact {
	if merged == nil {
		return nil
	}
	var out []report.Fact
	for _, h := range slices.Sorted(maps.Keys(merged.Hosts)) {
		out = append(out, report.Fact{Name: "Host " + h, Value: strings.TrimPrefix(hostLine(h, merged.Hosts[h]), "host "+h+": ")})
	}
	return out
}

// withoutHosts is the platform summary without the lines of the hosts'
// facts (hostLine), which hostFacts gives as the section's facts; none
// when no counter is left but the note that they are simulated.
func withoutHosts(platform []string, merged *oltp.Result) []string {
	if merged == nil {
		return platform
	}
	var out []string
	for _, l := range platform {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "host "), ": ")
		if h, ok := merged.Hosts[name]; !ok || l != hostLine(name, h) {
			out = append(out, l)
		}
	}
	if len(out) == 1 && out[0] == simulatedCounters {
		return nil
	}
	return out
}

// toolReport is the tool's own report of the merged Result (tpcc's
// per-transaction table, tpmC, NOPM and audit), when it adds to the
// review (workload.TableReporter): its table as a table, the rest as
// preformatted text; none for a tool without.
func (r *Report) toolReport() ([]report.TableBlock, []report.PreBlock, error) {
	rep, ok := r.tool.cfg.(workload.TableReporter)
	if !ok {
		return nil, nil, nil // sysbench's report repeats the review table
	}
	tool, out := r.tool.name, &workload.Output{Result: r.Review.merged}
	tableWords, textWords := rep.ReportContents()
	var b bytes.Buffer
	var tables []report.TableBlock
	t, err := rep.ReportTable(out)
	if err == nil && t != nil {
		tables = []report.TableBlock{{Caption: tool + "'s report of all VMs merged: " + tableWords, Table: t}}
	}
	if err == nil {
		err = rep.WriteReportSummary(&b, out)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the %s report of merged results: %w", r.Dir, tool, err)
	}
	return tables, []report.PreBlock{{Caption: tool + "'s report of all VMs merged: " + textWords, Text: b.String()}}, nil
}

// toolFigures is a table of the tool's review figures side by side as
// the review table's two aggregate rows give them: summed over the VMs
// (the published aggregation) and of the merged window, with the
// difference; nil when the tool has none.
func (rv *Review) toolFigures() *report.TableBlock {
	t := &report.Table{Columns: []report.Column{{Header: "figure"}, {Header: "sum of VMs, as published", Align: report.Right, Numeric: true},
		{Header: "merged window", Align: report.Right, Numeric: true}, {Header: "merged vs sum (%)", Align: report.Right, Numeric: true}}}
	for i, c := range rv.Columns {
		if c.Value == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{c.Header, report.Grouped(rv.Figures[i], c.Digits), report.Grouped(rv.MergedFigures[i], c.Digits),
			change(rv.Figures[i], rv.MergedFigures[i])})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{"The published row of the review table sums each VM's own figure; the merged window is all VMs' transactions over their merged measured window, " +
		"the figure of the tool's report below. Windows that do not line up exactly make them differ a little."}
	return &report.TableBlock{Caption: "Headline figures: sum of VMs (as published) and merged window", Table: t}
}

// hasIntervals reports whether a Result of rs has a report interval,
// measured or in its precondition.
func hasIntervals(rs []*oltp.Result) bool {
	for _, r := range rs {
		if len(r.Intervals) > 0 || (r.Precondition != nil && len(r.Precondition.Intervals) > 0) {
			return true
		}
	}
	return false
}

// tpsChart draws TPS over time across the precondition and the
// measurement, from the run's start: the sum over the VMs in a panel
// above the VMs' own, each panel on its own y axis (8 VMs' lines, an
// eighth of the sum each, would lie flat at the bottom of the sum's), the
// precondition shaded and a mark where the measurement starts.
func tpsChart(rv *Review) (report.Chart, error) {
	var vms []report.Series
	for _, r := range rv.perVM {
		steps, _ := tpsSteps(r)
		vms = append(vms, report.Series{Name: r.Labels["vm"], Points: stepPoints(steps)})
	}
	sum, mark := tpsSeries(rv)
	panels := []report.Panel{{YLabel: "TPS", Series: vms}}
	what := "TPS of the VM"
	if len(rv.perVM) > 1 {
		panels = []report.Panel{{YLabel: "TPS, all VMs", Series: []report.Series{sum}}, {YLabel: "TPS per VM", Series: vms}}
		what = fmt.Sprintf("TPS summed over the VMs (above) and of each of the %d VMs (below, on an axis of its own)", len(rv.perVM))
	}
	c := report.Chart{Title: "TPS over time",
		Alt: fmt.Sprintf("%s per report interval, each interval level over its length, from the run's start, %s; %s", what, phaseWords(mark), partialWords)}
	return c, drawTPS(&c, panels, mark)
}

// partialWords says how the TPS charts treat a phase's last interval.
const partialWords = "a phase's last interval shorter than the report interval (the run ending between two reports) is left out"

// phaseWords says where the measurement starts on a TPS chart.
func phaseWords(mark float64) string {
	if mark > 0 {
		return fmt.Sprintf("the precondition shaded, the measurement from %s s", trimSeconds(mark))
	}
	return "no precondition"
}

// trimSeconds writes s seconds with at most one decimal.
func trimSeconds(s float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", s), ".0") }

// drawTPS draws panels of TPS over time into c on an axis from 0 (the
// run's start), with the precondition shaded and a mark where the
// measurement starts when mark is positive.
func drawTPS(c *report.Chart, panels []report.Panel, mark float64) error {
	var b bytes.Buffer
	opts := report.LineOptions{XLabel: "time since the run started (s)", FromZero: true}
	if mark > 0 {
		opts.Spans = []report.Span{{From: 0, To: mark, Label: "precondition"}}
		opts.Marks = []report.Tick{{Value: mark, Label: "measure"}}
	}
	if err := report.StackedLineChart(&b, c.Title, panels, opts); err != nil {
		return fmt.Errorf("TPS chart: %w", err)
	}
	c.SVG = b.Bytes()
	return nil
}

// tpsSeries is the TPS summed over rv's VMs per report interval (the
// intervals index by index, as oltp.Merge merges them: the VMs started
// together), drawn as stepPoints, and where the measurement starts.
func tpsSeries(rv *Review) (sum report.Series, mark float64) {
	var total []tpsStep
	for i, r := range rv.perVM {
		steps, start := tpsSteps(r)
		mark = max(mark, start)
		if i == 0 {
			total = slices.Clone(steps)
			continue
		}
		total = total[:min(len(total), len(steps))]
		for j := range total {
			total[j].tps += steps[j].tps
		}
	}
	return report.Series{Name: "all VMs (sum)", Bold: true, Points: stepPoints(total)}, mark
}

// tpsStep is the TPS of one report interval, which ran from from to to,
// in seconds from the run's start.
type tpsStep struct{ from, to, tps float64 }

// tpsSteps are r's report intervals, the precondition's first, from the
// run's start (the precondition's), and where the measurement starts (0
// without a precondition). Each phase's full intervals only
// (chartIntervals).
func tpsSteps(r *oltp.Result) (steps []tpsStep, measureStart float64) {
	add := func(ivs []oltp.Interval, offset float64) {
		for _, iv := range chartIntervals(ivs) {
			var n int64
			for _, op := range iv.Ops {
				n += op.Latency.Count
			}
			end := offset + iv.At.Seconds()
			steps = append(steps, tpsStep{from: end - iv.Length.Seconds(), to: end, tps: float64(n) / iv.Length.Seconds()})
		}
	}
	if p := r.Precondition; p != nil {
		add(p.Intervals, 0)
		measureStart = p.Elapsed.Seconds()
		if n := len(p.Intervals); n > 0 {
			measureStart = max(measureStart, p.Intervals[n-1].At.Seconds())
		}
	}
	add(r.Intervals, measureStart)
	return steps, measureStart
}

// stepPoints are the points of a TPS line through steps: each interval's
// rate level from its start to its end, as it was measured (a rate over
// the interval, not at its end), so that the line starts where the run
// did and the shaded precondition holds the precondition's rates.
func stepPoints(steps []tpsStep) []report.XY {
	pts := make([]report.XY, 0, 2*len(steps))
	for _, s := range steps {
		pts = append(pts, report.XY{X: s.from, Y: s.tps}, report.XY{X: s.to, Y: s.tps})
	}
	return pts
}

// partialShare is how short of the report interval a phase's last
// interval may fall and still be charted: under 90% of it, it is a
// remainder (the phase ended between two reports).
const partialShare = 0.9

// chartIntervals are the intervals of a phase a TPS chart draws: those of
// positive length, without the last when it is shorter than partialShare
// of the report interval (the longest interval planned or run). Such a
// remainder holds only the run's end (tpcc's terminals stopping,
// transactions cut off), and its rate, though divided by its own length,
// plotted as a drop the server never had: it is left out, not scaled.
func chartIntervals(ivs []oltp.Interval) []oltp.Interval {
	var out []oltp.Interval
	var nominal time.Duration
	for _, iv := range ivs {
		if iv.Length > 0 {
			out = append(out, iv)
			nominal = max(nominal, iv.Length, iv.Planned)
		}
	}
	if n := len(out); n > 1 && float64(out[n-1].Length) < partialShare*float64(nominal) {
		out = out[:n-1]
	}
	return out
}

// chartPercentiles are the percentiles a latency-percentile chart draws,
// as far as a histogram's count supports them.
var chartPercentiles = []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999}

// percentileChart draws the latency at each percentile for each VM and
// for all VMs merged (the exact aggregate), on a "nines" axis.
func percentileChart(rv *Review) (report.Chart, error) {
	c := report.Chart{Title: "Latency by percentile",
		Alt: "Latency in ms at each percentile up to the tail, per VM and for all VMs' merged histograms"}
	var series []report.Series
	nines := 1
	for _, r := range append(slices.Clip(rv.perVM), rv.merged) {
		name := r.Labels["vm"]
		if r == rv.merged {
			name = "all VMs (merged histograms)"
		}
		s, k, err := percentileSeries(name, r)
		if err != nil {
			return c, err
		}
		s.Bold = r == rv.merged
		series, nines = append(series, s), max(nines, k)
	}
	return c, drawPercentiles(&c, series, nines)
}

// drawPercentiles draws latency-percentile series into c on an axis of
// nines nines.
func drawPercentiles(c *report.Chart, series []report.Series, nines int) error {
	var b bytes.Buffer
	opts := report.LineOptions{XLabel: "percentile", YLabel: "latency (ms)", XTicks: report.NinesTicks(nines)}
	if err := report.LineChart(&b, c.Title, series, opts); err != nil {
		return fmt.Errorf("percentile chart: %w", err)
	}
	c.SVG = b.Bytes()
	return nil
}

// percentileSeries is the latency of every op of r at each of
// chartPercentiles its count supports (up to nines nines: a p99.9 needs
// 1,000 events), in ms.
func percentileSeries(name string, r *oltp.Result) (s report.Series, nines int, err error) {
	s.Name = name
	h, err := allOps(r)
	if err != nil {
		return s, 0, err
	}
	nines = max(1, min(5, int(math.Floor(math.Log10(float64(max(h.Count(), 1)))))))
	for _, p := range chartPercentiles {
		if p > 0 && report.Nines(p) > float64(nines)+1e-9 {
			break
		}
		s.Points = append(s.Points, report.XY{X: report.Nines(p), Y: report.Millis(h.Percentile(p))})
	}
	return s, nines, nil
}
