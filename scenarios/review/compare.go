package review

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"vmbench/report"
)

// DocumentOptions change what BuildDocument shows.
type DocumentOptions struct {
	// Reference, when set, adds its published rows beside each test they
	// are rows of (tables and block curves), labelled as published.
	Reference *Reference
	// Plain writes numbers without grouping, for CSV.
	Plain bool
}

// BuildDocument builds the report of inputs: one input's tests each as
// its own section (Report.Document's), or, for several inputs, a
// comparison that lays the same tests side by side with the percentage
// change of each figure from the first input, and the curves of all
// inputs on one chart. Tests that ran another protocol than the first
// input's are left out of a comparison, and the report says which and
// why.
func BuildDocument(inputs []*Input, opts DocumentOptions) (*report.Document, error) {
	f := htmlForm
	if opts.Plain {
		f = csvForm
	}
	if len(inputs) == 1 {
		return singleDocument(inputs[0], opts, f)
	}
	return compareDocument(inputs, opts)
}

// singleDocument is the report of one input: each report's section, with
// the reference's rows added. A review directory's report has a section
// per campaign and all their warnings at the top, each naming its test,
// a warning several tests give once, naming them (foldWarnings).
func singleDocument(in *Input, opts DocumentOptions, f form) (*report.Document, error) {
	d := &report.Document{Title: "Review " + in.Name, Subtitle: "vmbench report of the review directory " + in.Dir}
	var warned []sourcedWarning
	for _, rep := range in.Reports {
		one, err := rep.document(f)
		if err != nil {
			return nil, err
		}
		at := len(d.Sections) // the test's section; its harness overhead's follows
		if len(in.Reports) == 1 {
			d, at = one, 0
		} else {
			for _, w := range one.Warnings {
				warned = append(warned, sourcedWarning{about: rep.name(), text: w})
			}
			d.Sections = append(d.Sections, one.Sections...)
		}
		if opts.Reference == nil {
			continue
		}
		tests, err := rep.tests()
		if err != nil {
			return nil, err
		}
		sec := &d.Sections[at]
		for _, t := range tests {
			addReference(sec, opts.Reference, []string{in.Name}, []*testFigures{&t}, opts.Plain)
			if err := drawReferencePeaks(sec, opts.Reference, t); err != nil {
				return nil, err
			}
		}
	}
	d.Warnings = slices.Concat(in.Warnings, d.Warnings, foldWarnings(warned))
	return d, nil
}

// drawReferencePeaks redraws block test t's curve chart in sec with the
// reference's published peaks as labelled points, when it has any.
func drawReferencePeaks(sec *report.Section, ref *Reference, t testFigures) error {
	peaks := referencePeaks(ref, []*testFigures{&t})
	if len(peaks) == 0 || len(t.curves) == 0 {
		return nil
	}
	for i := range sec.Charts {
		if sec.Charts[i].Title != t.title {
			continue
		}
		c, err := curveChart(t.title, append(slices.Clone(t.curves), peaks...))
		if err != nil || c == nil {
			return err
		}
		c.Alt = sec.Charts[i].Alt + ", with " + ref.Server + "'s published peak(s) as points"
		sec.Charts[i] = *c
	}
	return nil
}

// referenceDiff says how the tests' flags differ from a published run's
// protocol ("threads 4 here, 32 published"), "" when they match it. A
// test's flags are first put as the published rows state theirs, when
// they state them otherwise (testFigures.published: a block test's).
func referenceDiff(protocol map[string]string, tests []*testFigures) string {
	var d []string
	for _, k := range slices.Sorted(maps.Keys(protocol)) {
		for _, t := range tests {
			p := t.protocol
			if t.published != nil {
				p = t.published(p)
			}
			if v := p[k]; v != protocol[k] {
				d = append(d, fmt.Sprintf("%s %s here, %s published", k, cmp.Or(v, "(not found)"), protocol[k]))
				break
			}
		}
	}
	return strings.Join(d, "; ")
}

// entry is one input's test in a comparison.
type entry struct {
	// input labels the entry: the input's name, with its campaign's
	// directory when the input (a review directory) has several
	// campaigns in the group (distinctEntries).
	input string
	// campaign is the base name of the results directory of the test.
	campaign string
	test     testFigures
}

// distinctEntries labels the entries of a group that one input (a review
// directory) holds more than once by the input and their campaign's
// directory, so that columns, figures and warnings name each apart.
func distinctEntries(g []entry) {
	n := map[string]int{}
	for _, e := range g {
		n[e.input]++
	}
	for i := range g {
		if n[g[i].input] > 1 {
			g[i].input += "/" + g[i].campaign
		}
	}
}

