package agent

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"vmbench/internal/flagvalue"
	"vmbench/workload"
)

// TargetFlag is the flag a tool takes its block devices or files in
// (vdbench's --target, repeated): a Job with Disks is only for a tool that
// has it, and the agent sets it once per disk.
const TargetFlag = "target"

// Disk is one data vDisk of the VM, as the harness's layout placed it: the
// agent finds its block device in the guest and gives the device's path
// to the tool's TargetFlag.
type Disk struct {
	// Name names the disk in messages (the layout's name, "data-1").
	Name string `json:"name"`
	// Bus and Unit are the vSphere SCSI controller's bus number (0-3) and
	// the unit number (0-15, never 7, which the controller itself holds)
	// the layout gave the vDisk.
	Bus  int32 `json:"bus"`
	Unit int32 `json:"unit"`
	// UUID is the vDisk's backing UUID (32 hex digits, with or without
	// dashes, as vSphere's VirtualDiskFlatVer2BackingInfo.Uuid shows it).
	// A guest sees it as the disk's SCSI WWN (NAA identifier) when the VM
	// has disk.EnableUUID=TRUE (VMware KB 52815).
	UUID string `json:"uuid"`
	// SizeBytes is the vDisk's capacity in bytes.
	SizeBytes int64 `json:"size_bytes"`
}

// hasTargetFlag says whether tool's Config binds TargetFlag.
func hasTargetFlag(tool workload.Tool) bool {
	fs := pflag.NewFlagSet(tool.Describe().Name, pflag.ContinueOnError)
	tool.NewConfig().BindFlags(fs)
	return fs.Lookup(TargetFlag) != nil
}

// checkDisks returns the problems of j's Disks (see ParseJob).
func (j *Job) checkDisks(tool workload.Tool) []error {
	if len(j.Disks) == 0 {
		return nil
	}
	if !hasTargetFlag(tool) {
		return []error{jobErrorf("disks: given, but %s takes no --%s; remove them", j.Tool, TargetFlag)}
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(j.Flags)) {
		if flagvalue.Name(k) == TargetFlag {
			errs = append(errs, jobErrorf("flags.%s: the agent sets --%s from disks; remove it", k, TargetFlag))
		}
	}
	seen := map[string]int{} // "name x", "SCSI b:u", "uuid hex" -> first index
	for i, d := range j.Disks {
		at := fmt.Sprintf("disks[%d]", i)
		bad := func(f string, a ...any) { errs = append(errs, jobErrorf(at+"."+f, a...)) }
		if d.Name == "" {
			bad("name: empty; name the disk (the layout's name)")
		}
		if d.Bus < 0 || d.Bus > 3 {
			bad("bus: %d is not a SCSI controller bus number (valid: 0-3)", d.Bus)
		}
		if d.Unit < 0 || d.Unit > 15 || d.Unit == 7 {
			bad("unit: %d is not a SCSI unit number of a disk (valid: 0-15 but 7, the controller's own)", d.Unit)
		}
		hex, ok := uuidHex(d.UUID)
		if !ok {
			bad("uuid: %q is not a disk UUID (32 hex digits, with or without dashes)", d.UUID)
		}
		if d.SizeBytes <= 0 {
			bad("size_bytes: %d; give the vDisk's capacity in bytes (more than 0)", d.SizeBytes)
		}
		keys := []string{fmt.Sprintf("SCSI address %d:%d", d.Bus, d.Unit)}
		if d.Name != "" {
			keys = append(keys, "name "+d.Name)
		}
		if ok {
			keys = append(keys, "uuid "+hex)
		}
		for _, k := range keys {
			if first, dup := seen[k]; dup {
				errs = append(errs, jobErrorf("%s: %s is also disks[%d]'s; give each disk once", at, k, first))
			} else {
				seen[k] = i
			}
		}
	}
	return errs
}

// uuidHex returns u's 32 hex digits in lower case, without dashes.
func uuidHex(u string) (string, bool) {
	h := strings.ToLower(strings.ReplaceAll(u, "-", ""))
	if len(h) != 32 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", false
	}
	return h, true
}

// ErrDiskPlacement is matched (errors.Is) by the error of a job whose
// Disks are not all in the guest as the job says. It is a placement
// problem (the VM, its vDisks or its disk.EnableUUID setting), not a bad
// job: IsBadInput is false for it, Status.FlagError stays unset and
// `vmbench agent run` exits 1.
var ErrDiskPlacement = errors.New("the job's disks are not in the guest as it says")

// resolveDisks returns the block device path of each disk, in order, from
// the sysfs under root ("/" in a guest). It is implemented for Linux
// guests only.
func resolveDisks(root string, disks []Disk) ([]string, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: finding disks by SCSI address is implemented for Linux guests only (this guest runs %s)", ErrDiskPlacement, runtime.GOOS)
	}
	return findDisks(root, disks)
}

