// Command vmbench runs server-review benchmark campaigns: sysbench- and
// TPC-C-like OLTP drivers, a vdbench-style block suite, and vSphere
// provisioning of the VMs they run in.
//
// This file is the only place that touches os.Args, signals and os.Exit.
// Every command group lives in its own file (sysbench.go, vsphere.go,
// campaign.go) and receives the process state through *app.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/spf13/cobra"
)

// version is the vmbench version --version prints and the results
// record: the one -ldflags "-X main.version=..." sets (make build: git
// describe), else the one the build information Go embeds names
// (versionFrom).
var version string

func init() {
	bi, ok := debug.ReadBuildInfo()
	version = versionFrom(version, bi, ok)
}

// app holds the process-global state that commands may use: standard
// streams, the environment and whether stderr is a terminal. Library
// packages never reach for os.* themselves; commands pass these down.
type app struct {
	stdout   io.Writer
	stderr   io.Writer
	getenv   func(string) string
	terminal bool // stderr is an interactive terminal (progress redraws in place)
}

// usageError marks an error caused by the user's input (a flag, a file, a
// value). main prints it and exits with status 2; nothing has been created
// when one is returned.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// asUsage wraps err as a usageError (nil stays nil).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitCode maps an error returned by a command to the process exit status:
// 0 success, 2 bad input, 130 interrupted, 1 anything else.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.Is(err, context.Canceled):
		return 130
	default:
		return 1
	}
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "vmbench",
		Short: "Server-review benchmark campaigns: OLTP, block suite and vSphere provisioning",
		Long: `vmbench runs the benchmark protocol of published server reviews end to end:
it provisions database VMs on vSphere, loads and runs sysbench- and TPC-C-style
OLTP workloads in them against MySQL/MariaDB, PostgreSQL, SQL Server or SQLite,
and aggregates TPS, average and 99th-percentile latency the way reviews publish
them. Each part also runs on its own.

Run it from the repository with 'go run ./cmd/vmbench ...', or build it with
'make build', which puts the binary in bin/vmbench.`,
		Example: `  # the whole 8-VM sysbench campaign, simulated (vcsim + embedded SQLite)
  vmbench campaign run scenarios/sysbench-8vm.yaml --simulate

  # sysbench oltp_read_write against a local MariaDB
  vmbench sysbench prepare --mysql-user root --tables 4 --table-size 10000
  vmbench sysbench run oltp_read_write --mysql-user root --tables 4 --threads 8 --time 30

  # the same against a local PostgreSQL
  vmbench sysbench run --db-driver pgsql --pgsql-user postgres --tables 4 --threads 8 --time 30`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	// Flag parse errors are user input errors: exit 2.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%s: %v (see '%s --help')", c.CommandPath(), err, c.CommandPath())
	})
	root.AddCommand(commandGroups(a)...)
	return root
}

func main() {
	a := &app{
		stdout:   os.Stdout,
		stderr:   os.Stderr,
		getenv:   os.Getenv,
		terminal: isTerminal(os.Stderr),
	}
	// go-sql-driver logs "unexpected EOF" when a connection is lost; the
	// drivers count and report reconnects themselves.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	// Ctrl-C, kill, a closed terminal or SSH session (SIGHUP) and a closed
	// output pipe (SIGPIPE on standard output or error) all end a run the
	// same way: a campaign tears down what it created and stops its agents.
	ctx, stop := interruptContext()
	defer stop()
	err := run(ctx, a, os.Args[1:])
	code := exitCode(err)
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "vmbench") {
			msg = "vmbench: " + msg
		}
		fmt.Fprintln(a.stderr, msg)
	}
	stop()
	os.Exit(code)
}

// run executes the CLI with args (without the program name). Tests call it
// in-process.
func run(ctx context.Context, a *app, args []string) error {
	root := newRootCmd(a)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && isCobraUsageError(err) {
		return usageError{err}
	}
	return err
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
