package review

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/report"
)

// chromiumBinary finds a headless-capable Chromium: $VMBENCH_CHROMIUM,
// else chromium (Debian's package, which make test installs when it is
// missing and runs as root), chromium-browser or google-chrome on PATH.
// The test is skipped, saying so, when there is none.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VMBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (chromium, chromium-browser, google-chrome or $VMBENCH_CHROMIUM): the HTML report is not checked in a browser; install Debian's chromium package (make test does when root)")
	return ""
}

// runChromium runs Chromium headless on the page with args and returns
// its stdout and stderr (console messages included).
func runChromium(t *testing.T, bin, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errOut.String())
	}
	return out.String(), errOut.String()
}

var (
	consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)
	chartFigure = regexp.MustCompile(`(?s)<figure class="chart".*?</figure>`)
)

// jsonTables are the tables of a Document's JSON (WriteJSON), header
// row first, in document order; a number cell as its JSON text, null as
// "".
func jsonTables(t *testing.T, d *report.Document) [][][]string {
	t.Helper()
	var b bytes.Buffer
	if err := d.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sections []struct {
			Tables []struct {
				Table struct {
					Columns []string `json:"columns"`
					Rows    [][]any  `json:"rows"`
				} `json:"table"`
			} `json:"tables"`
		} `json:"sections"`
	}
	dec := json.NewDecoder(&b)
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var out [][][]string
	for _, s := range doc.Sections {
		for _, tb := range s.Tables {
			rows := [][]string{tb.Table.Columns}
			for _, r := range tb.Table.Rows {
				cells := make([]string, len(r))
				for i, c := range r {
					switch v := c.(type) {
					case string:
						cells[i] = v
					case json.Number:
						cells[i] = v.String()
					case nil:
					default:
						t.Fatalf("JSON cell %v is %T, not a string, number or null", c, c)
					}
				}
				rows = append(rows, cells)
			}
			out = append(out, rows)
		}
	}
	return out
}

// sameCells reports where the page's table and the JSON's differ, cell
// by cell (sameNumber); "" when they agree.
func sameCells(page, js [][]string) string {
	if len(page) != len(js) {
		return fmt.Sprintf("%d rows in the page, %d in the JSON", len(page), len(js))
	}
	for i := range page {
		if len(page[i]) != len(js[i]) {
			return fmt.Sprintf("row %d: %q in the page, %q in the JSON", i, page[i], js[i])
		}
		for j := range page[i] {
			if !sameNumber(page[i][j], js[i][j]) {
				return fmt.Sprintf("row %d cell %d: %q in the page, %q in the JSON", i, j, page[i][j], js[i][j])
			}
		}
	}
	return ""
}

// checkInBrowser loads the document's HTML in headless Chromium: no
// console message (the page has no script, and its Content-Security-
// Policy reports any load as one), every chart present with drawn paths
// and text, the tables' cells those of the JSON, nothing wider than the
// printed page (fitsPrintWidth) nor, on a 1280 px screen, a table or
// text wider than its box or two texts of a chart overlapping
// (fitsScreen), and a screenshot and a PDF print on each of papers
// (printOn) written to the test's artifact directory (go test -artifacts
// keeps them).
func checkInBrowser(t *testing.T, bin, name string, d *report.Document, papers ...paper) {
	t.Helper()
	dir := t.ArtifactDir()
	page := filepath.Join(dir, name+".html")
	var b bytes.Buffer
	if err := d.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, logs := runChromium(t, bin, page, "--dump-dom")
	if msgs := consoleLine.FindAllString(logs, -1); len(msgs) > 0 {
		t.Errorf("%s: console messages:\n%s", name, strings.Join(msgs, "\n"))
	}
	charts := 0
	for _, s := range d.Sections {
		charts += len(s.Charts)
	}
	figs := chartFigure.FindAllString(dom, -1)
	if len(figs) != charts || charts == 0 {
		t.Errorf("%s: %d charts in the page, want %d (and at least one)", name, len(figs), charts)
	}
	for i, f := range figs {
		if !strings.Contains(f, "<svg") || !regexp.MustCompile(`<path[^>]* d="M[^"]+L`).MatchString(f) || !strings.Contains(f, "<text") {
			t.Errorf("%s: chart %d is empty (no svg, drawn line or text):\n%.500s", name, i, f)
		}
	}
	got, want := htmlTables(dom), jsonTables(t, d)
	if len(got) != len(want) {
		t.Fatalf("%s: %d tables in the page, %d in the JSON", name, len(got), len(want))
	}
	for i := range want {
		if diff := sameCells(got[i], want[i]); diff != "" {
			t.Errorf("%s: table %d: %s", name, i, diff)
		}
	}
	shot := filepath.Join(dir, name+".png")
	runChromium(t, bin, page, "--window-size=1200,3000", "--hide-scrollbars", "--screenshot="+shot)
	if b, err := os.ReadFile(shot); err != nil || len(b) < 10000 || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("%s: %s: %v (%d bytes)", name, shot, err, len(b))
	}
	for _, paper := range papers {
		printOn(t, bin, name, b.String(), paper)
	}
	fitsPrintWidth(t, bin, name, b.String(), a4) // the narrower paper: what fits A4 fits Letter
	fitsScreen(t, bin, name, b.String())
	t.Logf("%s: screenshot %s", name, shot)
}

