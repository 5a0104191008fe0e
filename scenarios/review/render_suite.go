package review

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"vmbench/internal/boundedread"
	"vmbench/oltp"
	"vmbench/report"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// suiteReview is a block suite's review: a row per profile measured, in
// the suite's order, read back from the tool's files.
type suiteReview struct {
	suite *spec.Suite // suite.yaml, as run
	info  *rundir.RunInfo
	// columns are the tool's review columns (workload.RowReviewer).
	columns []workload.RowColumn
	rows    []suiteRow
	// planned is the number of profiles the suite runs.
	planned int
}

// suiteRow is one profile's row: its cells and the charts beside them.
type suiteRow struct {
	profile, title string
	cells, charts  []string
	// notes are the tool's lines on the row, for under the table.
	notes []string
	// cut is set when the profile's run was interrupted (its figures are
	// those measured until then).
	cut bool
	// cfg and out are the profile's Config and what was read back, for
	// the HTML report's curves and figures (Report.Document).
	cfg workload.Config
	out *workload.Output
}

// renderSuite builds the review of a block suite's results directory
// from suite.yaml (the suite as run: a regular file of at most
// MaxFileSize bytes), run.json and, per profile, the
// tool's files read back through the workload contract
// (workload.ResultReader, which refuses a record of a newer version); the
// cells are the tool's (workload.RowReviewer). A profile without results
// (the suite stopped before it) has no row; a directory with none is
// refused, as a VM campaign that measured nothing is.
func renderSuite(dir string, ri *rundir.RunInfo) (*suiteReview, error) {
	path := filepath.Join(dir, "suite.yaml")
	b, err := boundedread.ReadFile(path, spec.MaxFileSize)
	if err != nil {
		return nil, err
	}
	s, err := spec.ParseSuite(path, b)
	if err != nil {
		return nil, err
	}
	s.SimulatedTargets = ri.Simulated
	if s.InVMs() {
		s = s.ForVM(os.TempDir()) // the profiles' Configs on one VM's disks, placed as the engine's check places them
	}
	plans, err := s.Configs()
	if err != nil {
		return nil, err
	}
	sr := &suiteReview{suite: s, info: ri, planned: len(plans), columns: []workload.RowColumn{{Header: "profile"}}}
	for i, p := range plans {
		rr, ok := p.Config.(workload.ResultReader)
		if !ok {
			return nil, fmt.Errorf("%s: the suite's tool %s does not read its results back (workload.ResultReader)", s.File(), spec.SuiteTool)
		}
		if rv, ok := p.Config.(workload.RowReviewer); ok && i == 0 {
			sr.columns = rv.ReviewColumns()
		}
		o, files, err := rr.ReadResults(dir, p.Profile)
		if errors.Is(err, fs.ErrNotExist) {
			continue // not measured
		}
		if err != nil {
			return nil, err
		}
		sr.rows = append(sr.rows, suiteRowOf(p, o, files))
	}
	if len(sr.rows) == 0 {
		return nil, fmt.Errorf("%s measured nothing: none of its %d profile(s) has its results (<profile>.json): the suite stopped before its first profile ended, or its files were removed",
			dir, len(plans))
	}
	return sr, nil
}

// suiteRowOf is the row of profile p from its Output and files.
func suiteRowOf(p spec.SuitePlan, o *workload.Output, files []string) suiteRow {
	row := suiteRow{profile: p.Profile, title: p.Profile, cells: []string{p.Profile}, cfg: p.Config, out: o,
		cut: o.Result != nil && o.Result.State() != oltp.StatusComplete}
	if pr, ok := o.Record.(workload.PartialRecord); ok && pr.Partial() {
		row.cut = true
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".svg") {
			row.charts = append(row.charts, f)
		}
	}
	if rr, ok := p.Config.(workload.RowReviewer); ok {
		rv := rr.ReviewRow(o)
		row.title, row.cells, row.notes = rr.Title(), rv.Cells, rv.Notes
	} else if o.Result != nil && o.Result.State() != oltp.StatusComplete {
		row.cells[0] += " (interrupted)"
	}
	return row
}

// incomplete says how many profiles were measured when not all were in
// full.
func (sr *suiteReview) incomplete() string {
	cut := 0
	for _, r := range sr.rows {
		if r.cut {
			cut++
		}
	}
	if len(sr.rows) == sr.planned && cut == 0 {
		return ""
	}
	s := fmt.Sprintf("Incomplete: %d of %d profiles measured", len(sr.rows), sr.planned)
	if cut > 0 {
		s += fmt.Sprintf(" (%d of them interrupted, with the figures measured until then)", cut)
	}
	return s + "; the suite stopped before the end (or is still running)"
}

// engineWords says how the suite issued its I/O (its ioengine:).
func (sr *suiteReview) engineWords() string {
	if sr.suite.IOEngine == "io_uring" {
		return "I/O engine io_uring (ioengine:): each target's threads= I/Os in flight through one io_uring"
	}
	return "I/O engine psync (vdbench's model): each thread one blocking pread/pwrite at a time"
}

