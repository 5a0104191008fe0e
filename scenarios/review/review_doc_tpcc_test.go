package review

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/rundir"
)

// writeTPCCDir writes a 2-VM TPC-C results directory into dir: the second
// VM measured one second longer, so that the merged window's tpmC is not
// the sum of the VMs'.
func writeTPCCDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "vms"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := tpccResult("sqlserver-01", 3152.9, 10), tpccResult("sqlserver-02", 3154.0, 11)
	b.End, b.Elapsed = b.End.Add(time.Second), b.Elapsed+time.Second
	merged, err := oltp.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*oltp.Result{a, b} {
		if err := r.WriteFile(filepath.Join(dir, "vms", r.Labels["vm"]+".json")); err != nil {
			t.Fatal(err)
		}
	}
	if err := merged.WriteFile(filepath.Join(dir, "merged.json")); err != nil {
		t.Fatal(err)
	}
	ri, err := json.Marshal(rundir.RunInfo{Version: rundir.RunInfoVersion, Kind: rundir.VMCampaignKind, VMBench: "fixture", Completed: true})
	if err != nil {
		t.Fatal(err)
	}
	spec := "name: sqlserver-2vm\nvms: {role: sqlserver, count: 2}\ndatabase: {driver: sqlserver}\n" +
		"workload: {tool: tpcc, name: tpcc, flags: {warehouses: 1500, terminals: 15000, conns: 200}}\n"
	for f, b := range map[string][]byte{rundir.RunFile: ri, "campaign.yaml": []byte(spec)} {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTPCCDocument: a TPC-C report labels its two tpmC figures side by
// side (the review table's published and exact rows, a headline table, the
// JSON figures), and shows tpcc's per-transaction table as an HTML table
// with a caption and scoped header cells, its counts the merged Result's;
// tpcc's text keeps the rest of its report.
func TestTPCCDocument(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sqlserver-2vm")
	writeTPCCDir(t, dir)
	rep, err := Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	rv := rep.Review
	if rv.Figures[0] == rv.MergedFigures[0] || rv.MergedFigures[0] == 0 {
		t.Fatalf("tpmC summed %v and merged %v: the fixture should make them differ", rv.Figures[0], rv.MergedFigures[0])
	}
	d, err := rep.Document()
	if err != nil {
		t.Fatal(err)
	}
	var page, md, js bytes.Buffer
	for _, w := range []func() error{func() error { return d.WriteHTML(&page) }, func() error { return d.WriteMarkdown(&md) }, func() error { return d.WriteJSON(&js) }} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	tables := htmlTables(page.String())
	if len(tables) != 3 {
		t.Fatalf("%d tables in the page, want the review table, the headline figures and the per-transaction table", len(tables))
	}
	sum, merged := num(rv.Figures[0]), num(rv.MergedFigures[0])
	exact := tables[0][len(tables[0])-1]
	if exact[0] != "aggregate, exact" || !strings.Contains(strings.Join(exact, "|"), merged) {
		t.Errorf("the review table's exact row %q lacks the merged window's tpmC %s", exact, merged)
	}
	head := tables[1]
	if strings.Join(head[0], "|") != "figure|sum of VMs, as published|merged window|merged vs sum (%)" ||
		head[1][0] != "tpmC" || head[1][1] != sum || head[1][2] != merged {
		t.Errorf("headline table %q: want tpmC %s (sum) beside %s (merged)", head, sum, merged)
	}
	for _, want := range []string{"tpmC (sum of VMs, as published)", "tpmC (merged window)"} {
		if !strings.Contains(js.String(), `"`+want+`"`) || !strings.Contains(md.String(), want) {
			t.Errorf("%q not in the JSON figures and report.md's notes", want)
		}
	}
	tx := tables[2]
	if tx[0][0] != "Transaction" || tx[0][4] != "p50 (ms)" || tx[1][0] != "new_order" || tx[1][1] != itoa64(rep.Review.merged.Op("new_order").Intended.Count) {
		t.Errorf("per-transaction table %q", tx)
	}
	html := page.String()
	for _, re := range []string{`<caption id="[^"]+">tpcc(&#39;|')s report of all VMs merged: per transaction`, `<th scope="col" class="num">p90 \(ms\)</th>`, `<th scope="row">new_order</th>`} {
		if !regexp.MustCompile(re).MatchString(html) {
			t.Errorf("the page has no %s", re)
		}
	}
	pre := html[strings.Index(html, "<pre>"):]
	if strings.Contains(pre, "p99.9") || !strings.Contains(pre, "tpmC: ") {
		t.Errorf("tpcc's text should keep its summary (tpmC) without the table:\n%.600s", pre)
	}
}