// compareDocument lays inputs' tests side by side (see BuildDocument),
// with every input's warnings at the top, each labelled with the input:
// its review directory's (failed or skipped campaigns) and its tests'
// (simulated, client-bound, incomplete, interrupted VMs).
func compareDocument(inputs []*Input, opts DocumentOptions) (*report.Document, error) {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.Name
	}
	d := &report.Document{Title: "Comparison: " + strings.Join(names, " vs "),
		Subtitle: fmt.Sprintf("Each figure of %s and its change from %s (the first input) in percent: +34.6 is what reviews write as \"34.6%% higher\".",
			strings.Join(names[1:], ", "), names[0])}
	groups, order, err := groupTests(inputs)
	if err != nil {
		return nil, err
	}
	var warned []sourcedWarning
	for _, in := range inputs {
		d.Facts = append(d.Facts, report.Fact{Name: in.Name, Value: inputFacts(in)})
		for _, w := range in.Warnings { // a review directory's failed or skipped campaigns
			d.Warnings = append(d.Warnings, in.Name+": "+w)
		}
		for _, rep := range in.Reports {
			warned = append(warned, rep.warnings(in.Name)...)
		}
	}
	d.Warnings = append(d.Warnings, foldWarnings(warned)...)
	for _, key := range order {
		g := groups[key]
		kept, left := matchProtocol(g)
		d.Warnings = append(d.Warnings, left...)
		if len(kept) < 2 {
			continue
		}
		sec, err := compareSection(kept, opts)
		if err != nil {
			return nil, err
		}
		d.Sections = append(d.Sections, *sec)
	}
	if len(d.Sections) == 0 {
		d.Warnings = append(d.Warnings, "No test ran in two inputs with the same protocol: nothing was compared.")
	}
	return d, nil
}

// inputFacts says what an input holds: its directory and its tests.
func inputFacts(in *Input) string {
	var parts []string
	for _, rep := range in.Reports {
		parts = append(parts, fmt.Sprintf("%s (vmbench %s)", rep.Dir, rep.Info.VMBench))
	}
	return strings.Join(parts, "; ")
}

// groupTests groups the inputs' tests by what they are: by key alone
// when every input holding the key holds one test of it (so 8 VMs
// compare with 16), else by key and VM count. order is the groups in the
// order the inputs list them.
func groupTests(inputs []*Input) (groups map[string][]entry, order []string, err error) {
	perInput := make([][]entry, len(inputs))
	count := map[string]int{} // tests of a key in one input, at most
	for i, in := range inputs {
		n := map[string]int{}
		for _, rep := range in.Reports {
			ts, err := rep.tests()
			if err != nil {
				return nil, nil, err
			}
			for _, t := range ts {
				perInput[i] = append(perInput[i], entry{input: in.Name, campaign: filepath.Base(filepath.Clean(rep.Dir)), test: t})
				n[t.key]++
				count[t.key] = max(count[t.key], n[t.key])
			}
		}
	}
	groups = map[string][]entry{}
	for _, es := range perInput {
		for _, e := range es {
			g := e.test.key
			if count[g] > 1 {
				g += fmt.Sprintf(", %d VMs", e.test.vms)
			}
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], e)
		}
	}
	for _, g := range groups {
		distinctEntries(g)
	}
	return groups, order, nil
}

