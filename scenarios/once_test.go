package scenarios

import (
	"strings"
	"testing"

	"vmbench/scenarios/review"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// TestCampaignParsesAndRendersOnce: a campaign checked (Check) and run
// (Run), as `campaign run` does, decodes its results directory's
// campaign.yaml once, parses each of its workload flag sets once (the
// file's and the simulate block's when checked, the recorded one when
// rendered) and renders its review once; `vmbench report DIR` renders
// its report.md, report.csv and report.html again byte for byte
// (reportBytes). The counters are the process's (spec.DecodeCount,
// workload.ParseCount, review.RenderCount): these tests do not run in
// parallel.
func TestCampaignParsesAndRendersOnce(t *testing.T) {
	text := strings.Replace(stubSpec, "simulate: {vms: {count: 3}}", "simulate: {vms: {count: 3}, workload: {flags: {threads: 2}}}", 1)
	decodes, parses, renders := spec.DecodeCount(), workload.ParseCount(), review.RenderCount()
	out, _, _, err := runStubSpec(t, t.Context(), &stubDriver{}, startSim(t), text)
	if err != nil {
		t.Fatal(err)
	}
	decodes, parses, renders = spec.DecodeCount()-decodes, workload.ParseCount()-parses, review.RenderCount()-renders
	// The file (runStubSpec's spec.Parse) and the results directory's
	// campaign.yaml, once each.
	if decodes != 2 {
		t.Errorf("%d files decoded, want 2: the campaign file and its results directory's campaign.yaml, once each", decodes)
	}
	// Checked: the file's flags and the simulate block's; rendered: the
	// flags campaign.yaml records.
	if parses != 3 {
		t.Errorf("%d workload flag sets parsed, want 3: the file's and the simulate block's (Check), the recorded ones (Render)", parses)
	}
	if renders != 1 {
		t.Errorf("the review was rendered %d times, want once", renders)
	}
	reportBytes(t, out.Dir)
}
