package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"vmbench/oltp"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/sysbench"
	"vmbench/tpcc"
	"vmbench/workload"
)

// review.Render reaches a VM campaign's tool through the registry. Until
// sysbench and tpcc register themselves (the workload contract), the
// tools of the stub campaign and of the standard campaign files are
// stand-ins here that parse the flags and run nothing; a tool registered
// already (by its package, or by a test file whose init runs first) wins.
func init() {
	standIn("stub", func(fs *pflag.FlagSet) { fs.Int("threads", 1, "threads") })
	standIn("sysbench", func(fs *pflag.FlagSet) { c := sysbench.DefaultConfig(); c.BindFlags(fs) })
	standIn("tpcc", func(fs *pflag.FlagSet) { c := tpcc.DefaultConfig(); c.BindFlags(fs) })
}

func standIn(name string, bind func(*pflag.FlagSet)) {
	if _, err := workload.Lookup(name); err != nil {
		workload.Register(renderStubTool{name, bind})
	}
}

// renderStubTool is the smallest tool review.Render can parse a campaign's
// flags with; it runs nothing.
type renderStubTool struct {
	name string
	bind func(*pflag.FlagSet)
}

func (t renderStubTool) Describe() workload.Descriptor { return workload.Descriptor{Name: t.name} }
func (t renderStubTool) NewConfig() workload.Config    { return &renderStubConfig{t.bind} }

type renderStubConfig struct{ bind func(*pflag.FlagSet) }

func (c *renderStubConfig) BindFlags(fs *pflag.FlagSet) { c.bind(fs) }
func (c *renderStubConfig) Complete(string, func(string) string, func(string) bool) error {
	return nil
}
func (c *renderStubConfig) Validate() error                             { return nil }
func (c *renderStubConfig) Bounds() oltp.RunConfig                      { return oltp.RunConfig{} }
func (c *renderStubConfig) Flags() map[string]string                    { return nil }
func (c *renderStubConfig) Prepare(context.Context, workload.Env) error { return nil }
func (c *renderStubConfig) Cleanup(context.Context, workload.Env) error { return nil }
func (c *renderStubConfig) Run(context.Context, workload.Env) (*workload.Output, error) {
	return nil, nil
}

// reportBytes reads dir's report.md, report.csv and report.html, removes them, renders
// dir again (review.WriteReports) and fails unless all come back byte for byte.
func reportBytes(t *testing.T, dir string) (md []byte) {
	t.Helper()
	files := []string{review.ReportFile, review.ReportCSVFile, review.ReportHTMLFile}
	want := make([][]byte, len(files))
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = b
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := review.WriteReports(dir); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Errorf("%s rendered again differs:\n--- campaign's\n%s\n--- rendered\n%s", f, want[i], got)
		}
	}
	return want[0]
}

// editFile replaces old with new in the file once, or fails.
func editFile(t *testing.T, path, old, repl string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), old, repl, 1)
	if s == string(b) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRenderVMCampaignByteForByte(t *testing.T) {
	out, _, err := runStub(t, t.Context(), &stubDriver{}, startSim(t))
	if err != nil {
		t.Fatal(err)
	}
	md := reportBytes(t, out.Dir)
	// The stub runs on the test's own vcsim, as --url gives one.
	for _, w := range []string{"# stub-campaign", "**Simulated: VMs on the vSphere at https://127.0.0.1:",
		"/sdk (given with --url), an embedded SQLite database per VM", "| sysbench-03 |"} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md lacks %q:\n%s", w, md)
		}
	}
	var text bytes.Buffer
	rep, err := review.Render(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "aggregate, published") {
		t.Errorf("text: %v\n%s", err, text.String())
	}

	// Stopped before the merge (run.json as written before the run): the
	// VMs' results, merged here, and said so.
	if err := os.Remove(filepath.Join(out.Dir, "merged.json")); err != nil {
		t.Fatal(err)
	}
	ri, err := rundir.ReadRunInfo(out.Dir)
	if err != nil || !ri.Completed {
		t.Fatalf("run.json of a complete campaign: %+v, %v; want completed", ri, err)
	}
	ri.Completed = false
	if err := rundir.WriteRunInfo(out.Dir, *ri); err != nil {
		t.Fatal(err)
	}
	editFile(t, filepath.Join(out.Dir, "vms", "sysbench-02.json"), `"phase"`, `"status": "interrupted", "interrupted": true, "phase"`)
	rep, err = review.WriteReports(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(out.Dir, review.ReportFile))
	want := "**Incomplete: the campaign stopped before it merged its results; 3 of 3 VMs' results, 2 complete, 1 interrupted, merged here (merged.json is missing)**."
	if !bytes.Contains(md, []byte(want)) || rep.Review.TPSSum != 60 {
		t.Errorf("report.md of an incomplete campaign (TPS %g) lacks %q:\n%s", rep.Review.TPSSum, want, md)
	}

	// A Result of a newer schema is refused, naming it and the versions read.
	res := filepath.Join(out.Dir, "vms", "sysbench-01.json")
	editFile(t, res, fmt.Sprintf(`"version": %d`, oltp.ResultVersion), `"version": 99`)
	_, err = review.Render(out.Dir)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s: result version 99 is not supported (this vmbench reads versions 1 to %d)", res, oltp.ResultVersion)) {
		t.Errorf("a newer Result: %v", err)
	}
}

// TestRenderRefusesAnEditedClientCost: merged.json's client cost must be
// the merge of the VM results'; VM files edited after the run (here: given
// client costs merged.json does not have) are refused.
func TestRenderRefusesAnEditedClientCost(t *testing.T) {
	out, _, err := runStub(t, t.Context(), &stubDriver{}, startSim(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := review.Render(out.Dir); err != nil {
		t.Fatalf("the unedited directory: %v", err)
	}
	for _, vm := range []string{"sysbench-01", "sysbench-02", "sysbench-03"} {
		path := filepath.Join(out.Dir, "vms", vm+".json")
		r, err := oltp.ReadResultFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r.Client = &oltp.ClientCost{Process: vm, Processes: 1, Cores: 2, UserCPU: time.Second, Start: r.Start, End: r.End}
		if err := r.WriteFile(path); err != nil {
			t.Fatal(err)
		}
	}
	_, err = review.Render(out.Dir)
	if err == nil || !strings.Contains(err.Error(), "merged.json: has no client cost, but the VM results merge to a") {
		t.Errorf("VM results with client costs merged.json lacks: %v", err)
	}
}