// table is the review table: the tool's columns (numeric ones aligned
// right, numbers in CSV and JSON) and the rows' notes under it, and in
// Markdown a column of links to each profile's charts, data and
// interval lines.
func (sr *suiteReview) table(links bool) *report.Table {
	t := &report.Table{}
	for _, c := range sr.columns {
		col := report.Column{Header: c.Header, Numeric: c.Numeric}
		if c.Numeric {
			col.Align = report.Right
		}
		t.Columns = append(t.Columns, col)
	}
	for _, r := range sr.rows {
		t.Notes = append(t.Notes, r.notes...)
	}
	if links {
		t.Columns = append(t.Columns, report.Column{Header: "charts"})
	}
	for _, r := range sr.rows {
		if !links {
			t.Rows = append(t.Rows, r.cells)
			continue
		}
		var l []string
		for _, c := range r.charts {
			label := "latency vs IOPS"
			if strings.HasSuffix(c, "-targets.svg") {
				label = "per target"
			}
			l = append(l, fmt.Sprintf("[%s](%s)", label, c))
		}
		l = append(l, fmt.Sprintf("[data](%s.json)", r.profile), fmt.Sprintf("[intervals](%s.txt)", r.profile))
		t.Rows = append(t.Rows, append(append([]string(nil), r.cells...), strings.Join(l, ", ")))
	}
	return t
}

// writeText writes the review table as aligned text, as the suite prints
// it at the end.
func (sr *suiteReview) writeText(w io.Writer) error {
	if s := sr.incomplete(); s != "" {
		fmt.Fprintf(w, "%s\n", s)
	}
	if err := sr.table(false).WriteText(w); err != nil {
		return err
	}
	approx := ""
	if sr.approximated() {
		approx = "; † APPROXIMATION: a mix the reviews do not publish"
	}
	_, err := fmt.Fprintf(w, "latency: mean service time of each I/O; %s%s\n", sr.engineWords(), approx)
	return err
}

// approximated reports whether a row is a profile marked † (an
// APPROXIMATION), so that the footnote is printed only then.
func (sr *suiteReview) approximated() bool {
	for _, r := range sr.rows {
		if strings.Contains(r.title, "†") {
			return true
		}
	}
	return false
}

// writeMarkdown writes report.md: the suite, where it ran, the table
// with links, the notes and each profile's chart.
func (sr *suiteReview) writeMarkdown(w io.Writer) error {
	s := sr.suite
	var b strings.Builder
	fmt.Fprintf(&b, "# Block suite %s\n\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", s.Description)
	}
	switch {
	case s.InVMs():
		fmt.Fprintf(&b, "In VMs: %s. Each profile ran in every VM at once from a common start, each curve point on one planned grid; "+
			"each point is merged across the VMs exactly (IOPS and MB/s summed, latency from the merged histograms), "+
			"with each VM's spread in the profile's .txt and each VM's own files in vms/<vm>/.\n\n", DescribeSuiteVMs(s))
		if s.SimulatedTargets {
			fmt.Fprintf(&b, "Simulated: vcsim in process, and in each VM's guest (a local directory with its own agent process) %d temporary files of %s; "+
				"the figures measure this host's file system, not a drive.\n\n", s.DataDisks(), s.Size)
		}
	case s.SimulatedTargets:
		fmt.Fprintf(&b, "Simulated: %d temporary files of %s each, removed after the run; the figures measure this host's file system, not a drive.\n\n",
			len(s.Targets), s.Size)
	default:
		fmt.Fprintf(&b, "Targets: %s.\n\n", strings.Join(s.Targets, ", "))
	}
	if inc := sr.incomplete(); inc != "" {
		fmt.Fprintf(&b, "**%s.**\n\n", inc)
	}
	if s.Source != "" {
		fmt.Fprintf(&b, "Protocol: %s. ", s.Source)
	}
	fmt.Fprintf(&b, "Started %s, vmbench %s. %s. Latency is the mean service time of each I/O (vdbench's response time); "+
		"crossings are interpolated between curve points; the peak is the highest achieved rate, the max run included.\n\n",
		sr.info.Started.Format(time.RFC3339), sr.info.VMBench, sr.engineWords())
	if err := sr.table(true).WriteMarkdown(&b); err != nil {
		return err
	}
	if sr.approximated() {
		b.WriteString("\n† APPROXIMATION: the reviews do not publish this mix; vmbench's profile defines one from public facts (`vmbench vdbench profiles NAME`).\n")
	}
	for _, r := range sr.rows {
		for _, c := range r.charts {
			if !strings.HasSuffix(c, "-targets.svg") {
				fmt.Fprintf(&b, "\n## %s\n\n![%s](%s)\n", r.title, r.title, c)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
