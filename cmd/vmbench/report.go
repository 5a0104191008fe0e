package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"vmbench/internal/atomicfile"
	"vmbench/report"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
)

func init() { registerGroup(newReportCmd) }

// reportFormats are the renderings --format prints of one results
// directory, each a writer of the Report: its review as text, report.md,
// report.csv, report.html, or the derived figures as JSON.
var reportFormats = map[string]func(*review.Report, io.Writer) error{
	"text":     (*review.Report).WriteText,
	"markdown": (*review.Report).WriteMarkdown,
	"md":       (*review.Report).WriteMarkdown,
	"csv":      (*review.Report).WriteCSV,
	"html":     documentWriter((*report.Document).WriteHTML),
	"json":     documentWriter((*report.Document).WriteJSON),
}

// docFormats are the renderings of a comparison, a review directory or a
// report with --reference: a report.Document's.
var docFormats = map[string]func(*report.Document, io.Writer) error{
	"html":     (*report.Document).WriteHTML,
	"md":       (*report.Document).WriteMarkdown,
	"markdown": (*report.Document).WriteMarkdown,
	"csv":      (*report.Document).WriteCSV,
	"json":     (*report.Document).WriteJSON,
}

// reportFormatNames lists the valid --format values for messages.
const reportFormatNames = "html, md (or markdown), csv, json, text"

// documentWriter writes a Report's Document (Report.Document) with write.
func documentWriter(write func(*report.Document, io.Writer) error) func(*review.Report, io.Writer) error {
	return func(r *review.Report, w io.Writer) error {
		d, err := r.Document()
		if err != nil {
			return err
		}
		return write(d, w)
	}
}

const reportLong = `Render the reports of results directories from the files saved in them,
without running anything.

One results directory DIR: its report.md (the review as Markdown, with links to
the data and charts), report.csv (the review table) and report.html (a
self-contained page: no script, nothing loaded from the network, charts as
inline SVG, printable on A4 and Letter: warnings first, then the review table,
TPS over time per VM and summed across precondition and measurement, latency by
percentile, tpcc's per-transaction report with tpmC, NOPM and the audit, or each
block profile's latency-vs-IOPS curve with the 100 µs and 1 ms lines), each
written atomically, and the review table printed as the campaign printed it.
Every figure in them comes from one computation over the Results.

DIR is a VM campaign's (run.json, campaign.yaml, vms/<vm>.json, merged.json) or
a block suite's (run.json, suite.yaml, <profile>.json per profile). Campaigns
write their reports with the same code, so a report.md rendered again is the
campaign's byte for byte. Results are read through their schema version: a
Result or record written by a newer vmbench is refused, naming the file and
the versions this vmbench reads. A directory still named .incomplete (a
campaign stopped by a failure or Ctrl-C) is rendered with the results it
holds, and its report says it is incomplete.

With --format, the rendering named is printed on stdout and nothing is
written, so a read-only directory can be reported; without it, the reports
are written (checked first, so a directory that cannot take them all keeps the
ones it has) and the text table printed.

Several DIRs (results directories, or review directories holding one per
campaign): a comparison that lays the same tests side by side, each figure with
its change from the first DIR ("34.6% higher"), and the curves of all inputs on
one chart. A test that ran another protocol (other workload flags, another
block profile definition) than the first DIR's is left out, and the report
says which and why. A review directory alone gets a section per campaign.
These are printed on stdout as Markdown (--format html, csv or json for
another form) or written to --output (its form from its extension).

--reference NAME adds the published figures of a seed review's server
(docs/methodology.md's tables: R7415, R750, 1124US, SR665, R6525) to each test
they are rows of, labelled as published, with each figure's change from them,
when the test ran the published protocol (the workload flags; for the block
suite as many drives, drives rather than temporary files, the profiles' own
threads); otherwise the report says what differs.

A directory that is not a results directory, whose files do not read or do not
agree (a VM's result missing, copied or renamed, an elapsed time that is not its
start to end, merged.json or campaign.yaml's vms.count not matching vms/,
merged.json missing from a campaign that completed), that measured nothing (no
measure-phase result, no block profile's results), or that cannot take the
reports, is bad input (exit status 2), and its reports are left as they are. So
are a directory given twice (also through a symlink), a review directory given
with one of its own campaigns, several DIRs with no test in common (nothing to
compare), and an --output that is a directory or lies inside an input
directory (its files would be replaced): nothing is written then. So are a file
of DIR that is not a regular file (a FIFO, a device, a symlink) or is larger
than its bound (384 MiB for a Result or a block profile's record), refused
unread, and a Result whose histogram counts are not its own (another HDR
geometry; a minimum, maximum, mean or count that disagrees with its exact
figures). Ctrl-C or SIGTERM ends report (exit status 130), writing nothing.`

