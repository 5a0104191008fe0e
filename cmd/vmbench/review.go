package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"vmbench/dialect"
	"vmbench/scenarios"
	"vmbench/scenarios/spec"
)

func init() { registerGroup(newReviewCmd) }

func newReviewCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "review",
		Short: "Run a whole server review: several campaign files into one review directory",
		Long: `A review file (YAML, strict, kind: review) lists campaign and block-suite files,
each with an optional override merged over it, to run one after the other on
one server (scenarios/review-full.yaml: sysbench at 4, 8 and 16 VMs, SQL Server
at 4 and 8 VMs, the block suite).`,
	}
	c.AddCommand(newReviewRunCmd(a))
	return c
}

const reviewRunLong = `Run the campaigns of the review file FILE one after the other, each into its own
results directory inside the review directory <results-dir>/<name>-<time>-<id>
(named .incomplete until every campaign completed). A failed campaign ends the
review unless the file says on-failure: continue. At the end review.json
records each campaign's directory and error, and the review's report is
written into the review directory: report.html (a section per campaign, with
its charts), report.md and report.csv, with a warning at the top for each
campaign that failed or did not run ('vmbench report DIR' renders it again).
Ctrl-C ends the review (exit status 130) whatever on-failure says: the
running campaign keeps what it measured in its .incomplete directory, which
review.json records with the interrupt and the report shows, marked
incomplete; the campaigns after it are recorded as not run.

Every campaign file is read and checked, with its override, before the first
runs: a bad file is bad input (exit status 2) and nothing runs.

With --simulate, every campaign runs as 'campaign run --simulate' does: an
in-process vSphere simulator, an embedded SQLite database per VM and the
files' scaled-down simulate: sizes. --db-dsn (with --simulate) puts every
OLTP campaign's VM databases on that MySQL/MariaDB, PostgreSQL or SQL Server
server instead, one database per VM as 'campaign run --simulate --db-dsn'
does (block suites have no database); the server is connected to once before
anything runs. A DSN without a password takes it from --db-password-file,
else from the client's variable ($MYSQL_PWD, $PGPASSWORD, $SQLCMDPASSWORD).
--simulate --guests container backs every VM with a container of the guest
image, its database inside, as 'campaign run' does (docs/real-guests.md).
Against a real vCenter, connection and placement come from govc's
environment or the flags, as for 'campaign run'.`

func newReviewRunCmd(a *app) *cobra.Command {
	var simulate bool
	var resultsDir, dsn, pwFile, guests string
	var vf vsphereFlags
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run the review in FILE",
		Long:  reviewRunLong,
		Example: `  # the whole review, simulated, in a few minutes
  vmbench review run scenarios/review-full.yaml --simulate

  # simulated, each VM's database on a local MariaDB
  vmbench review run scenarios/review-full.yaml --simulate --db-dsn 'mysql://root@127.0.0.1:3306/'`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			rf, err := spec.LoadReview(args[0])
			if errors.Is(err, fs.ErrNotExist) && rf == nil {
				return usagef("review file %s does not exist (scenarios/review-full.yaml is the standard one)", args[0])
			}
			if err != nil {
				return asUsage(err)
			}
			if err := checkResultsDir(resultsDir); err != nil {
				return err
			}
			g, err := parseGuests(guests, simulate)
			if err != nil {
				return err
			}
			if dsn != "" && g == scenarios.GuestsContainer {
				return usagef("--db-dsn: with --guests container each VM's database is inside its guest; leave --db-dsn out")
			}
			opts := scenarios.Options{Simulate: simulate, Guests: g, ResultsDir: resultsDir, Out: a.stdout, Log: a.stderr, Getenv: a.getenv, Version: version}
			if !simulate || vf.changed("url") {
				opts.VSphere = vf.config(a)
			}
			server, err := reviewServer(cmd.Context(), a, simulate, dsn, pwFile)
			if err != nil {
				return err
			}
			opts.DBServer = server
			checked, err := scenarios.CheckReview(cmd.Context(), rf, opts)
			if err != nil {
				return usageError{err}
			}
			out, err := scenarios.RunReview(cmd.Context(), checked)
			if out != nil {
				files := "review.json"
				if _, serr := os.Stat(filepath.Join(out.Dir, "report.html")); serr == nil {
					files = "report.html, report.md, report.csv, review.json"
				}
				fmt.Fprintf(a.stderr, "\nreview: %s (%s)\n", out.Dir, files)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&simulate, "simulate", false, "run every campaign against an in-process vSphere simulator and local databases, with the files' simulate: sizes")
	cmd.Flags().StringVar(&resultsDir, "results-dir", "results", "parent directory of the review directory")
	cmd.Flags().StringVar(&dsn, "db-dsn", "", "with --simulate: a MySQL/MariaDB, PostgreSQL or SQL Server server for every OLTP campaign's VM databases, one database each, e.g. mysql://root@127.0.0.1:3306/ (default: embedded SQLite files)")
	cmd.Flags().StringVar(&pwFile, "db-password-file", "", "with --db-dsn: read the server's password from this file (mode 600), not from the command line")
	bindGuests(cmd.Flags(), &guests)
	vf.bind(cmd.Flags())
	return cmd
}

// reviewServer checks review run's --db-dsn as campaign run does (only
// with --simulate; a server without a database; connected to once) and
// returns it for every campaign's Options, nil without one. Errors are
// usage errors naming the flag.
func reviewServer(ctx context.Context, a *app, simulate bool, dsn, pwFile string) (*dialect.Config, error) {
	switch {
	case dsn != "" && !simulate:
		return nil, usagef("--db-dsn: only with --simulate (against vSphere each VM's database is at its own IP)")
	case dsn == "" && pwFile != "":
		return nil, usagef("--db-password-file: only with --db-dsn (it holds the password of that server)")
	case dsn == "":
		return nil, nil
	}
	return checkServerDSN(ctx, dsn, "--db-dsn", dsnPassword{file: pwFile, getenv: a.getenv})
}