// blockDevice is one /sys/block entry with a SCSI device behind it.
type blockDevice struct {
	name    string // "sdb"
	wwid    string // device/wwid as read, "" when it has none
	addr    string // the device link's last element, "H:C:T:L"
	size    int64  // bytes
	parts   []string
	readErr error // why its wwid or size could not be read
}

// findDisks is resolveDisks on any system: it reads root/sys/block.
func findDisks(root string, disks []Disk) ([]string, error) {
	devs, err := scanBlock(filepath.Join(root, "sys", "block"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDiskPlacement, err)
	}
	paths := make([]string, len(disks))
	var errs []error
	for i, d := range disks {
		p, err := matchDisk(d, devs)
		if err != nil {
			errs = append(errs, err)
		}
		paths[i] = p
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrDiskPlacement, errors.Join(errs...))
	}
	return paths, nil
}

// scanBlock reads every entry of dir (/sys/block) that has a device link.
func scanBlock(dir string) ([]blockDevice, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the guest's block devices: %w", err)
	}
	var devs []blockDevice
	for _, e := range ents {
		base := filepath.Join(dir, e.Name())
		link, err := os.Readlink(filepath.Join(base, "device"))
		if err != nil {
			continue // a loop, dm or zram device: no SCSI device behind it
		}
		d := blockDevice{name: e.Name(), addr: filepath.Base(link)}
		if b, err := os.ReadFile(filepath.Join(base, "device", "wwid")); err == nil {
			d.wwid = strings.TrimSpace(string(b))
		}
		b, err := os.ReadFile(filepath.Join(base, "size"))
		if err == nil {
			var sectors int64
			sectors, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			d.size = sectors * 512 // sysfs counts 512-byte sectors whatever the device's block size
		}
		d.readErr = err
		subs, _ := os.ReadDir(base)
		for _, s := range subs {
			if _, err := os.Stat(filepath.Join(base, s.Name(), "partition")); err == nil {
				d.parts = append(d.parts, s.Name())
			}
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// wwidHex returns the hex digits of a wwid ("naa.6000c29..." gives
// "6000c29..."): the part after its type prefix, in lower case.
func wwidHex(w string) string {
	if i := strings.IndexByte(w, '.'); i >= 0 {
		w = w[i+1:]
	}
	return strings.ToLower(strings.ReplaceAll(w, "-", ""))
}

// scsiTarget returns T of a SCSI address "H:C:T:L".
func scsiTarget(addr string) (int64, bool) {
	f := strings.Split(addr, ":")
	if len(f) != 4 {
		return 0, false
	}
	for _, x := range f {
		if _, err := strconv.ParseUint(x, 10, 32); err != nil {
			return 0, false
		}
	}
	t, _ := strconv.ParseInt(f[2], 10, 64)
	return t, true
}

// matchDisk returns /dev/<name> of the one device whose wwid is d's UUID,
// checking its SCSI target (the unit; the guest numbers its SCSI hosts in
// its own order, so H is not the bus), its size and that it has no
// partitions. The mount and holder checks are the tool's own (vdbench's
// in-use checks when it opens the target).
func matchDisk(d Disk, devs []blockDevice) (string, error) {
	want, _ := uuidHex(d.UUID)
	what := fmt.Sprintf("disk %s (SCSI %d:%d, uuid %s)", d.Name, d.Bus, d.Unit, d.UUID)
	var found []blockDevice
	seen := make([]string, len(devs))
	for i, dv := range devs {
		seen[i] = fmt.Sprintf("%s (%s)", dv.name, cmp.Or(dv.wwid, "no wwid"))
		if dv.wwid != "" && wwidHex(dv.wwid) == want {
			found = append(found, dv)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s: no block device has that WWN; the VM needs disk.EnableUUID=TRUE; devices seen: %s",
			what, cmp.Or(strings.Join(seen, ", "), "none"))
	case 1:
	default:
		names := make([]string, len(found))
		for i, f := range found {
			names[i] = "/dev/" + f.name
		}
		return "", fmt.Errorf("%s: %s all have that WWN (multipath?); refusing to choose", what, strings.Join(names, " and "))
	}
	dv := found[0]
	dev := "/dev/" + dv.name
	t, ok := scsiTarget(dv.addr)
	switch {
	case dv.readErr != nil:
		return "", fmt.Errorf("%s is %s, whose size cannot be read: %w", what, dev, dv.readErr)
	case !ok:
		return "", fmt.Errorf("%s is %s, whose device %q is not a SCSI address H:C:T:L", what, dev, dv.addr)
	case t != int64(d.Unit):
		return "", fmt.Errorf("%s is %s at SCSI address %s: target %d, not unit %d", what, dev, dv.addr, t, d.Unit)
	case dv.size != d.SizeBytes:
		return "", fmt.Errorf("%s is %s of %d bytes, not the %d bytes the job says", what, dev, dv.size, d.SizeBytes)
	case len(dv.parts) > 0:
		return "", fmt.Errorf("%s is %s, which has partitions (%s); the block suite writes to a whole blank disk only",
			what, dev, strings.Join(dv.parts, ", "))
	}
	return dev, nil
}
