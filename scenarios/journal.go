package scenarios

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"vmbench/internal/boundedread"
	"vmbench/oltp"
	"vmbench/vsphere"
)

// JournalFile is the file of a VM campaign's results directory that
// records each step of the campaign once it has finished, one JSON object
// (a JournalEntry) per line, appended and synced to disk like the
// manifest (ManifestFile), so that after any end of the campaign, kill -9
// included, `vmbench campaign resume DIR` knows where to go on from.
const JournalFile = "steps.jsonl"

// StepResumed is the JournalEntry.Step written when `campaign resume`
// starts: the entries after it are that attempt's. The other entries name
// the steps (StepPreflight ... StepCollect) as the overhead table does.
const StepResumed = "resume"

// The commands of the processes that work on a campaign
// (ProcessTime.Command).
const (
	commandRun    = "campaign run"
	commandResume = "campaign resume"
)

// JournalEntry is one line of the journal: a finished step, with what a
// resume needs of it.
type JournalEntry struct {
	// Step is StepPreflight, StepProvision, StepDatabases, StepAgents,
	// StepPrepare, StepRun, StepChecks, StepCollect or StepResumed.
	Step string    `json:"step"`
	Time time.Time `json:"time"`
	// Placement, with StepPreflight, is where the VMs go (as resolved).
	Placement *VSphereSpec `json:"placement,omitempty"`
	// VMs, with StepProvision, are the VMs as provisioned and read back
	// (names, MoRefs, IPs), those left out of the measurement included.
	VMs []VMRecord `json:"vms,omitempty"`
	// Simulated, with StepProvision, says the campaign ran with
	// --simulate; InProcess that its VMs were in the in-process simulator
	// (and ended with its process); VSphereURL (without a password) and
	// Datacenter where they are otherwise.
	Simulated  bool   `json:"simulated,omitempty"`
	InProcess  bool   `json:"in_process,omitempty"`
	VSphereURL string `json:"vsphere_url,omitempty"`
	Datacenter string `json:"datacenter,omitempty"`
	// Measured, with StepRun, are the VMs whose measure-phase Result is
	// written, complete, as vms/<vm>.json.
	Measured []string `json:"measured,omitempty"`
	// Checks, with StepChecks, are the consistency checks' verdicts after
	// the run (RunInfo.Checks): a resume that only collects reports them.
	Checks []CheckVerdict `json:"checks,omitempty"`
	// Overhead is the time this entry's process had taken so far, the
	// step running counted up to the entry (timeline.snapshot): a resume
	// adds each earlier process's last one to its own record, so that a
	// killed process's steps are not lost. Nil in a journal of an older
	// vmbench.
	Overhead *Overhead `json:"overhead,omitempty"`
}

// journal appends to a results directory's JournalFile.
type journal struct {
	mu sync.Mutex
	f  *os.File
}

// openJournal opens dir's JournalFile for appending, making it (and
// syncing the directory, so that the file survives a crash) when it does
// not exist.
func openJournal(dir string) (*journal, error) {
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return &journal{f: f}, nil
}

// record appends e, stamped with the time, and syncs it. A nil journal
// (a campaign plan, a block suite) records nothing.
func (j *journal) record(e JournalEntry) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	e.Time = time.Now().UTC()
	return appendLine(j.f, JournalFile, e)
}

func (j *journal) close() {
	if j != nil {
		j.f.Close()
	}
}

// Journal is what a results directory's JournalFile says.
type Journal struct {
	// Entries are the lines in order; a last line cut short by a crash is
	// left out.
	Entries []JournalEntry
}

// MaxJournalSize bounds a JournalFile read back: a line per step, each
// with its process's overhead so far (a few KiB at 256 VMs), so 16 MiB is
// hundreds of times what a campaign writes.
const MaxJournalSize = 16 << 20

// ReadJournal reads dir's JournalFile, a regular file of at most
// MaxJournalSize bytes (boundedread: a FIFO or a symlink there is
// refused, not waited on). A missing file is an error wrapping
// fs.ErrNotExist.
func ReadJournal(dir string) (*Journal, error) {
	path := filepath.Join(dir, JournalFile)
	f, err := boundedread.Open(path, MaxJournalSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var j Journal
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e JournalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if !sc.Scan() { // a line cut short by a crash can only be the last
				break
			}
			return nil, fmt.Errorf("%s line %d: %v", path, n, err)
		}
		j.Entries = append(j.Entries, e)
	}
	return &j, sc.Err()
}

