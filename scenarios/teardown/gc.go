package teardown

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// CampaignState is what a campaign's results directory says about whether
// the campaign still runs, for garbage collection of its VMs.
type CampaignState int

// States of a campaign, as ProbeCampaign finds them.
const (
	// StateUnknown: the directory could not be read, or the campaign id
	// cannot name one; its VMs are never garbage.
	StateUnknown CampaignState = iota
	// StateRunning: a process holds the directory's run lock (rundir.LockFile):
	// the campaign runs, or 'campaign teardown' works on it.
	StateRunning
	// StateFinished: the directory has its final name.
	StateFinished
	// StateIncomplete: the directory still ends in ".incomplete" and no
	// process holds its lock (the run failed, was killed or interrupted).
	StateIncomplete
	// StateNoResults: there is no results directory of that id (the VMs
	// of 'vsphere provision', or a campaign whose directory was removed
	// or lives under another --results-dir).
	StateNoResults
)

// String names the state as gc's table shows it.
func (s CampaignState) String() string {
	switch s {
	case StateRunning:
		return "running"
	case StateFinished:
		return "finished"
	case StateIncomplete:
		return "incomplete, not running"
	case StateNoResults:
		return "no results directory"
	default:
		return "unknown"
	}
}

// CampaignProbe is the state of one campaign and where it was read.
type CampaignProbe struct {
	State CampaignState
	// Dir is the results directory found ("" for StateNoResults and
	// some StateUnknown).
	Dir string
	// Detail says why the state is unknown, or names the process holding
	// the lock (as "pid N").
	Detail string
}

// ProbeCampaign reads, without changing anything, the state of campaign
// id from its results directory under resultsDir: <resultsDir>/<id>
// (finished) or <resultsDir>/<id>.incomplete, and whether a process
// holds its run lock (a lock taken to look is let go at once). An id that
// cannot be a directory name ("", "..", a path) is StateUnknown. Where
// the system has no file locks an incomplete directory is StateUnknown:
// a running campaign cannot be told from a dead one there.
func ProbeCampaign(resultsDir, id string) CampaignProbe {
	if vsphere.ValidCampaignID(id) != nil || strings.Trim(id, ".") == "" {
		return CampaignProbe{State: StateUnknown, Detail: fmt.Sprintf("campaign id %q cannot name a results directory", id)}
	}
	found := CampaignProbe{State: StateNoResults}
	for _, c := range []struct {
		dir   string
		state CampaignState
	}{{filepath.Join(resultsDir, id+".incomplete"), StateIncomplete}, {filepath.Join(resultsDir, id), StateFinished}} {
		fi, err := os.Stat(c.dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return CampaignProbe{State: StateUnknown, Dir: c.dir, Detail: err.Error()}
		case !fi.IsDir():
			return CampaignProbe{State: StateUnknown, Dir: c.dir, Detail: c.dir + " is not a directory"}
		}
		pid, held, err := rundir.Holder(c.dir)
		switch {
		case err != nil:
			return CampaignProbe{State: StateUnknown, Dir: c.dir, Detail: err.Error()}
		case held:
			return CampaignProbe{State: StateRunning, Dir: c.dir, Detail: "pid " + pid}
		case c.state == StateIncomplete && !rundir.FileLocks:
			return CampaignProbe{State: StateUnknown, Dir: c.dir, Detail: "no file locks on this system: cannot tell whether it runs"}
		}
		if found.State == StateNoResults {
			found = CampaignProbe{State: c.state, Dir: c.dir}
		}
	}
	return found
}

// LockCampaign takes the run lock of campaign id's results directory
// under resultsDir (finished or incomplete), as 'campaign teardown' does,
// so that neither starts on it while the caller removes its VMs; release
// lets it go. A campaign without a results directory has no lock: release
// does nothing. When a process holds the lock the error wraps
// rundir.ErrRunning; an id that cannot name a directory is an error too.
func LockCampaign(resultsDir, id string) (release func(), err error) {
	p := ProbeCampaign(resultsDir, id)
	if p.Dir == "" {
		if p.State == StateUnknown {
			return nil, errors.New(p.Detail)
		}
		return func() {}, nil
	}
	l, err := rundir.Lock(p.Dir)
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}

// GCOptions are what DecideGC needs beside the VM and its campaign.
type GCOptions struct {
	// OlderThan, when positive, keeps VMs created (KeyCreated) less than
	// this long before Now, and VMs without a creation time.
	OlderThan time.Duration
	// Now is the time OlderThan counts back from.
	Now time.Time
	// Harness is this machine's host name (vsphere.Harness): a VM another
	// harness made, whose results directory is not here, is not garbage
	// here, nor is a VM without a harness tag, unless Named or OlderThan.
	Harness string
	// Named says --campaign named the VM's campaign: its owner decided.
	Named bool
}

// GCDecision is what garbage collection does with one VM, and why.
type GCDecision struct {
	Remove bool
	Reason string
}

// DecideGC says whether vm is garbage: it carries a vmbench campaign id
// and that campaign does not run (its results directory is finished,
// incomplete and not locked, or absent: probe), and, with
// opts.OlderThan, it was created longer ago than that. A campaign with no
// results directory here is garbage only when this harness made its VMs
// (vsphere.KeyHarness), or --campaign names it, or --older-than is given:
// another harness's live campaign has its results directory elsewhere. A VM without a
// campaign id, of a running campaign, or of one whose state is unknown is
// always kept. (Templates never reach it: vsphere.List skips them.)
func DecideGC(vm vsphere.VM, probe CampaignProbe, opts GCOptions) GCDecision {
	keep := func(format string, args ...any) GCDecision {
		return GCDecision{Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case vm.CampaignID == "":
		return keep("no vmbench campaign tag")
	case probe.State == StateRunning:
		return keep("the campaign runs: %s holds %s", probe.Detail, filepath.Join(probe.Dir, rundir.LockFile))
	case probe.State == StateUnknown:
		return keep("cannot tell whether the campaign runs: %s", probe.Detail)
	}
	if opts.OlderThan > 0 {
		if vm.Created.IsZero() {
			return keep("no creation time (%s), so not known to be older than --older-than %s", vsphere.KeyCreated, opts.OlderThan)
		}
		if age := opts.Now.Sub(vm.Created); age < opts.OlderThan {
			return keep("created %s ago, not older than --older-than %s", age.Round(time.Second), opts.OlderThan)
		}
	}
	switch probe.State {
	case StateFinished:
		return GCDecision{true, "the campaign finished (" + probe.Dir + ")"}
	case StateIncomplete:
		return GCDecision{true, "the campaign stopped unfinished (" + probe.Dir + ")"}
	default: // running, no results or unknown: decided below
	}
	switch {
	case opts.Named || opts.OlderThan > 0:
	case vm.Harness != "" && vm.Harness != opts.Harness:
		return keep("no results directory here, and harness %s made it (its results are there): run gc there, or name the campaign with --campaign", vm.Harness)
	case vm.Harness == "":
		return keep("no results directory here, and no %s tag says which harness made it: name the campaign with --campaign, or give --older-than", vsphere.KeyHarness)
	}
	return GCDecision{true, "no results directory of the campaign"}
}
