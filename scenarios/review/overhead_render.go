package review

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"vmbench/internal/textfmt"
	"vmbench/report"
	"vmbench/scenarios/rundir"
)

// overheadView renders an Overhead record (run.json's): the overhead
// table, as text, Markdown or a report section.
type overheadView struct{ *rundir.Overhead }

// stepLabels describe the campaign steps in the overhead table.
var stepLabels = map[rundir.Step]string{
	rundir.StepSetup:        "setup: check, results directory",
	rundir.StepConnect:      "connect to vSphere (or start vcsim)",
	rundir.StepPreflight:    "preflight",
	rundir.StepProvision:    "provision: clone, reconfigure, power on, verify, IP",
	rundir.StepDatabases:    "a database per VM",
	rundir.StepAgents:       "agents: clocks, upload to each guest",
	rundir.StepPrepare:      "prepare: load or restore the data",
	rundir.StepRun:          "run (nothing measured)",
	rundir.StepStartWait:    "run: wait for the common start",
	rundir.StepPrecondition: "run: precondition (workload)",
	rundir.StepMeasure:      "run: measure (workload)",
	rundir.StepWindDown:     "run: wind-down until every VM returned",
	rundir.StepCounters:     "counters: host facts, vSphere performance counters",
	rundir.StepChecks:       "checks: consistency after the run",
	rundir.StepCollect:      "collect: VM results, merge",
	rundir.StepReport:       "report: render, print the review",
	rundir.StepTeardown:     "teardown: agents, databases, VMs, simulator",
}

func stepLabel(step rundir.Step) string {
	if l, ok := stepLabels[step]; ok {
		return l
	}
	return string(step)
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// table is the overhead table: a row per step (and per VM step of the
// provisioning), then the total, the workload's window and the rest.
func (o overheadView) table() *report.Table {
	share := o.share
	t := &report.Table{Columns: []report.Column{{Header: "step"}, {Header: "wall (s)", Align: report.Right},
		{Header: "share", Align: report.Right}, {Header: "VMs", Align: report.Right},
		{Header: "VM sum (s)", Align: report.Right}, {Header: "slowest VM (s)", Align: report.Right}}}
	process := 0
	for _, s := range o.Steps {
		if s.Process != process && s.Process > 0 && s.Process <= len(o.Processes) {
			process = s.Process
			p := o.Processes[process-1]
			t.Rows = append(t.Rows, []string{o.processLabel(process), seconds(p.Total), share(p.Total), "", "", ""})
		}
		indent := ""
		if process > 0 {
			indent = "  " // under its process
		}
		t.Rows = append(t.Rows, []string{indent + stepLabel(s.Step), seconds(s.Wall), share(s.Wall), "", "", ""})
		for _, v := range s.VMSteps {
			t.Rows = append(t.Rows, []string{indent + "  per VM: " + v.Step, "", "", strconv.Itoa(v.VMs), seconds(v.Sum), seconds(v.Slowest)})
		}
	}
	t.Rows = append(t.Rows,
		[]string{"total", seconds(o.Total), share(o.Total), "", "", ""},
		[]string{o.windowLabel(), seconds(o.Workload()), share(o.Workload()), "", "", ""},
		[]string{"harness overhead (all the rest)", seconds(o.Harness()), share(o.Harness()), "", "", ""})
	t.Notes = []string{
		"wall: each step's wall time; share: of the total, from the start of the campaign to the end of its teardown.",
		"workload window: from the first VM's start of the precondition to the last VM's end of the measure phase; all else is the harness's own time.",
		"VM sum: a VM's own step added over the VMs, which run it in parallel (so it can exceed the step's wall time); slowest VM: the longest one VM took.",
	}
	if len(o.Processes) > 0 {
		t.Notes = append(t.Notes, "process: the campaign was resumed; each process that worked on it (the campaign run, then each campaign resume) with its own time and, below it, its steps. "+
			"A process that was stopped counts until the last step it recorded (its time after that is not known), and the time between two processes is not counted.")
	}
	if o.preconditionOnly() {
		t.Notes = append(t.Notes, "the run stopped in its precondition: no VM reached its measure phase, so the workload window holds no measured time.")
	}
	if !o.Completed {
		t.Notes = append(t.Notes, "the campaign stopped before its end: these are the steps it took.")
	}
	return t
}

// processLabel is the row of process n (1-based) of a resumed campaign.
func (o overheadView) processLabel(n int) string {
	p := o.Processes[n-1]
	l := fmt.Sprintf("process %d: %s", n, p.Command)
	switch {
	case p.Stopped == "none":
		l += ", stopped before it recorded a step"
	case p.Stopped != "":
		l += ", stopped after its " + string(p.Stopped) + " step"
	}
	return l
}

// wall is the wall time of the steps named step.
func (o overheadView) wall(step rundir.Step) time.Duration {
	var d time.Duration
	for _, s := range o.Steps {
		if s.Step == step {
			d += s.Wall
		}
	}
	return d
}

// preconditionOnly says the workload's window is all precondition: the
// run stopped before any VM measured.
func (o overheadView) preconditionOnly() bool {
	return o.wall(rundir.StepPrecondition) > 0 && o.wall(rundir.StepMeasure) == 0
}

// windowLabel names the workload window's row by what it holds.
func (o overheadView) windowLabel() string {
	if o.preconditionOnly() {
		return "workload window (precondition only, nothing measured)"
	}
	return "workload window (precondition + measure)"
}

// share is d as a percentage of Total ("" when Total is 0).
func (o overheadView) share(d time.Duration) string {
	if o.Total <= 0 {
		return ""
	}
	return strconv.FormatFloat(100*d.Seconds()/o.Total.Seconds(), 'f', 1, 64) + "%"
}

func (o overheadView) heading() string {
	return fmt.Sprintf("harness overhead: %s s of %s s (%s) outside the workload's window",
		seconds(o.Harness()), seconds(o.Total), o.share(o.Harness()))
}

// WriteOverheadText writes the harness overhead record o (run.json's) as
// the campaign prints it at its end: a heading line, then a table of the
// wall time of each step (in seconds, with its share of the total), the
// total, the workload's window and the rest, as aligned text with its
// notes. Its error is w's.
func WriteOverheadText(w io.Writer, o *rundir.Overhead) error { return overheadView{o}.writeText(w) }

// writeText writes the overhead table as WriteOverheadText does.
func (o overheadView) writeText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s\n\n", o.heading()); err != nil {
		return err
	}
	return o.table().WriteText(w)
}

// writeMarkdown writes the overhead table as report.md's section
// "Harness overhead".
func (o overheadView) writeMarkdown(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "## Harness overhead\n\n%s.\n\n", textfmt.Capitalize(o.heading())); err != nil {
		return err
	}
	return o.table().WriteMarkdown(w)
}

// section is the overhead table as a report section of campaign's
// report, with the heading line report.md's section "Harness overhead"
// gives as its caption.
func (o overheadView) section(campaign string) report.Section {
	return report.Section{ID: sectionID(campaign + " harness overhead"), Heading: campaign + ": harness overhead",
		Tables: []report.TableBlock{{Caption: textfmt.Capitalize(o.heading()), Table: o.table()}}}
}
