package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"vmbench/report"
	"vmbench/scenarios"
)

func init() { registerGroup(newReportCmd) }

// reportFormats are the renderings --format prints, each a writer of the
// Report: its review as text, report.md, report.csv, report.html, or the
// derived figures as JSON.
var reportFormats = map[string]func(*scenarios.Report, io.Writer) error{
	"text":     (*scenarios.Report).WriteText,
	"markdown": (*scenarios.Report).WriteMarkdown,
	"md":       (*scenarios.Report).WriteMarkdown,
	"csv":      (*scenarios.Report).WriteCSV,
	"html":     documentWriter((*report.Document).WriteHTML),
	"json":     documentWriter((*report.Document).WriteJSON),
}

// reportFormatNames lists the valid --format values for messages.
const reportFormatNames = "html, md (or markdown), csv, json, text"

// documentWriter writes a Report's Document (Report.Document) with write.
func documentWriter(write func(*report.Document, io.Writer) error) func(*scenarios.Report, io.Writer) error {
	return func(r *scenarios.Report, w io.Writer) error {
		d, err := r.Document()
		if err != nil {
			return err
		}
		return write(d, w)
	}
}

func newReportCmd(a *app) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Render a campaign's report.md and report.csv again from its results directory",
		Long: `Render the reports of a campaign's results directory DIR again from the files
saved in it, without running anything: report.md (the review as Markdown, with
links to the data and charts) and report.csv (the review table), each written
atomically, and the review table printed as the campaign printed it.

DIR is a VM campaign's (run.json, campaign.yaml, vms/<vm>.json, merged.json) or
a block suite's (run.json, suite.yaml, <profile>.json per profile). Campaigns
write their reports with the same code, so a report.md rendered again is the
campaign's byte for byte. Results are read through their schema version: a
Result or record written by a newer vmbench is refused, naming the file and
the versions this vmbench reads. A directory still named .incomplete (a
campaign stopped by a failure or Ctrl-C) is rendered with the results it
holds, and its report says it is incomplete.

With --format, the rendering named is printed on stdout and nothing is
written, so a read-only directory can be reported; without it, both reports
are written (checked first, so a directory that cannot take both keeps the
pair it has) and the text table printed.

A directory that is not a results directory, whose files do not read or do not
agree (a VM's result missing, copied or renamed, merged.json or campaign.yaml's
vms.count not matching vms/, merged.json missing from a campaign that
completed, no measure-phase result), or that cannot take the reports, is bad
input (exit status 2), and its reports are left as they are.`,
		Example: `  vmbench report results/sysbench-8vm-20260102T150405Z-a1b2

  # the review table as CSV on stdout, writing nothing
  vmbench report results/vdbench-suite-20260102T150405Z-c3d4 --format csv`,
		Args: exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			write, ok := reportFormats[format]
			if !ok {
				return usagef("--format: %q is not a format (valid: %s)", format, reportFormatNames)
			}
			rep, err := scenarios.Render(args[0])
			if err != nil {
				return asUsage(err)
			}
			if cmd.Flags().Changed("format") {
				return write(rep, a.stdout) // printed only: the directory may be read-only
			}
			if err := rep.WriteFiles(); errors.Is(err, scenarios.ErrReportsNotWritable) {
				return asUsage(err)
			} else if err != nil {
				return err
			}
			if err := write(rep, a.stdout); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "wrote %s, %s and %s in %s\n", scenarios.ReportFile, scenarios.ReportCSVFile, scenarios.ReportHTMLFile, args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "print only this on stdout, writing nothing: text (the review table), markdown (report.md) or csv (report.csv)")
	return cmd
}
