package scenarios

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"vmbench/dialect"
	"vmbench/internal/flagvalue"
	"vmbench/oltp"
	"vmbench/scenarios/live"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// A campaign reaches its workload through the workload contract alone:
// the tool from the registry, its flags parsed once into a typed Config,
// a copy of it per VM on that VM's database.

// checkTool looks up the campaign's tool and parses its workload flags
// once (workload.Parse): the file's, and in a simulation (env) the
// simulate block's too. It returns the Config the campaign runs (the
// simulated one in simulation) or every problem, each with the file and
// line.
func checkTool(cf *spec.Campaign, env environment) (workload.Config, error) {
	src := cf.Origin
	t, err := workload.Lookup(cf.Workload.Tool)
	var conn workload.Connector
	if err == nil {
		conn, _ = t.NewConfig().(workload.Connector)
	}
	if conn == nil {
		return nil, src.Errorf("workload.tool", "workload.tool: %q is not known (valid: %s)", cf.Workload.Tool, strings.Join(vmTools(), ", "))
	}
	var errs []error
	if d, err := dialect.ParseDriver(cf.Database.Driver); err == nil {
		if err := conn.Supports(d); err != nil {
			errs = append(errs, src.Errorf("database.driver", "database.driver: %w", err))
		}
	}
	if s := env.server(); s != nil {
		if err := conn.Supports(s.Driver); err != nil {
			errs = append(errs, fmt.Errorf("--db-dsn: %w", err))
		}
	}
	seen := map[string]bool{}
	cfg, err := parseWorkload(t, conn, cf, "workload.flags", cf.Workload, seen)
	errs = append(errs, err)
	if env.simulated() && cf.Simulate != nil && cf.Simulate.Workload != nil {
		cfg, err = parseWorkload(t, conn, cf, "simulate.workload.flags", cf.Simulated().Workload, seen)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cfg, nil
}

// vmTools names the registered tools a VM campaign runs: those with a
// database (Connector).
func vmTools() []string {
	var names []string
	for _, t := range workload.Tools() {
		if _, ok := t.NewConfig().(workload.Connector); ok {
			names = append(names, t.Describe().Name)
		}
	}
	return names
}

// parseWorkload parses one set of workload flags (path names them in the
// file: workload.flags or simulate.workload.flags), refusing the
// connection flags, and refuses a run that would never end. A problem of
// one flag names the line of its key where it is written (a simulated
// run's flags come from both blocks); seen holds the problems already
// reported, so that the simulated flags do not report a key of
// workload.flags again.
func parseWorkload(t workload.Tool, conn workload.Connector, cf *spec.Campaign, path string, w spec.Workload, seen map[string]bool) (workload.Config, error) {
	src := cf.Origin
	flags := make(map[string]string, len(w.Flags))
	keys := map[string]string{} // flag name: the path of its key in the file
	for k, v := range w.Flags {
		at := flagOrigin(cf, path, k)
		flags[k], keys[flagvalue.Name(k)] = fmt.Sprint(v), at+"."+k
		if n := flagNode(src, at, k); n != nil && n.Kind == yaml.ScalarNode {
			flags[k] = n.Value // as written: no float round trip
		}
	}
	cfg, err := workload.Parse(t, w.Name, flags, nil, conn.ConnectionFlags())
	var errs []error
	for _, e := range workload.Unjoin(err) {
		at := keys[errorFlag(e)]
		where := at
		if at == "" {
			at, where = path, "workload flags"
		}
		if id := where + "\x00" + e.Error(); !seen[id] {
			seen[id] = true
			errs = append(errs, src.Errorf(at, "%s (%s %s): %w", at, cf.Workload.Tool, w.Name, e))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := workload.CheckEnds(cfg); err != nil {
		at := path
		for _, k := range []string{"time", "max-time", "events"} {
			if src.Line(path+"."+k) > src.Line(path) {
				at = path + "." + k
				break
			}
		}
		return nil, src.Errorf(at, "%s: %v", path, err)
	}
	return cfg, nil
}

// errorFlag is the flag a workload error is about: a *FlagError's first,
// or the name of a message that starts "--name:" or "--name=", as the
// workloads' Validate words them; "" when none.
func errorFlag(e error) string {
	var fe *workload.FlagError
	if errors.As(e, &fe) && len(fe.Flags) > 0 {
		return fe.Flags[0]
	}
	msg, ok := strings.CutPrefix(e.Error(), "--")
	if i := strings.IndexAny(msg, ":= "); ok && i > 0 {
		return msg[:i]
	}
	return ""
}

// flagOrigin is the block that sets flag key k of the flags at path: the
// simulate block when it holds k, else workload.flags.
func flagOrigin(cf *spec.Campaign, path, k string) string {
	if path == "simulate.workload.flags" && cf.Simulate != nil && cf.Simulate.Workload != nil {
		if _, ok := cf.Simulate.Workload.Flags[k]; ok {
			return path
		}
	}
	return "workload.flags"
}

// flagNode is the value of key k in the flags mapping at block, or nil.
func flagNode(src spec.Origin, block, k string) *yaml.Node {
	m := src.Value(block)
	for i := 0; m != nil && m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	return nil
}

// recordedFlags are the flags campaign.yaml records for cfg: its recorded
// flags (workload.TypedFlags: every option that shapes the run, as
// parsed, numbers of the flag's own type) without the connection flags,
// which the campaign sets per VM.
func recordedFlags(cfg workload.Config) map[string]any {
	flags := workload.TypedFlags(cfg)
	if conn, ok := cfg.(workload.Connector); ok {
		for _, n := range conn.ConnectionFlags() {
			delete(flags, n)
		}
	}
	return flags
}

// vmConfig returns the campaign's Config on one VM's database: a copy,
// SetDatabase, validated again.
func (c *campaign) vmConfig(db dialect.Config) (workload.Config, error) {
	cfg := c.cfg.(workload.Connector).Clone()
	cfg.(workload.Connector).SetDatabase(db)
	return cfg, cfg.Validate()
}

// vmObserver passes one VM's interval ticks to the live view and, for the
// first VM, phase changes to phase.
type vmObserver struct {
	live  *live.View
	vm    int
	phase func(oltp.Phase, time.Duration)
}

func (o vmObserver) Phase(p oltp.Phase, d time.Duration) {
	if o.phase != nil {
		o.phase(p, d)
	}
}

func (o vmObserver) Interval(r oltp.IntervalReport) { o.live.Add(o.vm, r) }

// describeDB describes a VM's database without its password.
func describeDB(d dialect.Config) string {
	if d.Driver == dialect.SQLite {
		return "sqlite " + d.SQLitePath
	}
	return string(d.Driver) + " " + d.User + "@" + d.Host + ":" + itoa(d.Port) + "/" + d.Database
}

// serverDSN names the server of a database on one (not SQLite) as
// --db-dsn takes it, without the password and the database:
// mysql://user@host:port/, postgres://user@host:port/ (with its sslmode,
// if set) or sqlserver://user@host:port.
func serverDSN(d dialect.Config) string {
	if d.Driver == dialect.SQLite {
		return ""
	}
	u := url.URL{Scheme: string(d.Driver), User: url.User(d.User), Host: net.JoinHostPort(d.Host, itoa(d.Port))}
	switch d.Driver {
	case dialect.MySQL:
		u.Path = "/"
	case dialect.Postgres:
		u.Path = "/"
		if m := d.Params["sslmode"]; m != "" {
			u.RawQuery = "sslmode=" + url.QueryEscape(m)
		}
	default: // SQL Server's URL has no database path
	}
	return u.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
