package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCampaignPlan: plan exits 0 when the campaign fits, 1 with the
// shortfall when it does not, 2 for bad input; --format json is the
// plan's figures.
func TestCampaignPlan(t *testing.T) {
	fits := writeFile(t, "fits.yaml", tinyCampaign)
	code, out, errs := runCLI(t, nil, "campaign", "plan", fits, "--simulate")
	if code != 0 || !strings.Contains(out, "verdict: the campaign fits; nothing was created") || !strings.Contains(out, "LocalDS_1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}

	short := writeFile(t, "short.yaml", strings.Replace(tinyCampaign, "  datastores: 2\n", "  datastores: 2\n  datastore-gb: 700\n", 1))
	code, out, errs = runCLI(t, nil, "campaign", "plan", short, "--simulate")
	if code != 1 || !strings.Contains(out, "short by 77 GB") || !strings.Contains(errs, "campaign tiny does not fit: 2 problem(s), listed above") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = runCLI(t, nil, "campaign", "plan", short, "--simulate", "--format", "json")
	var plan struct {
		Fits      bool `json:"fits"`
		Preflight struct {
			Datastores []struct {
				Name   string `json:"name"`
				FreeGB int64  `json:"free_gb"`
				Thick  int64  `json:"thick_gb"`
				Swap   int64  `json:"swap_gb"`
			} `json:"datastores"`
		} `json:"preflight"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || code != 1 || plan.Fits || len(plan.Preflight.Datastores) != 2 ||
		plan.Preflight.Datastores[1].Thick != 717 || plan.Preflight.Datastores[1].Swap != 60 || plan.Preflight.Datastores[1].FreeGB != 700 {
		t.Fatalf("exit %d, %v: %+v\n%s\n%s", code, err, plan, out, errs)
	}

	for _, args := range [][]string{
		{"campaign", "plan", fits, "--simulate", "--format", "xml"},
		{"campaign", "plan", "no-such-file.yaml", "--simulate"},
		{"campaign", "plan", writeFile(t, "bad.yaml", strings.Replace(tinyCampaign, "count: 8}", "count: 8, memory-reservation: half}", 1)), "--simulate"},
	} {
		if code, _, errs := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errs)
		}
	}
}
