package spec

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStandardCampaignsParse(t *testing.T) {
	for _, tc := range []struct {
		file     string
		count    int
		simCount int
		driver   string
	}{
		{"sysbench-4vm.yaml", 4, 4, "mysql"},
		{"sysbench-8vm.yaml", 8, 8, "mysql"},
		{"sysbench-16vm.yaml", 16, 16, "mysql"},
		{"sysbench-pg-8vm.yaml", 8, 8, "postgres"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := Load(filepath.Join("..", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			// The published protocol (docs/methodology.md, sysbench).
			want := []string{"--rand-type=uniform", "--report-interval=60s", "--table-size=10000000", "--tables=100", "--threads=32", "--time=1h", "--warmup-time=2h"}
			if s.VMs.Count != tc.count || s.VMs.Role != "sysbench" || !slices.Equal(s.Workload.Args(), want) {
				t.Errorf("count %d role %s args %v; want %d sysbench %v", s.VMs.Count, s.VMs.Role, s.Workload.Args(), tc.count, want)
			}
			if s.Database.Driver != tc.driver {
				t.Errorf("database.driver %q, want %q", s.Database.Driver, tc.driver)
			}
			if len(s.VMs.Datastores) == 0 || tc.count%len(s.VMs.Datastores) != 0 {
				t.Errorf("%d VMs do not spread evenly over %d datastores", tc.count, len(s.VMs.Datastores))
			}
			sim := s.Simulated()
			args := strings.Join(sim.Workload.Args(), " ")
			for _, a := range []string{"--tables=4", "--table-size=10000", "--time=20s", "--warmup-time=5s"} {
				if !strings.Contains(args, a) {
					t.Errorf("simulated args %q lack %s", args, a)
				}
			}
			if sim.VMs.Count != tc.simCount || s.Workload.Flags["tables"] != 100 {
				t.Errorf("simulated count %d (want %d); Simulated() must not change the original (tables %v)", sim.VMs.Count, tc.simCount, s.Workload.Flags["tables"])
			}
		})
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	base := "name: x\nvms:\n  role: sysbench\n  count: 2\ndatabase:\n  driver: mysql\nworkload:\n  tool: sysbench\n  name: oltp_read_write\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown top-level key", base + "threads: 3\n", []string{"c.yaml", "line 10", "threads"}},
		{"unknown nested key", strings.Replace(base, "  count: 2\n", "  count: 2\n  cpus: 4\n", 1), []string{"line 5", "cpus"}},
		{"unknown simulate key", base + "simulate:\n  vm: {count: 2}\n", []string{"line 11", "vm"}},
		{"bad count", strings.Replace(base, "count: 2", "count: 0", 1), []string{"vms.count: 0"}},
		{"wrong type", strings.Replace(base, "count: 2", "count: many", 1), []string{"line 4", "many"}},
		{"bad duration", strings.Replace(base, "  count: 2\n", "  count: 2\n  ip-timeout: soon\n", 1), []string{"line 5", "soon", "not a duration"}},
		{"missing workload", strings.Replace(base, "  tool: sysbench\n", "", 1), []string{"workload: tool and name are required"}},
		{"bad on-ip-timeout", strings.Replace(base, "  count: 2\n", "  count: 2\n  on-ip-timeout: skip\n", 1),
			[]string{"c.yaml:5:", `vms.on-ip-timeout: "skip" is not valid (stop:`, "continue:"}},
		{"bad memory-reservation", strings.Replace(base, "  count: 2\n", "  count: 2\n  memory-reservation: half\n", 1),
			[]string{"c.yaml:5:", `vms.memory-reservation: "half" is not valid (full:`}},
		{"host listed twice", strings.Replace(base, "  count: 2\n", "  count: 2\n  hosts: [esx1, esx1]\n", 1), []string{"c.yaml:5:", `vms.hosts: host "esx1" is listed twice`}},
		{"empty host", strings.Replace(base, "  count: 2\n", "  count: 2\n  hosts: [\"\"]\n", 1), []string{"c.yaml:5:", "vms.hosts: an empty host name"}},
		{"latency high alone", strings.Replace(base, "  count: 2\n", "  count: 2\n  latency-sensitivity: high\n", 1), []string{"c.yaml:5:", "needs memory-reservation: full"}},
		{"huge datastore", base + "simulate:\n  datastore-gb: 8589934592\n", []string{"c.yaml:11:", "simulate.datastore-gb: 8589934592 is not valid"}},
		{"huge host memory", base + "simulate:\n  host-memory-gb: 9007199254740993\n", []string{"c.yaml:11:", "simulate.host-memory-gb"}},
		{"bad cores-per-socket type", strings.Replace(base, "  count: 2\n", "  count: 2\n  cores-per-socket: two\n", 1), []string{"line 5", "two"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(filepath.Join("dir", "c.yaml"), []byte(tc.yaml))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
