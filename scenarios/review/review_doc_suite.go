package review

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"vmbench/report"
	"vmbench/workload"
)

// section is a block suite's section: where it ran, the review table
// (the tool's cells, as report.md shows them), and per profile its
// latency-vs-IOPS chart (service time and from the intended start, with
// the 100 µs and 1 ms lines).
func (sr *suiteReview) section() (*report.Section, error) {
	s := sr.suite
	sec := &report.Section{ID: sectionID(s.Name), Heading: "Block suite " + s.Name, Figures: map[string]float64{}, Warnings: sr.warnings()}
	if s.Description != "" {
		sec.Text = append(sec.Text, s.Description)
	}
	where := strings.Join(s.Targets, ", ")
	if s.InVMs() {
		where = "in VMs: " + DescribeSuiteVMs(s)
	}
	sec.Facts = []report.Fact{{Name: "Targets", Value: where}, {Name: "I/O", Value: sr.engineWords()},
		{Name: "Started", Value: sr.info.Started.Format(time.RFC3339)}, {Name: "vmbench", Value: sr.info.VMBench}}
	if s.Source != "" {
		sec.Facts = append(sec.Facts, report.Fact{Name: "Protocol", Value: s.Source})
	}
	t := sr.table(false)
	notes := []string{"Latency is the mean service time of each I/O (vdbench's response time); crossings are interpolated between curve points; the peak is the highest achieved rate, the max run included."}
	if sr.approximated() {
		notes = append(notes, "† APPROXIMATION: the reviews do not publish this mix; vmbench's profile defines one from public facts (vmbench vdbench profiles NAME).")
	}
	t.Notes = append(notes, t.Notes...)
	sec.Tables = []report.TableBlock{{Caption: "Review summary per profile", Table: t}}
	for _, r := range sr.rows {
		cr, ok := r.cfg.(workload.RowReviewer)
		if !ok {
			continue
		}
		for _, f := range cr.ReviewFigures(r.out) {
			sec.Figures[r.profile+": "+f.Label()] = f.Value
		}
		c, err := curveChart(r.title, cr.ReviewCurves(r.out))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.profile, err)
		}
		if c != nil {
			sec.Charts = append(sec.Charts, *c)
		}
	}
	return sec, nil
}

// warnings are what a reader of the suite's review must see first: an
// incomplete or simulated suite.
func (sr *suiteReview) warnings() []string {
	var w []string
	if inc := sr.incomplete(); inc != "" {
		w = append(w, inc+".")
	}
	if sr.suite.SimulatedTargets {
		w = append(w, "Simulated: temporary files on this host's file system, not drives; the figures measure this machine, not the protocol's servers.")
	}
	return w
}

// curveChart draws a profile's latency-vs-IOPS curves; nil when there is
// no point to draw.
func curveChart(title string, curves []report.Curve) (*report.Chart, error) {
	n := 0
	for _, c := range curves {
		n += len(c.Points)
	}
	if n == 0 {
		return nil, nil
	}
	names := make([]string, len(curves))
	for i, c := range curves {
		names[i] = c.Name
	}
	var b bytes.Buffer
	if err := report.LatencyChart(&b, title+": latency vs IOPS", curves, report.ChartOptions{YLabel: "mean latency", PointLabels: true, LogLatency: true}); err != nil {
		return nil, err
	}
	return &report.Chart{Title: title + ": latency vs IOPS", SVG: b.Bytes(),
		Alt: fmt.Sprintf("mean latency on a logarithmic axis against achieved IOPS at each curve point (%s), with the 100 µs and 1 ms lines", strings.Join(names, "; "))}, nil
}
