package rundir

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"vmbench/internal/boundedread"
)

// ManifestFile is the file in a results directory that lists every object
// the campaign creates, one JSON object (a Created) per line. Each object
// is recorded, and the file synced to disk, before it is created, so that
// after any end of the campaign, kill -9 included, `vmbench campaign
// teardown DIR` finds exactly what may be left.
const ManifestFile = "created.jsonl"

// Op is what a line of the manifest says happened to its object
// (Created.Op, created.jsonl's "op"): OpCreate, OpFailed or OpRemoved.
type Op string

// Manifest operations (Created.Op).
const (
	OpCreate  Op = "create"  // about to be created
	OpFailed  Op = "failed"  // the create failed: nothing was made
	OpRemoved Op = "removed" // removed (or gone with the process that held it)
)

// ObjectKind is the kind of an object a campaign creates (Created.Kind,
// created.jsonl's "kind"): KindVM, KindDatabase, KindTempDir,
// KindSimDir or KindContainer. A teardown leaves an object of a kind it does not know
// alone.
type ObjectKind string

// Kinds of created objects (Created.Kind).
const (
	KindVM       ObjectKind = "vm"
	KindDatabase ObjectKind = "database"
	KindTempDir  ObjectKind = "tempdir"
	// KindSimDir is the in-process simulator's directory (vsphere
	// Simulator.Home), recorded just after the simulator makes it: its
	// name is random.
	KindSimDir ObjectKind = "simdir"
	// KindContainer is the docker container of a container-backed
	// guest (--guests container), named by its VM: vcsim makes it when
	// the VM powers on and names it after the VM, and it carries the
	// campaign's id (guestimage.CampaignEnv). Recorded before the VMs are
	// cloned, as they are.
	KindContainer ObjectKind = "container"
)

// Created is one line of the manifest. It holds what is needed to find
// and remove the object, never a secret: a database's password is read
// again from the variable PasswordEnv names.
type Created struct {
	Op       Op         `json:"op"`
	Kind     ObjectKind `json:"kind"`
	Name     string     `json:"name"` // VM name, database name, or directory path
	Campaign string     `json:"campaign"`
	Time     time.Time  `json:"time"`
	Note     string     `json:"note,omitempty"`

	// VSphere is where a VM is.
	VSphere *CreatedVSphere `json:"vsphere,omitempty"`
	// Tool and DB say how to drop a database (the tool's Config on DB, a
	// workload.DatabaseOwner).
	Tool string     `json:"tool,omitempty"`
	DB   *CreatedDB `json:"db,omitempty"`
}

// CreatedVSphere locates a campaign's VMs: by campaign tag and name.
type CreatedVSphere struct {
	URL        string `json:"url,omitempty"` // without a password
	Datacenter string `json:"datacenter,omitempty"`
	// InProcess is set for the in-process simulator, whose VMs end with
	// the campaign's process.
	InProcess bool `json:"in_process,omitempty"`
}

// CreatedDB is a database's server, without the password.
type CreatedDB struct {
	Driver      string `json:"driver"`
	Host        string `json:"host,omitempty"`
	Port        int    `json:"port,omitempty"`
	User        string `json:"user,omitempty"`
	PasswordEnv string `json:"password_env,omitempty"` // the variable holding the password
}

// Manifest appends to a results directory's ManifestFile. A nil
// Manifest (a campaign plan) records nothing.
type Manifest struct {
	mu       sync.Mutex
	f        *os.File
	campaign string
	open     map[object]bool // objects created and not removed
}

// object is a manifest's object: its kind and name.
type object struct {
	kind ObjectKind
	name string
}

// CreateManifest makes dir's ManifestFile (it must not exist) and syncs
// the directory, so that the file survives a crash.
func CreateManifest(dir, campaign string) (*Manifest, error) {
	f, err := os.OpenFile(filepath.Join(dir, ManifestFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return &Manifest{f: f, campaign: campaign, open: map[object]bool{}}, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Record appends e (stamped with the campaign and time) and syncs it.
func (m *Manifest) Record(e Created) error {
	if m == nil { // a campaign plan: it creates nothing that outlives it
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e.Campaign, e.Time = m.campaign, time.Now().UTC()
	if err := appendLine(m.f, ManifestFile, e); err != nil {
		return err
	}
	key := object{e.Kind, e.Name}
	if e.Op == OpCreate {
		m.open[key] = true
	} else {
		delete(m.open, key)
	}
	return nil
}

// appendLine appends v as one line of JSON to f (the file name) and
// syncs it to disk.
func appendLine(f *os.File, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Holds says the object kind/name is recorded as created and not
// removed.
func (m *Manifest) Holds(kind ObjectKind, name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open[object{kind, name}]
}

// Outstanding counts the objects created and not removed.
func (m *Manifest) Outstanding() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.open)
}

// Close closes the file.
func (m *Manifest) Close() error { return m.f.Close() }

// MaxManifestSize bounds a ManifestFile read back: two lines of about
// 200 bytes per object made (a VM, a database, a directory), so 64 MiB
// holds the records of a campaign of far more than 256 VMs.
const MaxManifestSize = 64 << 20

// ReadManifest reads dir's ManifestFile (a regular file of at most
// MaxManifestSize bytes, boundedread) and returns, in the order they
// were first recorded, the objects whose last record is OpCreate: what
// may still exist.
func ReadManifest(dir string) ([]Created, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: name a campaign's results directory (results/<name>-<time>-<id>)", dir)
	}
	f, err := boundedread.Open(filepath.Join(dir, ManifestFile), MaxManifestSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: not the results directory of a campaign (or of one from before vmbench recorded what it creates)", dir, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	last := map[object]Created{}
	var order []object
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e Created
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// A line cut short by a crash can only be the last one.
			if !sc.Scan() {
				break
			}
			return nil, fmt.Errorf("%s line %d: %w", filepath.Join(dir, ManifestFile), n, err)
		}
		key := object{e.Kind, e.Name}
		if _, seen := last[key]; !seen {
			order = append(order, key)
		}
		last[key] = e
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []Created
	for _, k := range order {
		if e := last[k]; e.Op == OpCreate {
			out = append(out, e)
		}
	}
	return out, nil
}

// AppendManifest opens dir's existing ManifestFile for appending.
func AppendManifest(dir, campaign string) (*Manifest, error) {
	f, err := os.OpenFile(filepath.Join(dir, ManifestFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return &Manifest{f: f, campaign: campaign, open: map[object]bool{}}, nil
}

// ReopenManifest opens dir's manifest for appending, with the objects it
// lists as created and not removed outstanding.
func ReopenManifest(dir, campaign string) (*Manifest, error) {
	left, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	m, err := AppendManifest(dir, campaign)
	if err != nil {
		return nil, err
	}
	for _, e := range left {
		m.open[object{e.Kind, e.Name}] = true
	}
	return m, nil
}
