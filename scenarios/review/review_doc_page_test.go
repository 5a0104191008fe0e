package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vmbench/internal/textfmt"
	"vmbench/oltp"
	"vmbench/report"
	"vmbench/scenarios/rundir"
)

// pageHost is a host's facts as vSphere gives them (vsphere.HostFacts.Map).
var pageHost = map[string]string{"vendor": "Dell Inc.", "model": "PowerEdge R750", "sockets": "2", "cores": "56", "threads": "112",
	"cpu_model": "Intel(R) Xeon(R) Gold 6330", "cpu_mhz": "2000", "memory_gib": "1024", "product": "VMware ESXi 8.0.2 build-22380479"}

// writePageFixture writes c's results directory into dir, its run.json
// recording the harness overhead and its merged Result the host's facts.
func writePageFixture(t *testing.T, c fixtureCampaign, dir string) {
	t.Helper()
	writeFixture(t, c, dir)
	ri, err := rundir.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	ri.Overhead = sampleOverhead()
	b, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.RunFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	merged, err := oltp.ReadResultFile(filepath.Join(dir, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	merged.Hosts = map[string]map[string]string{"esx01": pageHost}
	if err := merged.WriteFile(filepath.Join(dir, "merged.json")); err != nil {
		t.Fatal(err)
	}
}

// writeManyVMs writes the results directory of an n-VM sysbench campaign
// (writePageFixture), each VM's TPS 1% from the next.
func writeManyVMs(t *testing.T, dir string, n int) {
	t.Helper()
	c := fixtureCampaign{name: filepath.Base(dir), yaml: fmt.Sprintf("name: %s\nvms: {role: sysbench, count: %d}\ndatabase: {driver: mysql}\n"+
		"workload: {tool: sysbench, name: oltp_read_write, flags: {threads: 32, tables: 100, table-size: 10000000}}\n", filepath.Base(dir), n)}
	for i := range n {
		c.tps, c.avgMs = append(c.tps, 1800*(1+0.01*float64(i))), append(c.avgMs, 17.5/(1+0.01*float64(i)))
	}
	writePageFixture(t, c, dir)
}

// denseCurves are a simulated 64K sequential write's curves (vmbench
// campaign run with curve 10-120%): the 90% to 120% points and the max
// run lie within 15% of each other in IOPS and latency, by the 100 µs
// line's name.
func denseCurves() []report.Curve {
	us := time.Microsecond
	return []report.Curve{
		{Name: "service time (all targets)", Points: []report.Point{
			{IOPS: 23982, Latency: 333 * us, Label: "max"}, {IOPS: 2421, Latency: 342 * us, Label: "10%"},
			{IOPS: 12054, Latency: 397 * us, Label: "50%"}, {IOPS: 17964, Latency: 330 * us, Label: "80%", Saturated: true},
			{IOPS: 21544, Latency: 262 * us, Label: "90%"}, {IOPS: 23798, Latency: 334 * us, Label: "100%"},
			{IOPS: 24845, Latency: 317 * us, Label: "110%", Saturated: true}, {IOPS: 21839, Latency: 363 * us, Label: "120%", Saturated: true}}},
		{Name: "from intended start", Points: []report.Point{
			{IOPS: 2421, Latency: 1200 * us, Label: "10%"}, {IOPS: 12054, Latency: 10 * time.Millisecond, Label: "50%"},
			{IOPS: 21544, Latency: 1250 * us, Label: "90%"}, {IOPS: 23798, Latency: 50 * time.Millisecond, Label: "100%"},
			{IOPS: 24845, Latency: 15 * time.Millisecond, Label: "110%", Saturated: true}, {IOPS: 21839, Latency: 160 * time.Millisecond, Label: "120%", Saturated: true}}},
	}
}

// TestCampaignPageShowsEachThingOnce: a campaign's report.html is headed
// once (no h2 repeating the h1), gives the host's facts once (as a fact,
// not again in the platform paragraph), sets the published aggregate row
// apart as report.md's bold does, and holds report.md's harness overhead
// table, the same cells under the same heading line.
func TestCampaignPageShowsEachThingOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sysbench-2vm")
	writePageFixture(t, fixtureCampaigns[0], dir)
	d := renderDocument(t, dir)
	var b bytes.Buffer
	if err := d.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	headed := regexp.MustCompile(`<h[12][^>]*>` + regexp.QuoteMeta(d.Title) + `</h[12]>`)
	if n := len(headed.FindAllString(page, -1)); n != 1 {
		t.Errorf("the title %q heads the page %d times, want once", d.Title, n)
	}
	if n := strings.Count(page, "PowerEdge R750, 2 sockets x 28 cores"); n != 1 {
		t.Errorf("the host's facts are on the page %d times, want once", n)
	}
	if !regexp.MustCompile(`<tr class="strong"><th scope="row">aggregate, published</th>`).MatchString(page) {
		t.Error("the published aggregate row is not set apart (class strong)")
	}
	o := sampleOverhead() // writePageFixture's
	caption := textfmt.Capitalize(overheadView{o}.heading())
	if !strings.Contains(page, ">"+html.EscapeString(caption)+"</caption>") {
		t.Errorf("no table captioned %q on the page", caption)
	}
	var header []string
	for _, c := range (overheadView{o}).table().Columns {
		header = append(header, c.Header)
	}
	want := append([][]string{header}, overheadView{o}.table().Rows...)
	found := false
	for _, tbl := range htmlTables(page) {
		found = found || sameCells(tbl, want) == ""
	}
	if !found {
		t.Errorf("the page has no table with the harness overhead's cells %q", want)
	}
}

// TestReviewFoldsIdenticalWarnings: a review whose campaigns were all
// simulated says so once, naming each campaign, not once per campaign.
func TestReviewFoldsIdenticalWarnings(t *testing.T) {
	rev := filepath.Join(t.TempDir(), "rev")
	var outcome Outcome
	outcome.Name = "rev"
	for _, c := range fixtureCampaigns[:2] {
		writeFixture(t, c, filepath.Join(rev, c.name))
		editFile(t, filepath.Join(rev, c.name, rundir.RunFile), `"completed": true`, `"completed": true, "simulated": true`)
		outcome.Campaigns = append(outcome.Campaigns, CampaignOutcome{File: c.name + ".yaml", Dir: c.name})
	}
	rec, err := json.Marshal(outcome)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rev, RecordFile), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := BuildDocument(readDirs(t, rev), DocumentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var simulated []string
	for _, w := range d.Warnings {
		if strings.Contains(w, "Simulated") {
			simulated = append(simulated, w)
		}
	}
	if len(simulated) != 1 || !strings.HasPrefix(simulated[0], "sysbench-2vm and sysbench-2vm-faster: Simulated: ") {
		t.Errorf("simulated warnings %q, want one naming sysbench-2vm and sysbench-2vm-faster", simulated)
	}
}

func TestJoinLabels(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"rev, a", "rev, b"}, "rev, a; rev, b"},
	} {
		if got := joinLabels(c.in); got != c.want {
			t.Errorf("joinLabels(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
