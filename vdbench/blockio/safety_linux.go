package blockio

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// hostFiles are where the in-use checks read the system's state; tests
// point them at fake trees.
type hostFiles struct {
	mountinfo string // /proc/self/mountinfo
	swaps     string // /proc/swaps
	sysBlock  string // /sys/class/block: one directory per block device
}

var realHost = hostFiles{mountinfo: "/proc/self/mountinfo", swaps: "/proc/swaps", sysBlock: "/sys/class/block"}

// deviceName returns the kernel name ("sda", "nvme0n1p2") of the block
// device at path, through /sys/dev/block/MAJOR:MINOR.
func deviceName(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	link := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	target, err := os.Readlink(link)
	if err != nil {
		return "", fmt.Errorf("%s: finding its kernel name: %w", path, err)
	}
	return filepath.Base(target), nil
}

// blockDev is one block device of the set a check covers.
type blockDev struct {
	name string // kernel name
	dev  string // "MAJOR:MINOR"
}

// family returns the device name and its partitions (the directories
// under its sysfs directory that hold a "partition" file).
func (h hostFiles) family(name string) []blockDev {
	devOf := func(dir string) string {
		b, _ := os.ReadFile(filepath.Join(dir, "dev"))
		return strings.TrimSpace(string(b))
	}
	dir := filepath.Join(h.sysBlock, name)
	out := []blockDev{{name: name, dev: devOf(dir)}}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "partition")); err == nil {
			out = append(out, blockDev{name: e.Name(), dev: devOf(sub)})
		}
	}
	return out
}

// checkDeviceFree refuses the block device named name (lun is the path
// the user gave) when it or one of its partitions is mounted, is a swap
// area, or has holders (md, LVM/device mapper, bcache...). The error
// names the device and the reason.
func (h hostFiles) checkDeviceFree(lun, name string) error {
	fam := h.family(name)
	var errs []error
	for _, d := range fam {
		what := lun
		if d.name != name {
			what = fmt.Sprintf("%s (partition %s)", lun, d.name)
		}
		holders, _ := os.ReadDir(filepath.Join(h.sysBlock, d.name, "holders"))
		if len(holders) > 0 {
			names := make([]string, len(holders))
			for i, x := range holders {
				names[i] = x.Name()
			}
			errs = append(errs, fmt.Errorf("%s is held by %s (md RAID, LVM or device mapper)", what, strings.Join(names, ", ")))
		}
	}
	mounts, err := h.mounted(fam)
	if err != nil {
		return fmt.Errorf("%s: checking whether it is mounted: %w", lun, err)
	}
	errs = append(errs, mounts...)
	swaps, err := h.swapping(fam)
	if err != nil {
		return fmt.Errorf("%s: checking whether it is swap: %w", lun, err)
	}
	errs = append(errs, swaps...)
	if len(errs) > 0 {
		return fmt.Errorf("refusing to write to %s (%s): %w", lun, name, errors.Join(errs...))
	}
	return nil
}

// mounted lists, as errors, the mounts of any device in fam, matched by
// MAJOR:MINOR (field 3 of mountinfo) or by the mount source's name.
func (h hostFiles) mounted(fam []blockDev) ([]error, error) {
	f, err := os.Open(h.mountinfo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var errs []error
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if len(fields) < 5 || sep < 0 || sep+2 >= len(fields) {
			continue
		}
		dev, point, source := fields[2], unescapeMount(fields[4]), fields[sep+2]
		for _, d := range fam {
			if (d.dev != "" && dev == d.dev) || (strings.HasPrefix(source, "/dev/") && filepath.Base(source) == d.name) {
				errs = append(errs, fmt.Errorf("%s is mounted on %s (%s)", "/dev/"+d.name, point, fields[sep+1]))
				break
			}
		}
	}
	return errs, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range []byte(s[i+1 : i+4]) {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + c - '0'
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// swapping lists, as errors, the swap areas of /proc/swaps on a device in
// fam, matched by name or by device number.
func (h hostFiles) swapping(fam []blockDev) ([]error, error) {
	b, err := os.ReadFile(h.swaps)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var errs []error
	for i, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if i == 0 || len(fields) == 0 {
			continue // header
		}
		path := fields[0]
		dev := ""
		var st unix.Stat_t
		if unix.Stat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFBLK {
			dev = fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))
		}
		for _, d := range fam {
			if filepath.Base(path) == d.name || (dev != "" && dev == d.dev) {
				errs = append(errs, fmt.Errorf("/dev/%s is in use as swap (%s)", d.name, path))
				break
			}
		}
	}
	return errs, nil
}