// matchProtocol keeps the entries that ran the first one's protocol and
// says why each other one was left out.
func matchProtocol(g []entry) (kept []entry, left []string) {
	kept = g[:1]
	for _, e := range g[1:] {
		if d := protocolDiff(g[0].test.protocol, e.test.protocol); d != "" {
			left = append(left, fmt.Sprintf("%s's %s was left out of the comparison with %s: it ran another protocol (%s).", e.input, e.test.title, g[0].input, d))
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 1 && len(g) == 1 {
		left = append(left, fmt.Sprintf("%s's %s is in no other input: not compared.", g[0].input, g[0].test.title))
	}
	return kept, left
}

// num formats a figure's value: grouped, or plain for CSV.
func (o DocumentOptions) num(f report.Figure) string {
	if o.Plain {
		return strconv.FormatFloat(f.Value, 'f', f.Digits, 64)
	}
	return report.Grouped(f.Value, f.Digits)
}

// compareSection is one test across inputs: the figures with their
// changes, and the curves on one chart.
func compareSection(es []entry, opts DocumentOptions) (*report.Section, error) {
	base := es[0].test
	heading := base.title
	if vms := vmCounts(es); vms != "" {
		heading += ", " + vms
	}
	sec := &report.Section{ID: sectionID("cmp " + heading), Heading: heading, Figures: map[string]float64{}}
	t := &report.Table{Columns: []report.Column{{Header: "figure"}}}
	for _, e := range es {
		t.Columns = append(t.Columns, report.Column{Header: e.input, Align: report.Right, Numeric: true})
	}
	for _, e := range es[1:] {
		t.Columns = append(t.Columns, report.Column{Header: changeHeader(e.input, len(es) > 2), Align: report.Right, Numeric: true})
	}
	for _, name := range figureNames(es) {
		row := []string{name}
		var vals []*report.Figure
		for _, e := range es {
			f := findFigure(e.test.figures, name)
			vals = append(vals, f)
			row = append(row, cellOf(f, opts))
			if f != nil {
				sec.Figures[e.input+": "+name] = f.Value
			}
		}
		for _, v := range vals[1:] {
			c := "–"
			if vals[0] != nil && v != nil {
				c = change(vals[0].Value, v.Value)
			}
			row = append(row, c)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{changeNote(es[0].input)}
	sec.Tables = []report.TableBlock{{Caption: "Figures side by side, with the change from " + es[0].input, Table: t}}
	names := make([]string, len(es))
	tests := make([]*testFigures, len(es))
	for i := range es {
		names[i], tests[i] = es[i].input, &es[i].test
	}
	if opts.Reference != nil {
		addReference(sec, opts.Reference, names, tests, opts.Plain)
	}
	charts, err := compareCharts(heading, names, tests, opts.Reference)
	if err != nil {
		return nil, err
	}
	sec.Charts = append(sec.Charts, charts...)
	return sec, nil
}

// vmCounts says the VM counts of OLTP entries ("8 VMs", "8 vs 16 VMs");
// "" for block profiles.
func vmCounts(es []entry) string {
	var n []string
	same := true
	for _, e := range es {
		if e.test.vms == 0 {
			return ""
		}
		n = append(n, strconv.Itoa(e.test.vms))
		same = same && e.test.vms == es[0].test.vms
	}
	if same {
		return n[0] + " VMs"
	}
	return strings.Join(n, " vs ") + " VMs"
}

// figureNames are the labels of the entries' figures, the first entry's
// order first.
func figureNames(es []entry) []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range es {
		for _, f := range e.test.figures {
			if !seen[f.Label()] {
				seen[f.Label()] = true
				names = append(names, f.Label())
			}
		}
	}
	return names
}

// findFigure returns the figure labelled label, or nil.
func findFigure(fs []report.Figure, label string) *report.Figure {
	for i := range fs {
		if fs[i].Label() == label {
			return &fs[i]
		}
	}
	return nil
}

// cellOf is a figure's cell: "–" when absent.
func cellOf(f *report.Figure, opts DocumentOptions) string {
	if f == nil {
		return "–"
	}
	return opts.num(*f)
}

// compareCharts draws the inputs' curves of one test on one chart each:
// a block profile's service-time curves (with the reference's published
// peak), or an OLTP test's summed TPS over time and merged latency
// percentiles.
func compareCharts(heading string, names []string, tests []*testFigures, ref *Reference) ([]report.Chart, error) {
	if tests[0].vms == 0 {
		var curves []report.Curve
		for i, t := range tests {
			for _, c := range t.curves {
				c.Name = names[i] + ": " + c.Name
				curves = append(curves, c)
			}
		}
		if ref != nil {
			curves = append(curves, referencePeaks(ref, tests)...)
		}
		c, err := curveChart(heading, curves)
		if c == nil || err != nil {
			return nil, err
		}
		c.Alt = "mean latency (service time, and from the intended start where measured) on a logarithmic axis against achieved IOPS of " + strings.Join(names, ", ") + " on one chart, with the 100 µs and 1 ms lines"
		return []report.Chart{*c}, nil
	}
	var tps, pct []report.Series
	nines, mark := 1, 0.0
	for i, t := range tests {
		mark = max(mark, t.mark)
		if t.tps != nil {
			s := *t.tps
			s.Name, s.Bold = names[i], false
			tps = append(tps, s)
		}
		s := *t.pct
		s.Name = names[i]
		pct = append(pct, s)
		nines = max(nines, int(s.Points[len(s.Points)-1].X+0.5))
	}
	var charts []report.Chart
	if len(tps) > 0 {
		c := report.Chart{Title: heading + ": TPS over time", Alt: "TPS summed over the VMs per report interval of " + strings.Join(names, ", ")}
		if err := drawTPS(&c, []report.Panel{{YLabel: "TPS, all VMs", Series: tps}}, mark); err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	c := report.Chart{Title: heading + ": latency by percentile", Alt: "Latency in ms at each percentile of all VMs' merged histograms of " + strings.Join(names, ", ")}
	if err := drawPercentiles(&c, pct, nines); err != nil {
		return nil, err
	}
	return append(charts, c), nil
}

// bytes64K is the transfer size of the 64K profiles, for a published
// GB/s as IOPS.
const bytes64K = 64 << 10

// referencePeaks are the reference's published peaks of the block tests'
// key, one single-point curve per drive set whose protocol the tests ran
// (referenceDiff): the others are not compared, and addReference says why.
func referencePeaks(ref *Reference, tests []*testFigures) []report.Curve {
	var out []report.Curve
	for _, row := range ref.rows(tests[0].key) {
		if referenceDiff(row.Protocol, tests) != "" {
			continue
		}
		iops, lat := findFigure(row.Figures, "peak IOPS"), findFigure(row.Figures, "peak latency (µs)")
		if gb := findFigure(row.Figures, "peak throughput (GB/s)"); gb != nil && iops == nil {
			iops = &report.Figure{Value: gb.Value * 1e9 / bytes64K}
		}
		if iops == nil || lat == nil {
			continue
		}
		out = append(out, report.Curve{Name: fmt.Sprintf("%s, %s (published peak)", ref.Server, row.Config),
			Points: []report.Point{{IOPS: iops.Value, Latency: time.Duration(lat.Value * float64(time.Microsecond)), Label: "published"}}})
	}
	return out
}

// addReference adds to sec the reference's published rows of the tests'
// key and VM count: a table of the published figures and each input's
// change from them, or, for a row whose protocol the tests did not run,
// its figures and what differs. Rows of other VM counts are not the
// section's and are left out; a section with none of its count says what
// counts were published.
func addReference(sec *report.Section, ref *Reference, names []string, tests []*testFigures, plain bool) {
	opts := DocumentOptions{Plain: plain}
	var rows []ReferenceRow
	var others []string
	for _, row := range ref.rows(tests[0].key) {
		if row.VMs == tests[0].vms {
			rows = append(rows, row)
		} else {
			others = append(others, strconv.Itoa(row.VMs))
		}
	}
	if len(rows) == 0 {
		what := tests[0].title
		if len(others) > 0 {
			what += fmt.Sprintf(" with %d VMs, only with %s VMs", tests[0].vms, joinLabels(others))
		}
		sec.Text = append(sec.Text, fmt.Sprintf("%s has no published figures for %s in %s.", ref.Server, what, ref.Source))
	}
	for _, row := range rows {
		what := row.Config // the database and VM count
		if row.VMs == 0 {
			what = tests[0].title + " on " + row.Config // the block suite's profile, on the drives
		}
		if d := referenceDiff(row.Protocol, tests); d != "" {
			var b bytes.Buffer
			for i, f := range row.Figures {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s %s", f.Label(), opts.num(f))
			}
			sec.Text = append(sec.Text, fmt.Sprintf("Published by %s for %s: %s. Not compared: the published run's protocol differs: %s.", ref.Server, what, b.String(), d))
			continue
		}
		sec.Tables = append(sec.Tables, report.TableBlock{Caption: fmt.Sprintf("Reference: %s, %s (published)", ref.Server, what),
			Table: referenceTable(ref, row, names, tests, opts)})
	}
}

// referenceTable is a published row's figures beside the tests' (named
// by names), with each test's change from the published figure.
func referenceTable(ref *Reference, row ReferenceRow, names []string, tests []*testFigures, opts DocumentOptions) *report.Table {
	t := &report.Table{Columns: []report.Column{{Header: "figure"}, {Header: "published", Align: report.Right, Numeric: true}}}
	for _, n := range names {
		t.Columns = append(t.Columns, report.Column{Header: n, Align: report.Right, Numeric: true},
			report.Column{Header: changeHeader(n, len(names) > 1), Align: report.Right, Numeric: true})
	}
	for _, f := range row.Figures {
		r := []string{f.Label(), opts.num(f)}
		for _, tf := range tests {
			v := findFigure(tf.figures, f.Label())
			c := "–"
			if v != nil {
				c = change(f.Value, v.Value)
			}
			r = append(r, cellOf(v, opts), c)
		}
		t.Rows = append(t.Rows, r)
	}
	t.Notes = []string{"Published: " + ref.Source + ".", changeNote("the published figure")}
	if row.VMs > 0 {
		t.Notes[0] += " The reviews' aggregate latencies are the mean of the per-VM values: compare them with the published aggregation."
	}
	return t
}
