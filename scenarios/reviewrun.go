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

// CheckedReview is a review whose every campaign and block suite
// CheckReview loaded and accepted; RunReview runs them as checked, each
// file decoded once.
type CheckedReview struct {
	rf   *spec.Review
	opts Options
	// files are the campaigns' files as loaded (with their overrides);
	// checked are the VM campaigns' checked plans (nil for a block suite,
	// whose run checks its host and targets as it starts).
	files   []*spec.File
	checked []*Checked
}

// CheckReview checks every campaign and block suite of rf (with its
// override) as campaign run would, before anything runs: a review that
// would fail on its third campaign's bad flag fails at once, naming it,
// with nothing created. Pre-built data sets are looked for too. opts
// applies to every campaign (see RunReview).
func CheckReview(ctx context.Context, rf *spec.Review, opts Options) (*CheckedReview, error) {
	k := &CheckedReview{rf: rf, opts: opts, files: make([]*spec.File, len(rf.Campaigns)), checked: make([]*Checked, len(rf.Campaigns))}
	var errs []error
	for i, c := range rf.Campaigns {
		f, err := rf.Load(i)
		if err == nil && f.Suite != nil {
			err = CheckSuite(f.Suite, suiteOptions(opts))
		} else if err == nil {
			if k.checked[i], err = Check(f.Campaign, opts); err == nil {
				err = FindData(ctx, k.checked[i])
			}
		}
		k.files[i] = f
		if err != nil {
			errs = append(errs, fmt.Errorf("campaign %d (%s): %w", i+1, c.File, rf.Explain(i, err)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return k, nil
}

// RunReview runs the checked review's campaigns one after the other,
// each into its own results directory inside the review directory
// <opts.ResultsDir>/<name>-<time>-<id> (named .incomplete until every
// campaign completed), going on after a failed one when on-failure is
// continue (never after Ctrl-C, ctx ended: the rest are recorded as not
// run because the review was interrupted), then writes review.json and
// the review's report (report.html, report.md, report.csv:
// review.WriteReviewReports, with a warning per failed or skipped
// campaign). The options CheckReview took apply to every campaign
// (opts.ResultsDir is replaced by the review directory; opts.DBServer, a
// --db-dsn server, holds every OLTP campaign's VM databases and is not
// given to block suites). The error joins the campaigns' errors.
func RunReview(ctx context.Context, k *CheckedReview) (*review.Outcome, error) {
	rf, opts := k.rf, k.opts
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
		dir, err := k.run(ctx, i, rd.Path)
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

// run runs campaign i, as checked, into the review directory dir and
// returns its results directory's name: the completed one, or the
// .incomplete one a failed or interrupted campaign kept ("" when it kept
// none). A block suite is checked again as its run starts (RunSuite):
// its host's free space and its targets must hold then.
func (k *CheckedReview) run(ctx context.Context, i int, dir string) (string, error) {
	var out *Outcome
	var err error
	if ck := k.checked[i]; ck != nil {
		ck.c.opts.ResultsDir = dir
		out, err = Run(ctx, ck)
	} else {
		opts := suiteOptions(k.opts)
		opts.ResultsDir = dir
		out, err = RunSuite(ctx, k.files[i].Suite, opts)
	}
	kept := keptDir(err)
	if out != nil {
		kept = out.Dir
	}
	if kept == "" {
		return "", k.rf.Explain(i, err)
	}
	return filepath.Base(kept), k.rf.Explain(i, err)
}

// suiteOptions are a review's opts for a block suite: no database server
// (review run --db-dsn is for the OLTP campaigns' databases).
func suiteOptions(opts Options) Options {
	opts.DBServer = nil
	return opts
}
