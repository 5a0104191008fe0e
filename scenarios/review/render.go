package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// ReportFile and ReportCSVFile are the reports of a results directory:
// the review as Markdown (with links to the data and charts) and its
// table as CSV.
const (
	ReportFile    = "report.md"
	ReportCSVFile = "report.csv"
)

// Report is the review of a results directory, built by Render from the
// files saved in it and nothing else (run.json, campaign.yaml or
// suite.yaml, the Results and records). A campaign writes its data files
// first and then its reports with WriteReports, the function `vmbench
// report DIR` calls, so a re-rendered report.md is the campaign's byte
// for byte.
type Report struct {
	// Dir is the results directory.
	Dir string
	// Info is its run.json.
	Info *rundir.RunInfo
	// Review is a VM campaign's review table; nil for a block suite.
	Review *Review
	suite  *suiteReview
	// tool is a VM campaign's workload as its campaign.yaml records it,
	// read and parsed once, by Render; zero for a block suite.
	tool recordedTool
}

// recordedTool is the workload campaign.yaml records: its tool's name
// (workload.tool) and its Config, parsed from the recorded name and flags
// (toolConfig).
type recordedTool struct {
	name string
	cfg  workload.Config
}

// renders counts Render's calls (RenderCount).
var renders atomic.Int64

// RenderCount is how many results directories this process has rendered
// (Render) so far: tests check with it that a campaign renders its
// review once. Nothing prints it.
func RenderCount() int64 { return renders.Load() }

// Render reads the results directory dir (of either kind, complete or
// .incomplete) and builds its Report. It writes nothing. Every error is
// about the directory: one that is not a results directory, a file
// missing or unreadable, a Result or record of a version this vmbench
// does not read (named with the file and the versions it reads).
func Render(dir string) (*Report, error) {
	renders.Add(1)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (give a campaign's results directory)", dir)
	}
	ri, err := rundir.ReadRunInfo(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noRunInfo(dir)
	}
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: dir, Info: ri}
	if ri.Kind == rundir.VMCampaignKind {
		rep.Review, rep.tool, err = renderVMs(dir, ri)
	} else {
		rep.suite, err = renderSuite(dir, ri)
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// loadRecorded reads the campaign.yaml a campaign wrote into its results
// directory, path: a regular file (not a symlink, a FIFO or a device) of
// at most MaxFileSize bytes (boundedread), decoded as Load does.
func loadRecorded(path string) (*spec.Campaign, error) {
	b, err := boundedread.ReadFile(path, spec.MaxFileSize)
	if err != nil {
		return nil, err
	}
	return spec.Parse(path, b)
}

// noRunInfo is the error for a directory without run.json.
func noRunInfo(dir string) error {
	for _, f := range []string{"campaign.yaml", "suite.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return fmt.Errorf("%s has %s but no %s: a vmbench older than 'vmbench report' wrote it, and what its report showed (version, simulation) is not saved", dir, f, rundir.RunFile)
		}
	}
	return fmt.Errorf("%s is not a vmbench results directory: it has no %s, campaign.yaml or suite.yaml", dir, rundir.RunFile)
}

// WriteReports renders dir (Render) and writes its report.md, report.csv
// and report.html into it, each atomically (WriteFiles). Campaigns call it once their data
// files are written; `vmbench report DIR` calls it again.
func WriteReports(dir string) (*Report, error) {
	rep, err := Render(dir)
	if err != nil {
		return nil, err
	}
	return rep, rep.WriteFiles()
}

// ErrReportsNotWritable is what WriteFiles's error wraps when the
// directory cannot take the reports (read-only, or a report's name taken
// by something other than a file); none of them is written then.
var ErrReportsNotWritable = errors.New("cannot write the reports")

// WriteFiles writes the report's report.md, report.csv and report.html
// into its directory, each atomically. It checks first that all can be
// written (checkWritable), so that a directory that cannot take them
// keeps the ones it has.
func (r *Report) WriteFiles() error {
	var md, csv, html bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		return err
	}
	if err := r.WriteCSV(&csv); err != nil {
		return err
	}
	doc, err := r.Document()
	if err != nil {
		return err
	}
	if err := doc.WriteHTML(&html); err != nil {
		return err
	}
	if err := checkWritable(r.Dir); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, ReportCSVFile), csv.Bytes()); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, ReportHTMLFile), html.Bytes()); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(r.Dir, ReportFile), md.Bytes())
}

// checkWritable says whether report.md, report.csv and report.html can
// all be written into dir: each is a regular file or absent, and a file
// can be created in dir. Its error wraps ErrReportsNotWritable and names the
// file or directory.
func checkWritable(dir string) error {
	for _, f := range []string{ReportFile, ReportCSVFile, ReportHTMLFile} {
		path := filepath.Join(dir, f)
		if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file (%s); no report was written", ErrReportsNotWritable, path, fi.Mode().Type())
		}
	}
	probe, err := os.CreateTemp(dir, ".report.probe*")
	if err != nil {
		//nolint:errorlint // the cause is shown, not matched: the error's contract is ErrReportsNotWritable
		return fmt.Errorf("%w into %s: it is not writable (%v); no report was written (--format prints one without writing)",
			ErrReportsNotWritable, dir, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// WriteText writes the review as the campaign prints it at the end: the
// table as aligned text, with its heading and notes; then, for a VM
// campaign whose run.json records it, the harness overhead table, as the
// campaign prints it after its teardown.
func (r *Report) WriteText(w io.Writer) error {
	if r.Review != nil {
		if err := r.Review.WriteText(w); err != nil || r.Info.Overhead == nil {
			return err
		}
		fmt.Fprintln(w)
		return r.overhead().writeText(w)
	}
	return r.suite.writeText(w)
}

// WriteMarkdown writes report.md: the review, then, for a VM campaign
// whose run.json records it, the section "Harness overhead".
func (r *Report) WriteMarkdown(w io.Writer) error {
	if r.Review != nil {
		if err := r.Review.WriteMarkdown(w); err != nil || r.Info.Overhead == nil {
			return err
		}
		fmt.Fprintln(w)
		return r.overhead().writeMarkdown(w)
	}
	return r.suite.writeMarkdown(w)
}

// overhead is run.json's overhead record, to render.
func (r *Report) overhead() overheadView { return overheadView{r.Info.Overhead} }

// WriteCSV writes report.csv: the review table alone, as CSV.
func (r *Report) WriteCSV(w io.Writer) error {
	if r.Review != nil {
		return r.Review.WriteCSV(w)
	}
	return r.suite.table(false).WriteCSV(w)
}
