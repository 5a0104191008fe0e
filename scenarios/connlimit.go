package scenarios

import (
	"vmbench/dialect"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// openFileLimit is the open files this process may have
// (dialect.ProcessFileLimit, RLIMIT_NOFILE); 0 when unknown. Tests lower
// it.
var openFileLimit = dialect.ProcessFileLimit

// connectionKeys are the workload flags that set the connections of a VM,
// in the order a refusal names them: sysbench's and tpcc's threads, then
// tpcc's conns and terminals.
var connectionKeys = []string{"threads", "conns", "terminals"}

// checkConnLimit refuses a campaign whose VMs' connections, all opened by
// this process when it drives every VM's workload (driver: harness), or
// one VM's by each simulated agent process (driver: guest), need more
// open files than the process may have: the run would fail at the connection
// that hits the limit, after the VMs were provisioned and their data
// loaded. cfg is the Config the campaign runs in env (simulated in a
// simulation); its Bounds().Threads is the connections of one VM. The
// error names the workload flag's file and line, the limit and the
// ulimit -n to give.
func checkConnLimit(cf *spec.Campaign, opts Options, env environment, cfg workload.Config) error {
	if cfg == nil {
		return nil
	}
	limit := openFileLimit()
	conns := cfg.Bounds().Threads
	vms := runSpec(cf, env).VMs.Count
	driver := campaignDriver(cf, env)
	if d, _ := driverName(cf, opts, env); d == spec.DriverGuest {
		// Each VM's agent is a process of its own; one in a local guest
		// inherits this process's limit (a real guest has its own, which
		// the agent meets there).
		need := dialect.FilesNeeded(driver, conns)
		if limit == 0 || conns <= 0 || need <= limit || !env.local() {
			return nil
		}
		at, key := connFlagPath(cf, env.simulated())
		return cf.Origin.Errorf(at, "%s: %d connections (%s) need about %d open files in each VM's agent process, but it may open %d (ulimit -n); raise the limit (ulimit -n %d) or use fewer %s",
			at, conns, driver, need, limit, need, key)
	}
	need := dialect.FilesNeeded(driver, vms*conns)
	if limit == 0 || conns <= 0 || need <= limit {
		return nil
	}
	at, key := connFlagPath(cf, env.simulated())
	return cf.Origin.Errorf(at, "%s: %d VMs x %d connections (%s) need about %d open files in this process, which drives every VM's workload, but it may open %d (ulimit -n); raise the limit (ulimit -n %d) or use fewer %s or VMs",
		at, vms, conns, driver, need, limit, need, key)
}

// campaignDriver is the driver of the VMs' databases in env: where they
// stand apart from the VMs, the --db-dsn server's or SQLite files';
// otherwise database.driver (MySQL when it does not parse: Check reports
// that itself).
func campaignDriver(cf *spec.Campaign, env environment) dialect.Driver {
	if !env.guestDatabases() {
		if s := env.server(); s != nil {
			return s.Driver
		}
		return dialect.SQLite
	}
	if d, err := dialect.ParseDriver(cf.Database.Driver); err == nil {
		return d
	}
	return dialect.MySQL
}

// connFlagPath returns the file path of the workload flag that sets the
// connections (the simulate block's first, in simulation) and its name;
// else the flags block the run's flags come from, and "threads".
func connFlagPath(cf *spec.Campaign, simulate bool) (path, key string) {
	type block struct {
		path  string
		flags map[string]any
	}
	blocks := []block{{"workload.flags", cf.Workload.Flags}}
	if sim := cf.Simulate; simulate && sim != nil && sim.Workload != nil {
		blocks = append([]block{{"simulate.workload.flags", sim.Workload.Flags}}, blocks...)
	}
	for _, b := range blocks {
		for _, k := range connectionKeys {
			if _, ok := b.flags[k]; ok {
				return b.path + "." + k, k
			}
		}
	}
	return blocks[0].path, "threads"
}
