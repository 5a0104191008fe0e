package scenarios

import (
	"context"
	"io"
	"net"
	"net/url"
	"time"

	"vmbench/oltp"
)

// DB is where one VM's database is: a server reached over the network
// (the VM's IP, or a local server in simulation) or an embedded SQLite
// file. It is the campaign's side of a workload's connection flags.
type DB struct {
	Driver     string // mysql or sqlite
	Host       string
	Port       int
	User       string
	Password   string // never written to results
	Database   string
	SQLitePath string
}

// String describes the database without its password.
func (d DB) String() string {
	if d.Driver == "sqlite" {
		return "sqlite " + d.SQLitePath
	}
	return d.Driver + " " + d.User + "@" + d.Host + ":" + itoa(d.Port) + "/" + d.Database
}

// ServerDSN names the server of a database on one (not SQLite) as
// --db-dsn takes it, without the password and the database:
// mysql://user@host:port/ or sqlserver://user@host:port.
func (d DB) ServerDSN() string {
	if d.Driver == "sqlite" {
		return ""
	}
	u := url.URL{Scheme: d.Driver, User: url.User(d.User), Host: net.JoinHostPort(d.Host, itoa(d.Port))}
	if d.Driver == "mysql" {
		u.Path = "/"
	}
	return u.String()
}

// RunHooks carries what a campaign adds to a workload run.
type RunHooks struct {
	StartAt    time.Time                   // common start of all VMs
	Labels     map[string]string           // vm, role, datastore
	OnInterval func(oltp.IntervalReport)   // called per report interval
	OnPhase    func(string, time.Duration) // called when a phase starts
}

// Driver runs one tool's workloads (sysbench today) for a campaign. The
// workload name and args are exactly what `vmbench <tool> <cmd> <name>`
// takes on the command line, so a campaign file and the CLI share one
// parser. cmd/vmbench implements it; tests may use any implementation.
type Driver interface {
	// Check parses args without touching anything and returns every
	// problem, naming the flag and what is valid.
	Check(workload string, args []string) error
	// CreateDatabase makes db's database and fails if it exists already,
	// so that a campaign only ever drops what it created (for SQLite: fails
	// if the file exists). DropDatabase removes it.
	CreateDatabase(ctx context.Context, db DB) error
	DropDatabase(ctx context.Context, db DB) error
	// Prepare loads the data, writing progress to w.
	Prepare(ctx context.Context, workload string, args []string, db DB, w io.Writer) error
	// Run runs the precondition and measure phases and returns the
	// measure phase's Result (with the precondition's inside it).
	Run(ctx context.Context, workload string, args []string, db DB, hooks RunHooks) (*oltp.Result, error)
	// Cleanup removes the workload's data.
	Cleanup(ctx context.Context, workload string, args []string, db DB) error
}
