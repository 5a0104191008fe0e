package review

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/report"
	"vmbench/scenarios/rundir"
)

// TestReportGoldenFromResults renders report.md and report.csv of the
// committed results directories (testdata/results) and compares them with
// their golden files.
func TestReportGoldenFromResults(t *testing.T) {
	for _, c := range fixtureCampaigns {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Render(fixtureDir(c.name))
			if err != nil {
				t.Fatal(err)
			}
			var md, csv bytes.Buffer
			if err := rep.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteCSV(&csv); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "report-"+c.name+".md.golden"), md.Bytes())
			golden.Check(t, filepath.Join("testdata", "report-"+c.name+".csv.golden"), csv.Bytes())
		})
	}
}

var (
	htmlTable = regexp.MustCompile(`(?s)<table>.*?</table>`)
	htmlRow   = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	htmlCell  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
)

// htmlTables returns the cells of each table of an HTML page, header row
// first, unescaped.
func htmlTables(page string) [][][]string {
	var out [][][]string
	for _, t := range htmlTable.FindAllString(page, -1) {
		var rows [][]string
		for _, r := range htmlRow.FindAllStringSubmatch(t, -1) {
			var cells []string
			for _, c := range htmlCell.FindAllStringSubmatch(r[1], -1) {
				cells = append(cells, html.UnescapeString(c[1]))
			}
			rows = append(rows, cells)
		}
		out = append(out, rows)
	}
	return out
}

// markdownTable returns the cells of the first Markdown table of md,
// header row first, without the alignment row, emphasis or escapes.
func markdownTable(md string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "|-") {
			continue // the alignment row
		}
		if !strings.HasPrefix(l, "| ") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(strings.Trim(strings.TrimSpace(c), "*"), `\|`, "|")
		}
		rows = append(rows, cells)
	}
	return rows
}

// sameNumber reports whether a cell as shown (grouped, or signed:
// "+34.6") and as in CSV or JSON (plain) are the same figure, or the same
// text when not numbers; a shown cell that is no number ("–", "n/a") is
// empty in plain form.
func sameNumber(shown, plain string) bool {
	if shown == plain {
		return true
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(shown, ",", ""), 64); err != nil && plain == "" {
		return true
	}
	a, errA := strconv.ParseFloat(strings.ReplaceAll(shown, ",", ""), 64)
	b, errB := strconv.ParseFloat(plain, 64)
	return errA == nil && errB == nil && a == b && strings.Count(shown, ".") == strings.Count(plain, ".")
}

// TestReportFormatsAgree: the review table's every cell is the same in
// report.html, report.md, report.csv and the JSON (CSV and JSON plain,
// the others grouped), and the JSON's aggregate figures are the numbers
// the page shows. A block suite's is checked by checkFormatsAgree in
// TestRenderSuiteByteForByte, on the suite it runs.
func TestReportFormatsAgree(t *testing.T) {
	for _, c := range fixtureCampaigns {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Render(fixtureDir(c.name))
			if err != nil {
				t.Fatal(err)
			}
			_, js, inPage := checkFormatsAgree(t, rep)
			checkJSONFigures(t, js, inPage)
		})
	}
}

// checkFormatsAgree checks that rep's review table (the first table of
// each form) has the same cells in its page, report.md (whose extra last
// column of links is left out), report.csv (plain numbers) and JSON
// (numbers, null for none); it returns the document, its JSON and the
// page's table, header row first.
func checkFormatsAgree(t *testing.T, rep *Report) (*report.Document, []byte, [][]string) {
	t.Helper()
	doc, err := rep.Document()
	if err != nil {
		t.Fatal(err)
	}
	var page, md, csvText, js bytes.Buffer
	for _, w := range []func() error{func() error { return doc.WriteHTML(&page) }, func() error { return rep.WriteMarkdown(&md) },
		func() error { return rep.WriteCSV(&csvText) }, func() error { return doc.WriteJSON(&js) }} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	tables := htmlTables(page.String())
	if len(tables) == 0 {
		t.Fatalf("no table in the page:\n%s", page.String())
	}
	inPage, inMD := tables[0], markdownTable(md.String())
	inCSV, err := csv.NewReader(&csvText).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(inPage) != len(inMD) || len(inPage) != len(inCSV) {
		t.Fatalf("rows: page %d, report.md %d, report.csv %d", len(inPage), len(inMD), len(inCSV))
	}
	for i := range inPage {
		if n := len(inPage[i]); len(inMD[i]) < n || strings.Join(inPage[i], "|") != strings.Join(inMD[i][:n], "|") {
			t.Errorf("row %d: page %q, report.md %q", i, inPage[i], inMD[i])
		}
		for j := range inPage[i] {
			if j >= len(inCSV[i]) || !sameNumber(inPage[i][j], inCSV[i][j]) {
				t.Errorf("row %d cell %d: page %q, report.csv %q", i, j, inPage[i][j], inCSV[i])
			}
		}
	}
	if diff := sameCells(inPage, jsonTables(t, doc)[0]); diff != "" {
		t.Errorf("page and JSON: %s", diff)
	}
	return doc, js.Bytes(), inPage
}

// checkJSONFigures checks that the JSON's tps_sum and published latencies
// are the page's "aggregate, published" row.
func checkJSONFigures(t *testing.T, js []byte, rows [][]string) {
	t.Helper()
	f := firstFigures(t, js)
	var pub []string
	for _, r := range rows {
		if r[0] == "aggregate, published" {
			pub = r
		}
	}
	want := []string{report.Grouped(f["tps_sum"], 1), f2(f["avg_published_ms"]), f2(f["p95_published_ms"]), f2(f["p99_published_ms"])}
	if pub == nil || strings.Join(pub[2:6], "|") != strings.Join(want, "|") {
		t.Errorf("page's published row %q, JSON figures %q", pub, want)
	}
}

// firstFigures are the figures of the first section of a Document's
// JSON.
func firstFigures(t *testing.T, js []byte) map[string]float64 {
	t.Helper()
	var d struct {
		Sections []struct {
			Figures map[string]float64 `json:"figures"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(js, &d); err != nil || len(d.Sections) == 0 {
		t.Fatalf("JSON sections: %v", err)
	}
	return d.Sections[0].Figures
}

// TestDocumentWarnsIncomplete: a campaign that stopped before it merged
// (no merged.json, run.json not completed) is reported with what it has,
// and the page says it is incomplete at the top.
func TestDocumentWarnsIncomplete(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sysbench-2vm.incomplete")
	writeFixture(t, fixtureCampaigns[0], dir)
	if err := os.Remove(filepath.Join(dir, "merged.json")); err != nil {
		t.Fatal(err)
	}
	editFile(t, filepath.Join(dir, rundir.RunFile), `"completed": true`, `"completed": false`)
	var page bytes.Buffer
	if err := renderDocument(t, dir).WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	warn := `<p class="warning" role="alert"><strong>Warning:</strong> Incomplete: the campaign stopped before it merged its results`
	if !strings.Contains(page.String(), warn) || strings.Index(page.String(), warn) > strings.Index(page.String(), "<table") {
		t.Errorf("the page does not say first that it is incomplete:\n%.2000s", page.String())
	}
}