func newReportCmd(a *app) *cobra.Command {
	var format, ref, output string
	cmd := &cobra.Command{
		Use:   "report DIR [DIR...]",
		Short: "Render a results directory's reports (Markdown, CSV, HTML), or compare several",
		Long:  reportLong,
		Example: `  vmbench report results/sysbench-8vm-20260102T150405Z-a1b2

  # the review table as CSV on stdout, writing nothing
  vmbench report results/vdbench-suite-20260102T150405Z-c3d4 --format csv

  # Gen3 against Gen4 drives, as one HTML page with the R750's published rows
  vmbench report results/gen3 results/gen4 --reference R750 --output gen3-vs-gen4.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s: takes DIR [DIR...] (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" {
				if err := checkOutput(output, args); err != nil {
					return err
				}
			}
			if !cmd.Flags().Changed("format") && output != "" {
				format = strings.TrimPrefix(filepath.Ext(output), ".")
			}
			if _, ok := reportFormats[format]; !ok && !cmd.Flags().Changed("format") {
				return usagef("--output %s: its extension %q is not a report format (valid: %s); give --format", output, filepath.Ext(output), reportFormatNames)
			} else if !ok {
				return usagef("--format: %q is not a format (valid: %s)", format, reportFormatNames)
			}
			ctx := cmd.Context()
			if err := checkNotRunning(ctx, args); err != nil {
				return err
			}
			_, isRun := os.Stat(filepath.Join(args[0], rundir.RunFile))
			_, isReview := os.Stat(filepath.Join(args[0], review.RecordFile))
			if len(args) == 1 && ref == "" && output == "" && !cmd.Flags().Changed("format") && isReview == nil {
				return writeReviewReports(ctx, a, args[0])
			}
			if len(args) > 1 || ref != "" || output != "" || errors.Is(isRun, os.ErrNotExist) {
				if !cmd.Flags().Changed("format") && output == "" {
					format = "md" // readable on a terminal; --output or --format html for the page
				}
				return runDocument(ctx, a, args, format, ref, output)
			}
			return runOneReport(ctx, a, cmd, args[0], format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "print only this on stdout, writing nothing: "+reportFormatNames+" (one DIR: text, its review table; several DIRs or --reference: html, md, csv or json, md on stdout unless given)")
	cmd.Flags().StringVar(&ref, "reference", "", "add a seed review's published figures (a server: R7415, R750, 1124US, SR665, R6525)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the report to this file (the format from --format, else from its extension) instead of stdout")
	return cmd
}

// checkNotRunning refuses a directory of dirs that a running campaign
// holds (scenarios.Running), until ctx ends.
func checkNotRunning(ctx context.Context, dirs []string) error {
	_, err := untilInterrupted(ctx, func() (struct{}, error) {
		for _, d := range dirs {
			if pid, running := rundir.Running(d); running {
				return struct{}{}, usagef("%s is being written by a running campaign (pid %s): report it once the campaign has ended (its report is written then)", d, pid)
			}
		}
		return struct{}{}, nil
	})
	return err
}

// writeReviewReports writes a review directory's reports again, as review
// run writes them, once it is read (until ctx ends).
func writeReviewReports(ctx context.Context, a *app, dir string) error {
	in, err := untilInterrupted(ctx, func() (*review.Input, error) {
		in, err := review.ReadInput(dir)
		return in, asUsage(err)
	})
	if err != nil {
		return err
	}
	if err := review.WriteInputReports(in); err != nil {
		return asUsage(err)
	}
	fmt.Fprintf(a.stderr, "wrote report.html, report.md and report.csv in %s\n", dir)
	return nil
}

// runOneReport renders one results directory: the rendering format on
// stdout with --format, else its reports written and the text printed.
// Reading ends when ctx does.
func runOneReport(ctx context.Context, a *app, cmd *cobra.Command, dir, format string) error {
	rep, err := untilInterrupted(ctx, func() (*review.Report, error) {
		rep, err := review.Render(dir)
		return rep, asUsage(err)
	})
	if err != nil {
		return err
	}
	write := reportFormats[format]
	if cmd.Flags().Changed("format") {
		return write(rep, a.stdout) // printed only: the directory may be read-only
	}
	if err := rep.WriteFiles(); errors.Is(err, review.ErrReportsNotWritable) {
		return asUsage(err)
	} else if err != nil {
		return err
	}
	if err := write(rep, a.stdout); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "wrote %s, %s and %s in %s\n", review.ReportFile, review.ReportCSVFile, review.ReportHTMLFile, dir)
	return nil
}

// runDocument renders dirs as one document (review.BuildDocument): a
// comparison, a review directory, or a report with a reference. Reading
// ends when ctx does.
func runDocument(ctx context.Context, a *app, dirs []string, format, refName, output string) error {
	write, ok := docFormats[format]
	if !ok {
		return usagef("--format: %q is not a format for several DIRs, a review directory, --reference or --output (valid: html, md, csv, json)", format)
	}
	var opts review.DocumentOptions
	if refName != "" {
		ref, err := review.LookupReference(refName)
		if err != nil {
			return usagef("%v", err)
		}
		opts.Reference = ref
	}
	opts.Plain = format == "csv"
	inputs, err := untilInterrupted(ctx, func() ([]*review.Input, error) {
		inputs := make([]*review.Input, len(dirs))
		for i, d := range dirs {
			in, err := review.ReadInput(d)
			if err != nil {
				return nil, asUsage(err)
			}
			inputs[i] = in
		}
		return inputs, nil
	})
	if err != nil {
		return err
	}
	if err := distinctInputs(inputs); err != nil {
		return err
	}
	doc, err := review.BuildDocument(inputs, opts)
	if err != nil {
		return asUsage(err)
	}
	if len(inputs) > 1 && len(doc.Sections) == 0 {
		// nothing to compare: the warnings say why each test was left out
		return usagef("nothing to compare:\n  %s", strings.Join(doc.Warnings, "\n  "))
	}
	var b bytes.Buffer
	if err := write(doc, &b); err != nil {
		return err
	}
	if output == "" {
		_, err := a.stdout.Write(b.Bytes())
		return err
	}
	if err := atomicfile.Write(output, b.Bytes()); err != nil { // a full disk leaves the old file, not half a new one
		return outputError(output, err)
	}
	fmt.Fprintf(a.stderr, "wrote %s\n", output)
	return nil
}
