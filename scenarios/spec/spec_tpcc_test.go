package spec

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
)

func TestTPCCCampaignsParse(t *testing.T) {
	for _, tc := range []struct {
		file, driver string
		count        int
		conns        string
	}{
		{"sqlserver-4vm.yaml", "sqlserver", 4, "200"},
		{"sqlserver-8vm.yaml", "sqlserver", 8, "200"},
		{"mysql-tpcc-8vm.yaml", "mysql", 8, "100"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := Load(filepath.Join("..", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			// The published protocol (docs/methodology.md, SQL Server).
			want := []string{"--conns=" + tc.conns, "--report-interval=60s", "--terminals=15000", "--time=30m",
				"--wait-scale=0.23", "--warehouses=1500", "--warmup-time=2h30m"}
			if s.VMs.Count != tc.count || s.VMs.Role != "sqlserver" || s.Database.Driver != tc.driver ||
				s.Workload.Tool != "tpcc" || !slices.Equal(s.Workload.Args(), want) {
				t.Errorf("count %d role %s driver %s tool %s args %v; want %d sqlserver %s tpcc %v",
					s.VMs.Count, s.VMs.Role, s.Database.Driver, s.Workload.Tool, s.Workload.Args(), tc.count, tc.driver, want)
			}
			if len(s.VMs.Datastores) == 0 || tc.count%len(s.VMs.Datastores) != 0 {
				t.Errorf("%d VMs do not spread evenly over %d datastores", tc.count, len(s.VMs.Datastores))
			}
			// The wait scale must give the published ~3,150 TPS per VM with
			// 15,000 terminals: the deck's mean keying + think time per
			// transaction is 476/23 s (TPC-C 5.2.5), plus about 1 ms of
			// response time.
			scale, ok := s.Workload.Flags["wait-scale"].(float64)
			if !ok {
				t.Fatalf("wait-scale %v is not a number", s.Workload.Flags["wait-scale"])
			}
			tps := 15000 / (476.0/23*scale + 0.001)
			if math.Abs(tps-3150) > 0.01*3150 {
				t.Errorf("wait-scale %g gives %.0f TPS per VM, want 3,150 within 1%%", scale, tps)
			}
		})
	}
}
