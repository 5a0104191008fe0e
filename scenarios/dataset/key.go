package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vmbench/dialect"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
	"vmbench/workload"
)

// This file is what a campaign's data set is, from its campaign file:
// its key, the layout vDisk it is saved from, and the checks of the
// data: block before anything is created.

// NewKey is the key of the data that cfg (workload tool's Config, a
// workload.DataShaper) loads onto the layout vDisk disk, on the engine
// of server (nil: SQLite, the engine of this process). Without
// withEngine its Engine is left empty (read from a VM once one is up).
// A cfg without a data shape is an error saying so; reading the
// engine's version is dialect.ServerVersion's (the key is returned with
// it, its Engine then empty).
func NewKey(ctx context.Context, tool string, cfg workload.Config, disk vsphere.VDisk, server *dialect.Config, withEngine bool) (rundir.DataKey, error) {
	shaper, ok := cfg.(workload.DataShaper)
	if !ok {
		return rundir.DataKey{Disk: diskKey(disk)}, fmt.Errorf("workload tool %s has no data shape: its data cannot be pre-built (use data: {source: load})", tool)
	}
	key := rundir.DataKey{Tool: tool, Shape: shaper.DataShape(), Disk: diskKey(disk)}
	if !withEngine {
		return key, nil
	}
	engine, err := engineVersion(ctx, server)
	key.Engine = engine
	return key, err
}

// engineVersion is dialect.ServerVersion of server, or of this process's
// SQLite (read from a throwaway file) when server is nil.
func engineVersion(ctx context.Context, server *dialect.Config) (string, error) {
	if server != nil {
		return dialect.ServerVersion(ctx, server.WithDatabase(""))
	}
	f, err := os.CreateTemp("", "vmbench-sqlite-version-*.db")
	if err != nil {
		return "", err
	}
	f.Close()
	probe := dialect.Config{Driver: dialect.SQLite, SQLitePath: f.Name()}
	defer func() { _ = dialect.DropDatabase(context.WithoutCancel(ctx), probe) }()
	return dialect.ServerVersion(ctx, probe)
}

// diskKey is a DataKey's Disk: "db-test 270GB".
func diskKey(d vsphere.VDisk) string { return fmt.Sprintf("%s %dGB", d.Name, d.SizeGB) }

// diskDefaults are the data disks of the built-in roles: the disk that
// holds the database under test.
var diskDefaults = []string{"db-test", "data-log"}

// Disk is the vDisk of layout l that holds the database under test of
// campaign s (data.disk, or the role's default): the disk a data set is
// saved from and restored onto. Errors name data.disk (with the file and
// line) and the layout's data disks.
func Disk(s *spec.Campaign, l vsphere.Layout) (vsphere.VDisk, error) {
	want := ""
	if s.Data != nil {
		want = s.Data.Disk
	}
	var names []string
	for _, d := range l.Disks[min(1, len(l.Disks)):] {
		if d.Name == want || want == "" && slices.Contains(diskDefaults, d.Name) {
			return d, nil
		}
		names = append(names, d.Name)
	}
	if want == "" {
		return vsphere.VDisk{}, s.Origin.Errorf("data", "data.disk: name the vDisk of layout %s that holds the database under test (one of %s)", l.Role, strings.Join(names, ", "))
	}
	return vsphere.VDisk{}, s.Origin.Errorf("data.disk", "data.disk: layout %s has no data disk %q (its data disks: %s)", l.Role, want, strings.Join(names, ", "))
}

// Check refuses, before anything is created, a data: block of campaign
// cf (its workload's Config cfg, its VMs' layout) that cannot work: a
// data.dir that cannot be a directory, a data.disk that is not a data
// disk of the layout (Disk), and a prebuilt source for a tool whose data
// has no shape (workload.DataShaper). Errors name the file and line.
func Check(cf *spec.Campaign, cfg workload.Config, layout vsphere.Layout) error {
	if cf.Data == nil {
		return nil
	}
	if err := checkDir(cf); err != nil {
		return err
	}
	if cf.Data.Disk != "" || cf.Prebuilt() {
		if _, err := Disk(cf, layout); err != nil {
			return err
		}
	}
	if !cf.Prebuilt() {
		return nil
	}
	if _, ok := cfg.(workload.DataShaper); !ok {
		return cf.Origin.Errorf("data.source", "data.source: prebuilt: workload tool %s has no data shape, so its data cannot be pre-built (use source: load)", cf.Workload.Tool)
	}
	return nil
}

// checkDir refuses a data.dir that cannot be a directory: one that
// starts with "~" (YAML does not expand it), or whose nearest existing
// path is not a directory.
func checkDir(cf *spec.Campaign) error {
	dir := cf.DataDir()
	if strings.HasPrefix(dir, "~") {
		return cf.Origin.Errorf("data.dir", "data.dir: %s: write the home directory out (a campaign file does not expand ~), or give a path relative to the working directory", dir)
	}
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return cf.Origin.Errorf("data.dir", "data.dir: %s is not a directory, so %s cannot be one", p, dir)
			}
			return nil
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}
