package review

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vmbench/report"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// Input is one directory given to a comparison: a results directory (one
// test) or a review directory (a results directory per campaign in it).
type Input struct {
	// Name labels the input in tables and legends: the directory's base
	// name.
	Name    string
	Dir     string
	Reports []*Report
	// Warnings are a review directory's own, from its review.json: a
	// campaign that failed or did not run, a results directory it lists
	// that is gone.
	Warnings []string
}

// ReadInput reads dir as a results directory (it has run.json) or else as
// a review directory: every subdirectory with run.json, in the order its
// review.json lists them, then in name order. A review directory with
// review.json is read even when no campaign measured anything (the review
// failed or was interrupted in its first): its Warnings say so. Errors
// name the directory.
func ReadInput(dir string) (*Input, error) {
	in := &Input{Name: filepath.Base(filepath.Clean(dir)), Dir: dir}
	if _, err := os.Stat(filepath.Join(dir, rundir.RunFile)); err == nil {
		rep, err := Render(dir)
		if err != nil {
			return nil, err
		}
		in.Reports = []*Report{rep}
		return in, nil
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		// os.ReadDir would open it, and opening a FIFO blocks
		return nil, fmt.Errorf("%s is not a directory (give a results directory or a review directory)", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	rec, err := readReviewRecord(dir)
	if err != nil {
		return nil, err
	}
	recorded := rec != nil
	if !recorded {
		rec = &Outcome{}
	}
	order := rec.order
	slices.SortStableFunc(entries, func(a, b os.DirEntry) int { return order(a.Name()) - order(b.Name()) })
	in.Warnings = rec.warnings(dir)
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, rundir.RunFile)); !e.IsDir() || err != nil {
			continue
		}
		rep, err := Render(sub)
		if err != nil {
			return nil, err
		}
		in.Reports = append(in.Reports, rep)
	}
	switch {
	case len(in.Reports) == 0 && !recorded:
		return nil, noRunInfo(dir)
	case len(in.Reports) == 0:
		in.Warnings = append(in.Warnings, "No campaign of the review measured anything: this report has nothing else to show.")
	}
	return in, nil
}

// testFigures is one test of one input as a comparison sees it: what it
// is (key), the protocol that must match for a comparison, its figures
// and the curves drawn over the other inputs'.
type testFigures struct {
	key, title string
	vms        int
	// protocol are the options that shaped the run (the workload's flags,
	// a block profile's parameters): tests are compared only when equal.
	protocol map[string]string
	// published, when set, puts protocol as published reference rows
	// state theirs (blockProtocol for a block profile's flags); nil
	// when they state the flags themselves.
	published func(flags map[string]string) map[string]string
	figures   []report.Figure
	// curves are a block profile's curves (service time, and from the
	// intended start where it was measured); tps and pct an
	// OLTP test's summed TPS over time and merged latency percentiles.
	curves   []report.Curve
	tps, pct *report.Series
	// mark is where an OLTP test's measurement starts on the TPS chart (s).
	mark float64
}

// tests lists the tests of a report: an OLTP campaign is one, a block
// suite one per profile measured.
func (r *Report) tests() ([]testFigures, error) {
	if r.Review != nil {
		t, err := r.oltpTest()
		return []testFigures{t}, err
	}
	var out []testFigures
	for _, row := range r.suite.rows {
		t := testFigures{key: "block " + row.profile, title: row.title, protocol: workload.RecordedFlags(row.cfg), published: blockProtocol}
		if cr, ok := row.cfg.(workload.RowReviewer); ok {
			t.figures = cr.ReviewFigures(row.out)
			t.curves = cr.ReviewCurves(row.out) // service time, and from intended start where measured
		}
		out = append(out, t)
	}
	return out, nil
}

// oltpTest is a VM campaign's test: keyed by tool and workload name, its
// protocol the workload's flags as campaign.yaml records them.
func (r *Report) oltpTest() (testFigures, error) {
	rv := r.Review
	cf, err := spec.Load(filepath.Join(r.Dir, "campaign.yaml"))
	if err != nil {
		return testFigures{}, err
	}
	t := testFigures{key: cf.Workload.Tool + " " + cf.Workload.Name, vms: len(rv.VMs),
		title: fmt.Sprintf("%s %s", cf.Workload.Tool, cf.Workload.Name), protocol: map[string]string{}}
	for k, v := range cf.Workload.Flags {
		t.protocol[k] = fmt.Sprint(v)
	}
	t.figures = []report.Figure{rate(figTPS, rv.TPSSum), rate(figTPSMin, rv.TPSMin), rate(figTPSMax, rv.TPSMax),
		ms(figAvgPub, rv.AvgPublishedMs), ms(figAvgExact, rv.AvgExactMs), ms(figP99Pub, rv.P99PublishedMs), ms(figP99Exact, rv.P99ExactMs)}
	for i, c := range rv.Columns {
		if c.Value != nil {
			t.figures = append(t.figures, report.Figure{Name: publishedLabel(c.Header), Value: rv.Figures[i], Digits: c.Digits},
				report.Figure{Name: mergedLabel(c.Header), Value: rv.MergedFigures[i], Digits: c.Digits})
		}
	}
	if hasIntervals(rv.perVM) {
		sum, mark := tpsSeries(rv)
		t.tps, t.mark = &sum, mark
	}
	pct, _, err := percentileSeries("", rv.merged)
	if err != nil {
		return t, err
	}
	t.pct = &pct
	return t, nil
}

// protocolDiff says how b's protocol differs from a's ("threads 16, not
// 32; time 1h, not 2h"), "" when they are the same.
func protocolDiff(a, b map[string]string) string {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	var d []string
	for _, k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		switch {
		case oka && okb && va != vb:
			d = append(d, fmt.Sprintf("%s %s, not %s", k, vb, va))
		case !okb:
			d = append(d, fmt.Sprintf("%s not set (%s in the first)", k, va))
		case !oka:
			d = append(d, fmt.Sprintf("%s %s, not set in the first", k, vb))
		}
	}
	return strings.Join(d, "; ")
}

// change is how v compares with base in percent, signed and compact as
// a table cell: "+34.6" (34.6% higher), "-12.0" (12.0% lower), "0.0"
// (within 0.05%); "n/a" when base is 0.
func change(base, v float64) string {
	if base == 0 {
		return "n/a"
	}
	pct := (v - base) / base * 100
	switch {
	case pct >= 0.05:
		return fmt.Sprintf("+%.1f", pct)
	case pct <= -0.05:
		return fmt.Sprintf("%.1f", pct)
	}
	return "0.0"
}

// changeHeader is the header of a change column: "change (%)", or
// "change, NAME (%)" when several inputs have one.
func changeHeader(name string, several bool) string {
	if several {
		return "change, " + name + " (%)"
	}
	return "change (%)"
}

// changeNote explains a table's change columns.
func changeNote(base string) string {
	return "change (%): from " + base + "; +34.6 is 34.6% higher, -12.0 is 12.0% lower, 0.0 within 0.05%; n/a where the base is 0."
}
