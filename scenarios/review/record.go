package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/report"
	"vmbench/scenarios/rundir"
)

// This file is a review directory's record (review.json): what `review
// run` did with each campaign, written by the campaign engine as the
// review ends and read back here for the review's reports.

// RecordFile is the record of a review directory: the review file's
// name and, per campaign, its file, results directory and error.
const RecordFile = "review.json"

// Outcome is what a review run did (the campaign engine's RunReview),
// as its review directory's review.json records it: the review's name
// and, per campaign in the review file's order, what became of it.
type Outcome struct {
	// Dir is the review directory: a results directory per campaign in it,
	// review.yaml, review.json and the review's reports.
	Dir  string `json:"-"`
	Name string `json:"name"`
	// Interrupted says the review was interrupted (Ctrl-C): the campaigns
	// that did not run did not for that reason.
	Interrupted bool              `json:"interrupted,omitempty"`
	Campaigns   []CampaignOutcome `json:"campaigns"`
}

// CampaignOutcome is one campaign of a review as it ran.
type CampaignOutcome struct {
	File string `json:"file"`
	// Dir is its results directory, "" when it made none or removed it
	// (it measured nothing); a failed or interrupted campaign's is still
	// named .incomplete.
	Dir string `json:"dir,omitempty"`
	// Error is why it failed; "" when it completed. Interrupted says it
	// was interrupted (Ctrl-C) while it ran (Error then begins
	// "interrupted"). NotRun says it did not run: the review was
	// interrupted before (Outcome.Interrupted), or an earlier
	// campaign failed and on-failure is stop.
	Error       string `json:"error,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	NotRun      bool   `json:"not_run,omitempty"`
}

// Write writes o as review.json into its review directory, o.Dir,
// atomically. Its error is the file's (os and atomicfile errors).
func (o *Outcome) Write() error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(o.Dir, RecordFile), append(b, '\n'))
}

// WriteReviewReports writes review directory dir's report.html,
// report.md and report.csv (again) from its results and review.json:
// every campaign that left results, with a warning at the top for each
// that failed or did not run. Its errors are ReadInput's and the files'.
func WriteReviewReports(dir string) error {
	in, err := ReadInput(dir)
	if err != nil {
		return err
	}
	return WriteInputReports(in)
}

// WriteInputReports writes the reports of in, a review directory as
// ReadInput read it, into in.Dir, as WriteReviewReports does: for a caller
// that reads first, where Ctrl-C may end the reading, then writes.
func WriteInputReports(in *Input) error {
	files := map[string]func(*report.Document, *bytes.Buffer) error{
		ReportHTMLFile: func(d *report.Document, b *bytes.Buffer) error { return d.WriteHTML(b) },
		ReportFile:     func(d *report.Document, b *bytes.Buffer) error { return d.WriteMarkdown(b) },
		ReportCSVFile:  func(d *report.Document, b *bytes.Buffer) error { return d.WriteCSV(b) },
	}
	for name, write := range files {
		d, err := BuildDocument([]*Input{in}, DocumentOptions{Plain: name == ReportCSVFile})
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := write(d, &b); err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(in.Dir, name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// maxReviewRecordSize bounds review.json as readReviewRecord reads it: 1
// MiB. It holds a line or two per campaign (its file, directory and
// error): the six campaigns of review-full.yaml take about 1 KiB.
const maxReviewRecordSize = 1 << 20

// readReviewRecord reads a review directory's review.json: none is no
// record, nil (a directory of results directories); one that cannot be
// read (also one that is not a regular file of at most
// maxReviewRecordSize bytes) is an error naming it.
func readReviewRecord(dir string) (*Outcome, error) {
	path := filepath.Join(dir, RecordFile)
	b, err := boundedread.ReadFile(path, maxReviewRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec Outcome
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench review record (damaged?): %w", path, err)
	}
	return &rec, nil
}

// order is the position of a results directory in the review (the order
// its campaigns ran), after them the ones it does not list.
func (o *Outcome) order(name string) int {
	for i, c := range o.Campaigns {
		if c.Dir == name {
			return i
		}
	}
	return len(o.Campaigns)
}

// warnings are what a reader of the review dir must see first: its
// campaigns that failed or did not run, and results directories it
// lists that are gone.
func (o *Outcome) warnings(dir string) []string {
	var warn []string
	for _, c := range o.Campaigns {
		switch {
		case c.NotRun && o.Interrupted:
			warn = append(warn, fmt.Sprintf("Campaign %s did not run: the review was interrupted (Ctrl-C) %s.", c.File, o.interruptedWhen()))
		case c.NotRun:
			warn = append(warn, fmt.Sprintf("Campaign %s did not run: an earlier campaign failed and the review's on-failure is stop.", c.File))
		case c.Interrupted && c.Dir != "":
			warn = append(warn, fmt.Sprintf("Campaign %s was interrupted (Ctrl-C); its section shows what it measured until then, incomplete: %s.", c.File, interruptDetail(c.Error)))
		case c.Interrupted:
			warn = append(warn, fmt.Sprintf("Campaign %s was interrupted (Ctrl-C) before it measured anything: %s.", c.File, interruptDetail(c.Error)))
		case c.Error != "":
			warn = append(warn, fmt.Sprintf("Campaign %s failed: %s.", c.File, c.Error))
		}
		if c.Dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, c.Dir, rundir.RunFile)); err != nil {
			warn = append(warn, fmt.Sprintf("The results of campaign %s (%s), listed in %s, are gone.", c.File, c.Dir, RecordFile))
		}
	}
	return warn
}

// InterruptedPrefix begins the Error of a campaign the review's Ctrl-C
// interrupted (CampaignOutcome.Interrupted).
const InterruptedPrefix = "interrupted (Ctrl-C): "

// interruptDetail is an interrupted campaign's error without its
// InterruptedPrefix: the campaign's own.
func interruptDetail(msg string) string { return strings.TrimPrefix(msg, InterruptedPrefix) }

// interruptedWhen says when an interrupted review was interrupted:
// "during a.yaml" (the campaign that was running), "after a.yaml" (between
// campaigns), "before its first campaign".
func (o *Outcome) interruptedWhen() string {
	last := ""
	for _, c := range o.Campaigns {
		switch {
		case c.Interrupted:
			return "during " + c.File
		case !c.NotRun:
			last = c.File
		}
	}
	if last == "" {
		return "before its first campaign"
	}
	return "after " + last
}
