package deps

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowed lists, per package, the vmbench packages it may import
// (directly or not), as docs/architecture.md says. A package not listed here
// fails the test, so a new package must declare its place. Only non-test
// imports are checked (go list's Deps), so any package's tests may use the
// test helpers internal/testdb and internal/golden.
var allowed = map[string][]string{
	"vmbench/oltp/hist":              {},
	"vmbench/oltp":                   {"vmbench/oltp/hist", "vmbench/internal/boundedread", "vmbench/internal/atomicfile"},
	"vmbench/dialect":                {"vmbench/internal/textfmt"},
	"vmbench/sysbench":               {"vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/internal/flagvalue", "vmbench/internal/progress", "vmbench/report", "vmbench/workload", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},
	"vmbench/tpcc":                   {"vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/internal/flagvalue", "vmbench/internal/progress", "vmbench/report", "vmbench/workload", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},
	"vmbench/internal/flagvalue":     {},
	"vmbench/internal/progress":      {},
	"vmbench/internal/textfmt":       {},
	"vmbench/internal/atomicfile":    {},
	"vmbench/internal/boundedread":   {},
	"vmbench/vdbench":                {"vmbench/vdbench/parmfile", "vmbench/vdbench/blockio", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/internal/flagvalue", "vmbench/internal/progress", "vmbench/workload", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},
	"vmbench/vsphere":                {"vmbench/vsphere/guest", "vmbench/target", "vmbench/internal/boundedread"},
	"vmbench/vsphere/guest":          {"vmbench/target", "vmbench/internal/boundedread"},
	"vmbench/workload":               {"vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/flagvalue", "vmbench/internal/atomicfile"},
	"vmbench/scenarios":              {"vmbench/scenarios/spec", "vmbench/scenarios/rundir", "vmbench/scenarios/review", "vmbench/scenarios/dataset", "vmbench/scenarios/vmdriver", "vmbench/scenarios/teardown", "vmbench/scenarios/live", "vmbench/scenarios/blocksuite", "vmbench/internal/flagvalue", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/vsphere", "vmbench/vsphere/guest", "vmbench/workload", "vmbench/dialect", "vmbench/report", "vmbench/agent", "vmbench/target", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile", "vmbench/internal/guestimage"},
	"vmbench/scenarios/blocksuite":   {"vmbench/scenarios/spec", "vmbench/scenarios/rundir", "vmbench/scenarios/review", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/flagvalue", "vmbench/internal/atomicfile"},                                                                  // a block suite on this host's drives: the suite file (spec), its results directory (rundir) and review; no vSphere, not the engine
	"vmbench/scenarios/dataset":      {"vmbench/scenarios/spec", "vmbench/scenarios/rundir", "vmbench/vsphere", "vmbench/vsphere/guest", "vmbench/target", "vmbench/internal/flagvalue", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},                                // pre-built data sets: spec (the data: block) and rundir (the data key), the workload contract and dialect (loading, copying, checking the data), vsphere for the data vDisk on the datastores (and what it brings: guest, target); no agent, not the engine
	"vmbench/scenarios/rundir":       {"vmbench/scenarios/spec", "vmbench/internal/flagvalue", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},                                                                                                                          // the results directory's records: spec (the file kinds and placement it records), oltp's Results and what the workload contract brings; no vSphere
	"vmbench/scenarios/review":       {"vmbench/scenarios/spec", "vmbench/scenarios/rundir", "vmbench/internal/flagvalue", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},                                                                                              // reads and renders what a campaign saved: spec and rundir (its files), the tools' review columns and records through the workload contract; no vSphere, no agent, not the engine
	"vmbench/scenarios/vmdriver":     {"vmbench/scenarios/spec", "vmbench/agent", "vmbench/target", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/flagvalue", "vmbench/internal/atomicfile"},                                                                                       // where each VM's workload runs: here, or in its guest through the agent (the agent's files, the targets); the guests are opened by the engine: no vSphere
	"vmbench/scenarios/teardown":     {"vmbench/internal/guestimage", "vmbench/scenarios/spec", "vmbench/scenarios/rundir", "vmbench/vsphere", "vmbench/vsphere/guest", "vmbench/target", "vmbench/internal/flagvalue", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"}, // the cleanup of what a campaign left (campaign teardown, vsphere gc): rundir's manifest and lock, vsphere to destroy the VMs (and what it brings: guest, target), the workload contract and dialect to drop the databases; not the engine
	"vmbench/scenarios/live":         {"vmbench/scenarios/review", "vmbench/scenarios/spec", "vmbench/scenarios/rundir", "vmbench/internal/flagvalue", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},                                                                  // the live per-interval table across VMs during a run: oltp's interval reports, report's units, review's retries and errors (and what review brings); no vSphere, not the engine
	"vmbench/scenarios/spec":         {"vmbench/internal/flagvalue", "vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},                                                                                                                                                    // the workload registry and what it brings: no vSphere, no tool, no other scenarios package
	"vmbench/report":                 {"vmbench/oltp", "vmbench/oltp/hist", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},
	"vmbench/internal/testdb":        {},
	"vmbench/internal/golden":        {},
	"vmbench/internal/fakesql":       {},
	"vmbench/internal/deps":          {},
	"vmbench/target":                 {"vmbench/internal/boundedread"},
	"vmbench/agent":                  {"vmbench/workload", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/dialect", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/flagvalue", "vmbench/internal/atomicfile"}, // report: through workload's review interfaces
	"vmbench/internal/sshtest":       {},
	"vmbench/internal/containertest": {"vmbench/internal/guestimage", "vmbench/internal/golden"},
	"vmbench/internal/guestimage":    {},
	"vmbench/cmd/vmbench":            nil, // everything

	// vdbench's parts. parmfile: files in, typed values out, and nothing of
	// vmbench (no engine, no workload contract, no vSphere). blockio: the
	// engine, on parmfile's Runs, the driver core and report's formats (no
	// workload contract, no dialect, no vSphere). blocktest: test support
	// that blockio's own tests import, so never blockio or vdbench.
	"vmbench/vdbench/parmfile":           {},
	"vmbench/vdbench/blockio":            {"vmbench/vdbench/parmfile", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/report", "vmbench/internal/boundedread", "vmbench/internal/textfmt", "vmbench/internal/atomicfile"},
	"vmbench/vdbench/internal/blocktest": {"vmbench/vdbench/parmfile", "vmbench/oltp", "vmbench/oltp/hist", "vmbench/internal/boundedread", "vmbench/internal/atomicfile"},
}

// forbiddenExternal lists outside packages a package must never pull in:
// the driver core stays SQL-free and vSphere-free.
var forbiddenExternal = map[string][]string{
	"vmbench/oltp":      {"database/sql", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "github.com/vmware/govmomi"},
	"vmbench/oltp/hist": {"database/sql", "github.com/vmware/govmomi"},
	"vmbench/dialect":   {"github.com/vmware/govmomi"},
	"vmbench/sysbench":  {"github.com/vmware/govmomi"},
	"vmbench/tpcc":      {"github.com/vmware/govmomi"},
	// vdbench implements the workload contract, whose Connector names
	// dialect.Config: it links the SQL drivers but never opens a database.
	"vmbench/vdbench": {"github.com/vmware/govmomi"},
	"vmbench/vsphere": {"database/sql"},
	// The agent runs in a guest: it never talks to vSphere (and reaches the
	// tools through the workload contract only, as allowed says).
	"vmbench/agent":  {"github.com/vmware/govmomi"},
	"vmbench/target": {"database/sql", "github.com/vmware/govmomi"},
	"vmbench/report": {"database/sql", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "github.com/microsoft/go-mssqldb", "github.com/vmware/govmomi"},
	// spec reads files and runs nothing (the SQL drivers come in with
	// workload's dialect.Config, as vdbench's do).
	"vmbench/scenarios/spec": {"github.com/vmware/govmomi"},
	// rundir reads and writes files: no vSphere (the engine converts its
	// values into the records).
	"vmbench/scenarios/rundir": {"github.com/vmware/govmomi"},
	// review renders saved results: no vSphere (the engine's tests pin
	// the vSphere values it names: counters, the block-worker layout).
	"vmbench/scenarios/review": {"github.com/vmware/govmomi"},
	// vmdriver drives guests through package target: the engine opens
	// them, and knows what a VM is in vSphere.
	"vmbench/scenarios/vmdriver": {"github.com/vmware/govmomi"},
	// blocksuite runs on this host's drives: no vSphere.
	"vmbench/scenarios/blocksuite": {"github.com/vmware/govmomi"},
	// live prints interval reports: no vSphere.
	"vmbench/scenarios/live": {"github.com/vmware/govmomi"},
	// vdbench's parameter-file format and its engine open no database
	// (vdbench's SQL drivers come in with the workload contract).
	"vmbench/vdbench/parmfile": {"database/sql", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "github.com/microsoft/go-mssqldb", "github.com/vmware/govmomi"},
	"vmbench/vdbench/blockio":  {"database/sql", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "github.com/microsoft/go-mssqldb", "github.com/vmware/govmomi"},
}

type pkg struct {
	ImportPath string
	Deps       []string
	Imports    []string
}

// signalOwners may import os/signal: only the command decides how the
// process stops (library packages take a context).
var signalOwners = []string{"vmbench/cmd/vmbench"}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-json", "vmbench/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		allow, ok := allowed[p.ImportPath]
		if !ok {
			t.Errorf("%s is not in the import rules; add it to allowed (then run %s)", p.ImportPath, architectureCommand)
			continue
		}
		if slices.Contains(p.Imports, "os/signal") && !slices.Contains(signalOwners, p.ImportPath) {
			t.Errorf("%s imports os/signal; only %v may (take a context.Context)", p.ImportPath, signalOwners)
		}
		for _, d := range p.Deps {
			if allow != nil && strings.HasPrefix(d, "vmbench/") && !slices.Contains(allow, d) {
				t.Errorf("%s imports %s, which the import rules do not allow (allowed: %v)", p.ImportPath, d, allow)
			}
			for _, f := range forbiddenExternal[p.ImportPath] {
				if d == f || (strings.Contains(f, ".") && strings.HasPrefix(d, f+"/")) { // a module and its packages; database/sql exactly
					t.Errorf("%s depends on %s, which it must never import", p.ImportPath, d)
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("go list reported only %d packages", seen)
	}
}
