package vsphere

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// simSession starts a vcsim inventory and a logged-in session on it; both
// are closed when the test ends.
func simSession(t *testing.T, opts SimOptions) (*Simulator, *Session) {
	t.Helper()
	s, sim, err := StartSimulatedSession(context.Background(), opts, nil)
	if err != nil {
		t.Fatalf("StartSimulatedSession: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return sim, s
}

// startSimulator starts a one-datastore vcsim, closed when the test ends.
func startSimulator(t *testing.T) *Simulator {
	t.Helper()
	sim, err := StartSimulator(t.Context(), SimOptions{Datastores: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// nothingLeft fails the test when a VM of campaign is left and, unless
// before is nil, when the inventory's VM names are not before.
func nothingLeft(t *testing.T, s *Session, campaign string, before []string) {
	t.Helper()
	if left, _ := s.List(context.Background(), campaign); len(left) != 0 {
		t.Fatalf("left behind: %+v", left)
	}
	if before == nil {
		return
	}
	if after := allVMNames(t, s); !slices.Equal(after, before) {
		t.Fatalf("inventory changed: %v -> %v", before, after)
	}
}

var campaignSeq atomic.Int64

// testSpec is a simulated ProvisionSpec with a fresh campaign id.
func testSpec(t *testing.T, role string, count int, datastores []string) ProvisionSpec {
	t.Helper()
	l, err := LayoutFor(role)
	if err != nil {
		t.Fatal(err)
	}
	return ProvisionSpec{
		CampaignID:  fmt.Sprintf("test-%d", campaignSeq.Add(1)),
		Layout:      l,
		Count:       count,
		Template:    SimTemplate,
		Datastores:  datastores,
		PowerOn:     true,
		SimulatedIP: "127.0.0.1",
		IPTimeout:   10 * time.Second,
	}
}

// vmCount returns every VM name of the datacenter (templates included).
func allVMNames(t *testing.T, s *Session) []string {
	t.Helper()
	seen, _, err := s.vmNames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// logf collects progress lines into the test log.
func logf(t *testing.T) func(string) {
	return func(m string) { t.Log(m) }
}

func mustContain(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error containing %q, got nil", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
