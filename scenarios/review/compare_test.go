package review

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/report"
)

func readInputs(t *testing.T, names ...string) []*Input {
	t.Helper()
	dirs := make([]string, len(names))
	for i, n := range names {
		dirs[i] = fixtureDir(n)
	}
	return readDirs(t, dirs...)
}

// readDirs reads each directory as an input of a comparison (ReadInput).
func readDirs(t *testing.T, dirs ...string) []*Input {
	t.Helper()
	var ins []*Input
	for _, d := range dirs {
		in, err := ReadInput(d)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	return ins
}

// comparisonTable returns the cells of the first table of the document's
// first section, by figure.
func comparisonTable(t *testing.T, d *report.Document) map[string][]string {
	t.Helper()
	if len(d.Sections) == 0 || len(d.Sections[0].Tables) == 0 {
		t.Fatalf("no comparison table: %+v", d)
	}
	m := map[string][]string{}
	for _, r := range d.Sections[0].Tables[0].Table.Rows {
		m[r[0]] = r[1:]
	}
	return m
}

// TestCompareKnownDifference: sysbench-2vm-faster has 34.6% more TPS per
// VM than sysbench-2vm and 25% lower latencies; sysbench-2vm-16threads
// ran another protocol and is left out, the report says why.
func TestCompareKnownDifference(t *testing.T) {
	d, err := BuildDocument(readInputs(t, "sysbench-2vm", "sysbench-2vm-faster", "sysbench-2vm-16threads"), DocumentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := comparisonTable(t, d)
	for fig, want := range map[string][]string{
		"aggregate TPS":               {"7,300.0", "9,825.0", "+34.6"},
		"per-VM TPS min":              {"3,600.0", "4,845.0", "+34.6"},
		"avg latency, published (ms)": {"8.70", "6.52", "-25.0"},
	} {
		if got := rows[fig]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, want %q", fig, got, want)
		}
	}
	all := strings.Join(d.Warnings, "\n")
	for _, w := range []string{"sysbench-2vm-16threads's sysbench oltp_read_write was left out of the comparison with sysbench-2vm: it ran another protocol (threads 16, not 32).",
		"sysbench-2vm-faster: Client-bound"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if len(d.Sections) != 1 || len(d.Sections[0].Charts) != 2 {
		t.Errorf("want one section with the TPS and percentile charts, got %d sections", len(d.Sections))
	}
}

// TestCompareGolden: the comparison's Markdown and CSV (plain numbers),
// with the R750's published rows.
func TestCompareGolden(t *testing.T) {
	ins := readInputs(t, "sysbench-2vm", "sysbench-2vm-faster", "sysbench-2vm-16threads")
	ref, err := LookupReference("R750")
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []bool{false, true} {
		d, err := BuildDocument(ins, DocumentOptions{Reference: ref, Plain: plain})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		name := "compare.md.golden"
		if plain {
			err, name = d.WriteCSV(&b), "compare.csv.golden"
		} else {
			err = d.WriteMarkdown(&b)
		}
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", name), b.Bytes())
	}
}

func TestChange(t *testing.T) {
	for _, c := range []struct {
		base, v float64
		want    string
	}{{100, 134.6, "+34.6"}, {100, 88, "-12.0"}, {100, 100.04, "0.0"}, {100, 99.96, "0.0"}, {0, 5, "n/a"}} {
		if got := change(c.base, c.v); got != c.want {
			t.Errorf("change(%g, %g) = %q, want %q", c.base, c.v, got, c.want)
		}
	}
}

func TestLookupReference(t *testing.T) {
	r, err := LookupReference("r750")
	if err != nil || !strings.HasPrefix(r.Server, "PowerEdge R750") {
		t.Fatalf("r750: %v, %v", r, err)
	}
	// The published R750 8-VM sysbench row (docs/methodology.md).
	rows := r.rows(refSysbench)
	if len(rows) != 2 || rows[0].VMs != 8 || rows[0].Figures[0] != rate(figTPS, 29174) {
		t.Errorf("R750 sysbench rows %+v", rows)
	}
	for name, want := range map[string]string{"PowerEdge": "several published servers match", "R999": "no published server match", "": "several published servers match"} {
		if _, err := LookupReference(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LookupReference(%q): %v, want %q", name, err, want)
		}
	}
}

// TestSingleReportWithReference: a published row of the same VM count is
// compared figure by figure; rows of other VM counts are not the
// section's: the 2-VM fixture has none of its count, so the section says
// which counts were published and lists none of their rows.
func TestSingleReportWithReference(t *testing.T) {
	ref, err := LookupReference("R750")
	if err != nil {
		t.Fatal(err)
	}
	d, err := BuildDocument(readInputs(t, "sysbench-2vm"), DocumentOptions{Reference: ref})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(d.Sections[0].Text, "\n")
	if !strings.Contains(text, "PowerEdge R750 (2x Xeon 8380) has no published figures for sysbench oltp_read_write with 2 VMs, only with 8 and 16 VMs in ") ||
		strings.Contains(text, "Published by") || strings.Contains(text, "Not compared") {
		t.Errorf("section text:\n%s", text)
	}
	// Same VM count: a reference table with the change from published.
	ref8 := &Reference{Server: "test server", Rows: []ReferenceRow{{Test: refSysbench, VMs: 2, Config: "2 VMs", Figures: []report.Figure{rate(figTPS, 7300/1.25)}}}}
	d, err = BuildDocument(readInputs(t, "sysbench-2vm"), DocumentOptions{Reference: ref8})
	if err != nil {
		t.Fatal(err)
	}
	tbl := d.Sections[0].Tables[len(d.Sections[0].Tables)-1]
	if want := "aggregate TPS|5,840.0|7,300.0|+25.0"; !strings.HasPrefix(tbl.Caption, "Reference: test server") || strings.Join(tbl.Table.Rows[0], "|") != want {
		t.Errorf("reference table %q %q, want %q", tbl.Caption, tbl.Table.Rows, want)
	}
	// Same VM count, another protocol: shown, not compared.
	ref8.Rows[0].Protocol = map[string]string{"threads": "64", "tables": "100"}
	d, err = BuildDocument(readInputs(t, "sysbench-2vm"), DocumentOptions{Reference: ref8})
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(d.Sections[0].Text, "\n"); !strings.Contains(text, "Not compared: the published run's protocol differs: threads 32 here, 64 published.") {
		t.Errorf("section text:\n%s", text)
	}
	// No published row for the test: said so.
	d, err = BuildDocument(readInputs(t, "sysbench-2vm"), DocumentOptions{Reference: &Reference{Server: "other server", Source: "somewhere"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(d.Sections[0].Text, "\n"); !strings.Contains(text, "other server has no published figures for sysbench oltp_read_write in somewhere.") {
		t.Errorf("section text:\n%s", text)
	}
}

// TestCompareFormatsAgree: the comparison table's cells are the same in
// HTML, Markdown and CSV (plain numbers there).
func TestCompareFormatsAgree(t *testing.T) {
	ins := readInputs(t, "sysbench-2vm", "sysbench-2vm-faster")
	shown, err := BuildDocument(ins, DocumentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := BuildDocument(ins, DocumentOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	var page, md, csvText bytes.Buffer
	if err := shown.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if err := shown.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := plain.WriteCSV(&csvText); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(&csvText)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if recs[0][0] == "Warnings" { // the warnings' block (its title and one record each), then the first table's
		n := 1 + len(plain.Warnings)
		for _, s := range plain.Sections {
			n += len(s.Warnings)
		}
		recs = recs[n:]
	}
	inPage, inMD, inCSV := htmlTables(page.String())[0], markdownTable(md.String()), recs[1:]
	if len(inPage) != len(inMD) || len(inPage) > len(inCSV) {
		t.Fatalf("rows: page %d, markdown %d, csv %d", len(inPage), len(inMD), len(inCSV))
	}
	for i := range inPage {
		if strings.Join(inPage[i], "|") != strings.Join(inMD[i], "|") {
			t.Errorf("row %d: page %q, markdown %q", i, inPage[i], inMD[i])
		}
		for j := range inPage[i] {
			if !sameNumber(inPage[i][j], inCSV[i][j]) {
				t.Errorf("row %d cell %d: page %q, csv %q", i, j, inPage[i][j], inCSV[i][j])
			}
		}
	}
}

// TestDrawReferencePeaks: a single block suite's report with --reference
// redraws a profile's curve chart with the published peaks as points (its
// description says so); a profile without published figures keeps its
// chart.
func TestDrawReferencePeaks(t *testing.T) {
	ref := &Reference{Server: "test server", Rows: blockRows("8x drives", 1.5e6, 120, 6e5, 90, 12, 700, 6, 800)}
	eight := map[string]string{"target": "/dev/nvme0n1,/dev/nvme1n1,/dev/nvme2n1,/dev/nvme3n1,/dev/nvme4n1,/dev/nvme5n1,/dev/nvme6n1,/dev/nvme7n1"}
	curve := report.Curve{Name: "service time (all targets)", Points: []report.Point{{IOPS: 1000, Latency: 80 * time.Microsecond}, {IOPS: 9000, Latency: 900 * time.Microsecond}}}
	sec := &report.Section{Charts: []report.Chart{{Title: "4K random read", Alt: "curve", SVG: []byte("old")}, {Title: "other", Alt: "other", SVG: []byte("old")}}}
	for _, tf := range []testFigures{
		{key: "block 4k-random-read", title: "4K random read", curves: []report.Curve{curve}, protocol: eight, published: blockProtocol},
		{key: "block other", title: "other", curves: []report.Curve{curve}, protocol: eight, published: blockProtocol},
	} {
		if err := drawReferencePeaks(sec, ref, tf); err != nil {
			t.Fatal(err)
		}
	}
	got := sec.Charts[0]
	if string(got.SVG) == "old" || !strings.Contains(string(got.SVG), "published") || got.Alt != "curve, with test server's published peak(s) as points" {
		t.Errorf("redrawn chart: alt %q, svg has the published point: %v", got.Alt, strings.Contains(string(got.SVG), "published"))
	}
	if string(sec.Charts[1].SVG) != "old" {
		t.Error("a profile without published figures was redrawn")
	}
}

// TestBlockReferenceProtocol: a block test is compared with a published
// row only when it ran that row's protocol (as many drives, drives rather
// than temporary files, the profile's own threads); otherwise the report
// says what differs, and neither the table nor the chart's peak compares
// them. Either way the row is named with its profile and drives.
func TestBlockReferenceProtocol(t *testing.T) {
	ref := &Reference{Server: "test server", Source: "test", Rows: blockRows("2x NVMe", 1.5e6, 120, 6e5, 90, 12, 700, 6, 800)}
	for _, tc := range []struct {
		name  string
		flags map[string]string
		want  string // "" when compared
	}{
		{"the published protocol", map[string]string{"profile": "4k-random-read", "target": "/dev/nvme0n1,/dev/nvme1n1"}, ""},
		{"the profile's threads recorded", map[string]string{"profile": "4k-random-read", "target": "/dev/nvme0n1,/dev/nvme1n1", "threads": "0", "force": "false"}, ""},
		{"simulated", map[string]string{"target": "/tmp/a,/tmp/b", "temporary-targets": "true", "threads": "2"},
			"Not compared: the published run's protocol differs: targets temporary files here, drives published; threads 2 per target here, the profile's own per target published."},
		{"one drive", map[string]string{"target": "/dev/nvme0n1"}, "Not compared: the published run's protocol differs: drives 1 here, 2 published."},
		{"no targets recorded", map[string]string{}, "drives 0 here, 2 published"},
	} {
		tf := &testFigures{key: "block 4k-random-read", title: "4K random read", protocol: tc.flags, published: blockProtocol,
			figures: []report.Figure{{Name: "peak IOPS", Value: 1e6}}}
		sec := &report.Section{}
		addReference(sec, ref, []string{"here"}, []*testFigures{tf}, false)
		peaks := referencePeaks(ref, []*testFigures{tf})
		text := strings.Join(sec.Text, "\n")
		switch {
		case tc.want == "" && (len(sec.Tables) != 1 || len(peaks) != 1 || text != ""):
			t.Errorf("%s: %d tables, %d peaks, text %q; want it compared", tc.name, len(sec.Tables), len(peaks), text)
		case tc.want != "" && (len(sec.Tables) != 0 || len(peaks) != 0 || !strings.Contains(text, tc.want)):
			t.Errorf("%s: %d tables, %d peaks, text %q; want none and %q", tc.name, len(sec.Tables), len(peaks), text, tc.want)
		}
		// The suite's section holds the four corners' rows: each names
		// its profile.
		const named = "4K random read on 2x NVMe"
		if tc.want != "" && !strings.HasPrefix(text, "Published by test server for "+named+": ") {
			t.Errorf("%s: %q does not name the profile (%q)", tc.name, text, named)
		}
		if tc.want == "" && len(sec.Tables) == 1 && !strings.Contains(sec.Tables[0].Caption, named) {
			t.Errorf("%s: the reference table's caption %q does not name the profile (%q)", tc.name, sec.Tables[0].Caption, named)
		}
	}
}
