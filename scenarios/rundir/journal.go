package rundir

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
	"vmbench/scenarios/spec"
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
const StepResumed Step = "resume"

// Command is the command of a process that worked on a campaign
// (Process.Command, ProcessTime.Command: run.json's
// overhead.processes[].command): CommandRun or CommandResume.
type Command string

// The commands of the processes that work on a campaign
// (ProcessTime.Command).
const (
	CommandRun    Command = "campaign run"
	CommandResume Command = "campaign resume"
)

// JournalEntry is one line of the journal: a finished step, with what a
// resume needs of it.
type JournalEntry struct {
	// Step is StepPreflight, StepProvision, StepDatabases, StepAgents,
	// StepPrepare, StepRun, StepChecks, StepCollect or StepResumed.
	Step Step      `json:"step"`
	Time time.Time `json:"time"`
	// Placement, with StepPreflight, is where the VMs go (as resolved).
	Placement *spec.VSphere `json:"placement,omitempty"`
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

// JournalWriter appends to a results directory's JournalFile.
type JournalWriter struct {
	mu sync.Mutex
	f  *os.File
}

// OpenJournal opens dir's JournalFile for appending, making it (and
// syncing the directory, so that the file survives a crash) when it does
// not exist.
func OpenJournal(dir string) (*JournalWriter, error) {
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return &JournalWriter{f: f}, nil
}

// Record appends e, stamped with the time, and syncs it. A nil journal
// (a campaign plan, a block suite) records nothing.
func (j *JournalWriter) Record(e JournalEntry) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	e.Time = time.Now().UTC()
	return appendLine(j.f, JournalFile, e)
}

// Close closes the file; nothing for a nil JournalWriter.
func (j *JournalWriter) Close() {
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
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		j.Entries = append(j.Entries, e)
	}
	return &j, sc.Err()
}

// Finished says whether step has finished, in any attempt.
func (j *Journal) Finished(step Step) bool { return j.Last(step) != nil }

// Steps lists the steps finished, in the order first recorded, without
// StepResumed.
func (j *Journal) Steps() []Step {
	var out []Step
	for _, e := range j.Entries {
		if e.Step != StepResumed && !slices.Contains(out, e.Step) {
			out = append(out, e.Step)
		}
	}
	return out
}

// Last is the last entry of step, or nil.
func (j *Journal) Last(step Step) *JournalEntry {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		if j.Entries[i].Step == step {
			return &j.Entries[i]
		}
	}
	return nil
}

// Provisioned is the StepProvision entry (the VMs), or nil when the
// campaign stopped before its VMs were all provisioned.
func (j *Journal) Provisioned() *JournalEntry { return j.Last(StepProvision) }

// Checks are the verdicts of the consistency checks after the last run
// step recorded, or nil when none are recorded after it.
func (j *Journal) Checks() []CheckVerdict {
	for i := len(j.Entries) - 1; i >= 0; i-- {
		switch e := j.Entries[i]; e.Step {
		case StepChecks:
			return e.Checks
		case StepRun:
			return nil
		default: // a step before the checks: look further back
		}
	}
	return nil
}

// Process is a process that worked on a campaign before the resume
// that reads the journal, as its entries recorded it.
type Process struct {
	Command  Command   // CommandRun or CommandResume
	Last     Step      // the last step it recorded; "" when none
	Overhead *Overhead // its record at its last entry holding one; nil when none does
}

// Processes are the processes the journal records, in order: the
// `campaign run` (the entries before the first StepResumed), then each
// `campaign resume` (the entries from its StepResumed on).
func (j *Journal) Processes() []Process {
	ps := []Process{{Command: CommandRun}}
	for _, e := range j.Entries {
		if e.Step == StepResumed {
			ps = append(ps, Process{Command: CommandResume})
			continue
		}
		p := &ps[len(ps)-1]
		p.Last = e.Step
		if e.Overhead != nil {
			p.Overhead = e.Overhead
		}
	}
	return ps
}

// ReadMeasured reads back the Results a finished run step wrote, one
// vms/<vm>.json per name.
func ReadMeasured(dir string, names []string) ([]*oltp.Result, error) {
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
