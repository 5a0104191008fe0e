package vdbench

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"vmbench/internal/atomicfile"
	"vmbench/report"
	"vmbench/vdbench/parmfile"
)

// RunFileBases returns the base name of each run's result files
// (<base>.json, <base>.svg, <base>-targets.svg): the run's name as a file
// name, with a suffix _repN when a file of an earlier run (or
// summary.txt, parmfile.vdb) already has that name, compared without
// case. Params.Runs names runs apart; this also keeps "x-targets.svg" of
// a run x apart from the files of a run named x-targets.
func RunFileBases(runs []parmfile.Run) []string {
	used := map[string]bool{"summary.txt": true, "parmfile.vdb": true}
	files := func(base string) []string {
		base = strings.ToLower(base)
		return []string{base + ".json", base + ".svg", base + "-targets.svg"}
	}
	taken := func(base string) bool {
		return slices.ContainsFunc(files(base), func(f string) bool { return used[f] })
	}
	bases := make([]string, len(runs))
	for i, r := range runs {
		base := parmfile.RunName(r.Name)
		for n := 2; taken(base); n++ {
			base = fmt.Sprintf("%s_rep%d", parmfile.RunName(r.Name), n)
		}
		for _, f := range files(base) {
			used[f] = true
		}
		bases[i] = base
	}
	return bases
}

// runMark separates the runs in summary.txt.
const runMark = "\n=== "

// LastRun returns the last run's part of a summary text that
// WriteRunResults appended to.
func LastRun(s string) string {
	if i := strings.LastIndex(s, runMark); i >= 0 {
		return s[i+1:]
	}
	return s
}

// WriteRunResults writes rec's <base>.json and charts (WriteCharts) into
// dir and appends its curve table and summary to summary, under a
// "=== run (title)" heading; it returns the files written.
func WriteRunResults(dir, base, title string, rec *RunRecord, summary io.Writer) ([]string, error) {
	cr := rec.curveResult()
	head := rec.Run
	if title != rec.Run {
		head += " (" + title + ")"
	}
	if rec.Interrupted {
		head += " INTERRUPTED"
	}
	fmt.Fprintf(summary, "%s%s\n", runMark, head)
	if err := WriteCurve(summary, cr); err != nil {
		return nil, err
	}
	if len(cr.Points) > 0 {
		if err := WriteSummary(summary, Summarize(cr)); err != nil {
			return nil, err
		}
	}
	files := []string{base + ".json"}
	if err := rec.WriteFile(filepath.Join(dir, base+".json")); err != nil {
		return nil, err
	}
	charts, err := WriteCharts(dir, base, title, rec)
	return append(files, charts...), err
}

// WriteCharts draws a record's latency curves into dir and returns the
// files written:
//
//	<base>.svg          mean service time and mean latency from the intended
//	                    start against achieved IOPS, all targets together
//	<base>-targets.svg  with several targets, one service-time curve per
//	                    target against that target's own IOPS
//
// The two views are separate files because a target's IOPS are a fraction
// of the total: on one x axis the per-target curves would crowd the left.
func WriteCharts(dir, base, title string, rec *RunRecord) ([]string, error) {
	points := rec.CurveOrder()
	if len(points) == 0 {
		return nil, nil
	}
	perTarget := make([]report.Curve, len(rec.Targets))
	for i, t := range rec.Targets {
		perTarget[i].Name = t
	}
	for _, p := range points {
		for i, tp := range p.Targets {
			if i < len(perTarget) {
				perTarget[i].Points = append(perTarget[i].Points, report.Point{IOPS: tp.Achieved, Latency: tp.Service.Mean, Label: p.Label})
			}
		}
	}
	curves := recordCurves(rec)
	draw := func(name, title, xLabel string, curves []report.Curve) error {
		var b bytes.Buffer
		if err := report.LatencyChart(&b, title, curves, report.ChartOptions{YLabel: "mean latency", XLabel: xLabel, PointLabels: true}); err != nil {
			return err
		}
		return atomicfile.Write(filepath.Join(dir, name), b.Bytes())
	}
	files := []string{base + ".svg"}
	if err := draw(base+".svg", title+": latency vs IOPS", "IOPS (achieved, all targets)", curves); err != nil {
		return nil, err
	}
	if len(rec.Targets) > 1 {
		files = append(files, base+"-targets.svg")
		if err := draw(base+"-targets.svg", title+": service time per target", "IOPS (achieved, per target)", perTarget); err != nil {
			return files[:1], err
		}
	}
	return files, nil
}