// Finished says whether step has finished, in any attempt.
func (j *Journal) Finished(step string) bool { return j.last(step) != nil }

// Steps lists the steps finished, in the order first recorded, without
// StepResumed.
func (j *Journal) Steps() []string {
	var out []string
	for _, e := range j.Entries {
		if e.Step != StepResumed && !slices.Contains(out, e.Step) {
			out = append(out, e.Step)
		}
	}
	return out
}

// last is the last entry of step, or nil.
func (j *Journal) last(step string) *JournalEntry {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].Step == step {
			return &j.Entries[i]
		}
	}
	return nil
}

// Provisioned is the StepProvision entry (the VMs), or nil when the
// campaign stopped before its VMs were all provisioned.
func (j *Journal) Provisioned() *JournalEntry { return j.last(StepProvision) }

// checks are the verdicts of the consistency checks after the last run
// step recorded, or nil when none are recorded after it.
func (j *Journal) checks() []CheckVerdict {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		switch e := j.Entries[i]; e.Step {
		case StepChecks:
			return e.Checks
		case StepRun:
			return nil
		}
	}
	return nil
}

// priorProcess is a process that worked on a campaign before the resume
// that reads the journal, as its entries recorded it.
type priorProcess struct {
	command string    // commandRun or commandResume
	last    string    // the last step it recorded; "" when none
	o       *Overhead // its record at its last entry holding one; nil when none does
}

// processes are the processes the journal records, in order: the
// `campaign run` (the entries before the first StepResumed), then each
// `campaign resume` (the entries from its StepResumed on).
func (j *Journal) processes() []priorProcess {
	ps := []priorProcess{{command: commandRun}}
	for _, e := range j.Entries {
		if e.Step == StepResumed {
			ps = append(ps, priorProcess{command: commandResume})
			continue
		}
		p := &ps[len(ps)-1]
		p.last = e.Step
		if e.Overhead != nil {
			p.o = e.Overhead
		}
	}
	return ps
}

// record appends e to the campaign's journal with this process's
// overhead so far (timeline.snapshot). Nothing without a journal.
func (c *campaign) record(e JournalEntry) error {
	if c.journal == nil {
		return nil
	}
	if c.tl != nil {
		e.Overhead = c.tl.snapshot()
	}
	return c.journal.record(e)
}

// finished records step as finished in the campaign's journal.
func (c *campaign) finished(step string) error {
	return c.record(JournalEntry{Step: step})
}

// preflighted records the preflight with the placement it resolved.
func (c *campaign) preflighted() error {
	p := c.placement
	return c.record(JournalEntry{Step: StepPreflight, Placement: &p})
}

// provisioned records the VMs as provisioned (c.vmRecords) and writes
// campaign.yaml already: a resume reads both, and the databases and
// agents steps may yet be killed. The later writeResolved writes the same.
func (c *campaign) provisioned(vms []vsphere.VM) error {
	if c.journal == nil || c.suite != nil {
		return nil
	}
	var measurable []vsphere.VM // as writeResolved is called later
	for _, vm := range vms {
		if vm.IPErr == nil {
			measurable = append(measurable, vm)
		}
	}
	if err := c.writeResolved(measurable); err != nil {
		return err
	}
	return c.record(JournalEntry{Step: StepProvision, VMs: c.vmRecords, Simulated: c.opts.Simulate,
		InProcess: c.simHosts > 0, VSphereURL: c.vsphereURL, Datacenter: c.placementDC})
}

// measured writes every VM's measure-phase Result (platform counters
// added) as vms/<vm>.json and then records the run step as finished with
// their names: a resume then collects them and does not run again.
func (c *campaign) measured(results []*oltp.Result) error {
	if c.journal == nil {
		return nil
	}
	names := make([]string, 0, len(results))
	for _, r := range results {
		if err := c.writeVMResult(r); err != nil {
			return err
		}
		names = append(names, r.Labels["vm"])
	}
	return c.record(JournalEntry{Step: StepRun, Measured: names})
}

// readMeasured reads back the Results a finished run step wrote.
func readMeasured(dir string, names []string) ([]*oltp.Result, error) {
	out := make([]*oltp.Result, len(names))
	for i, n := range names {
		r, err := oltp.ReadResultFile(filepath.Join(dir, "vms", n+".json"))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s records the run of %s as finished, and vms/%s.json is missing", JournalFile, n, n)
			}
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