// paper is a paper size the page must print on: its CSS @page size and
// its width and height in PostScript points (a PDF's MediaBox).
type paper struct {
	name, css     string
	width, height float64
}

var (
	a4     = paper{"a4", "A4", 595.28, 841.89}
	letter = paper{"letter", "letter", 612, 792}
)

var (
	pdfPage     = regexp.MustCompile(`/Type\s*/Page[^s]`)
	pdfMediaBox = regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]`)
)

// printOn prints page (the report's HTML) in Chromium on paper, its size
// forced by an @page rule added to a copy, into <name>-<paper>.pdf in the
// artifact directory, and checks the PDF has pages, every one of that
// size. What it cannot check (no script runs in the page): that no table
// or chart is wider than the printable width; the print style sets tables
// and charts to at most that width.
func printOn(t *testing.T, bin, name, page string, p paper) {
	t.Helper()
	dir := t.ArtifactDir()
	src := filepath.Join(dir, name+"-"+p.name+".html")
	sized := strings.Replace(page, "</head>", "<style>@page { size: "+p.css+"; }</style>\n</head>", 1)
	if err := os.WriteFile(src, []byte(sized), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+"-"+p.name+".pdf")
	runChromium(t, bin, src, "--no-pdf-header-footer", "--print-to-pdf="+out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	pages := len(pdfPage.FindAll(b, -1))
	boxes := pdfMediaBox.FindAllSubmatch(b, -1)
	if pages == 0 || len(boxes) == 0 {
		t.Fatalf("%s on %s: %d pages, %d media boxes in %s", name, p.name, pages, len(boxes), out)
	}
	for _, m := range boxes {
		w, _ := strconv.ParseFloat(string(m[1]), 64)
		h, _ := strconv.ParseFloat(string(m[2]), 64)
		if math.Abs(w-p.width) > 1 || math.Abs(h-p.height) > 1 {
			t.Errorf("%s on %s: a page of %.2f x %.2f pt, want %.2f x %.2f", name, p.name, w, h, p.width, p.height)
		}
	}
	t.Logf("%s on %s: %d pages (%s)", name, p.name, pages, out)
}

// renderDocument renders the results directory dir's Document.
func renderDocument(t *testing.T, dir string) *report.Document {
	t.Helper()
	rep, err := Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := rep.Document()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReportInBrowser renders a VM campaign's report (2 VMs, and 16 with
// the harness overhead and the host's facts), a TPC-C campaign's (tpcc's
// own report), a comparison with a reference, a block suite's report and
// a latency chart whose last points crowd together, and checks each in
// headless Chromium (checkInBrowser).
func TestReportInBrowser(t *testing.T) {
	bin := chromiumBinary(t)
	t.Run("campaign", func(t *testing.T) {
		checkInBrowser(t, bin, "campaign", renderDocument(t, fixtureDir("sysbench-2vm-faster")), a4)
	})
	t.Run("16 VMs", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "sysbench-16vm")
		writeManyVMs(t, dir, 16)
		checkInBrowser(t, bin, "16vms", renderDocument(t, dir))
	})
	t.Run("tpcc", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "sqlserver-2vm")
		writeTPCCDir(t, dir)
		checkInBrowser(t, bin, "tpcc", renderDocument(t, dir))
	})
	t.Run("dense curve", func(t *testing.T) {
		c, err := curveChart("64K sequential write", denseCurves())
		if err != nil {
			t.Fatal(err)
		}
		d := &report.Document{Title: "Dense curve", Sections: []report.Section{{ID: "dense", Heading: "64K sequential write", Charts: []report.Chart{*c}}}}
		checkInBrowser(t, bin, "dense", d)
	})
	t.Run("comparison", func(t *testing.T) {
		ref, err := LookupReference("R750")
		if err != nil {
			t.Fatal(err)
		}
		d, err := BuildDocument(readInputs(t, "sysbench-2vm", "sysbench-2vm-faster"), DocumentOptions{Reference: ref})
		if err != nil {
			t.Fatal(err)
		}
		checkInBrowser(t, bin, "comparison", d, a4, letter) // the widest tables
	})
	t.Run("suite", func(t *testing.T) {
		checkInBrowser(t, bin, "suite", renderDocument(t, writeSuiteDir(t, oneProfileSuite)), letter)
	})
}
