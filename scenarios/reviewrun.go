package scenarios

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
)

// RunReview runs the review's campaigns one after the other, each into
// its own results directory inside the review directory
// <opts.ResultsDir>/<name>-<time>-<id> (named .incomplete until every
// campaign completed), going on after a failed one when on-failure is
// continue (never after Ctrl-C, ctx ended: the rest are recorded as not
// run because the review was interrupted), then writes review.json and the review's report (report.html,
// report.md, report.csv: review.WriteReviewReports, with a
// warning per failed or skipped campaign). opts applies to every campaign
// (opts.ResultsDir is replaced by the review directory; opts.DBServer, a
// --db-dsn server, holds every OLTP campaign's VM databases and is not
// given to block suites). The error joins the campaigns' errors.
func RunReview(ctx context.Context, rf *spec.Review, opts Options) (*review.Outcome, error) {
	rd, err := rundir.CreateResultsDir(opts.ResultsDir, rf.Name, time.Now())
	if err != nil {
		return nil, err
	}
	if err := rd.Write("review.yaml", rf.Raw); err != nil { // the file as loaded, not read again
		return nil, err
	}
	out := &review.Outcome{Name: rf.Name}
	var errs []error
	for i, c := range rf.Campaigns {
		co := review.CampaignOutcome{File: c.File}
		if ctx.Err() != nil {
			out.Interrupted = true
		}
		if out.Interrupted || (len(errs) > 0 && rf.OnFailure == spec.ReviewStop) {
			co.NotRun = true
			out.Campaigns = append(out.Campaigns, co)
			continue
		}
		fmt.Fprintf(opts.Log, "==> review %s: campaign %d of %d: %s\n", rf.Name, i+1, len(rf.Campaigns), c.File)
		o := opts
		o.ResultsDir = rd.Path
		dir, err := runReviewCampaign(ctx, rf, i, o)
		co.Dir = dir
		switch {
		case err != nil && ctx.Err() != nil:
			co.Interrupted, out.Interrupted = true, true
			co.Error = review.InterruptedPrefix + err.Error()
			errs = append(errs, fmt.Errorf("%s: %w", c.File, err))
			fmt.Fprintf(opts.Log, "    campaign %s interrupted: %v\n", c.File, err)
		case err != nil:
			co.Error = err.Error()
			errs = append(errs, fmt.Errorf("%s: %w", c.File, err))
			fmt.Fprintf(opts.Log, "    campaign %s failed: %v\n", c.File, err)
		}
		out.Campaigns = append(out.Campaigns, co)
	}
	if len(errs) == 0 {
		if err := rd.Complete(); err != nil {
			return nil, err
		}
	}
	out.Dir = rd.Path
	if err := out.Write(); err != nil {
		return out, errors.Join(append(errs, err)...)
	}
	if err := review.WriteReviewReports(out.Dir); err != nil {
		errs = append(errs, fmt.Errorf("the review's report: %w", err))
	}
	return out, errors.Join(errs...)
}

// CheckReview checks every campaign and block suite of rf (with its
// override) as campaign run would, before anything runs: a review that
// would fail on its third campaign's bad flag fails at once, naming it,
// with nothing created. Pre-built data sets are looked for too.
func CheckReview(ctx context.Context, rf *spec.Review, opts Options) error {
	var errs []error
	for i, c := range rf.Campaigns {
		f, err := rf.Load(i)
		if err == nil && f.Suite != nil {
			err = CheckSuite(f.Suite, suiteOptions(opts))
		} else if err == nil {
			var k *Checked
			if k, err = Check(f.Campaign, opts); err == nil {
				err = FindData(ctx, k)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("campaign %d (%s): %w", i+1, c.File, rf.Explain(i, err)))
		}
	}
	return errors.Join(errs...)
}

// runReviewCampaign checks and runs campaign i of rf with opts and
// returns its results directory's name: the completed one, or the
// .incomplete one a failed or interrupted campaign kept ("" when it kept
// none).
func runReviewCampaign(ctx context.Context, rf *spec.Review, i int, opts Options) (string, error) {
	f, err := rf.Load(i)
	if err != nil {
		return "", err
	}
	out, err := runLoaded(ctx, f, opts)
	dir := keptDir(err)
	if out != nil {
		dir = out.Dir
	}
	if dir == "" {
		return "", rf.Explain(i, err)
	}
	return filepath.Base(dir), rf.Explain(i, err)
}

// runLoaded checks and runs a loaded campaign or block suite with opts.
func runLoaded(ctx context.Context, f *spec.File, opts Options) (*Outcome, error) {
	var out *Outcome
	var err error
	if f.Suite != nil {
		opts = suiteOptions(opts)
		if err := CheckSuite(f.Suite, opts); err != nil {
			return nil, err
		}
		out, err = RunSuite(ctx, f.Suite, opts)
	} else {
		k, cerr := Check(f.Campaign, opts) // again: CheckReview's were made before the review's first campaign ran
		if cerr != nil {
			return nil, cerr
		}
		if err := FindData(ctx, k); err != nil {
			return nil, err
		}
		out, err = Run(ctx, k)
	}
	return out, err
}

// suiteOptions are a review's opts for a block suite: no database server
// (review run --db-dsn is for the OLTP campaigns' databases).
func suiteOptions(opts Options) Options {
	opts.DBServer = nil
	return opts
}
