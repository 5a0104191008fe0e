package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vmbench/dialect"
	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/workload"
)

// This file keeps pre-built data sets: a workload's data loaded and
// checked once (`vmbench campaign prepare-data`), then restored into each
// VM's database before each run instead of loaded again, the way the
// review protocol keeps a pristine copy of the database under test.

// DataSet is a data set's key file, <dir>/<key ID>.json, written last,
// once the data is loaded and checked: a data set without it is not one.
type DataSet struct {
	Key rundir.DataKey `json:"key"`
	// SQLiteFile is the data's file, in the key file's directory (SQLite);
	// Database the data's database on Server (MySQL, MariaDB, PostgreSQL),
	// Server "mysql://user@host:port/" or "postgres://user@host:port/"
	// without a password.
	SQLiteFile string `json:"sqlite_file,omitempty"`
	Database   string `json:"database,omitempty"`
	Server     string `json:"server,omitempty"`
	// Created is when it was made, by Campaign (the campaign file's name).
	Created  time.Time `json:"created"`
	Campaign string    `json:"campaign"`
	// Checked says the workload's consistency checks passed on it
	// (workload.Checker; false for a tool without checks).
	Checked bool `json:"checked"`
	// VDisk is the data set's vDisk, a file in vsphere.DataDir on each of
	// Datastores ("sysbench-0123abcd4567.vmdk"), saved from the loader
	// VM's Key.Disk; the key file is beside it on each datastore.
	VDisk      string   `json:"vdisk"`
	Datastores []string `json:"datastores"`

	dir string // the directory it was read from
}

// config is where the data set's data is, on the engine of server (nil
// for SQLite).
func (d *DataSet) config(server *dialect.Config) dialect.Config {
	if d.SQLiteFile != "" {
		return dialect.Config{Driver: dialect.SQLite, SQLitePath: filepath.Join(d.dir, d.SQLiteFile)}
	}
	return server.WithDatabase(d.Database)
}

// present checks that the data set's data is still there: its SQLite
// file, or its database on server with tables in it. A data set whose
// key file outlived its data is an error saying so.
func (d *DataSet) present(ctx context.Context, server *dialect.Config) error {
	if d.SQLiteFile == "" && d.Database == "" {
		return nil // made on vSphere: its data is on its vDisks (onDatastores)
	}
	cfg := d.config(server)
	if d.SQLiteFile != "" {
		if _, err := os.Stat(cfg.SQLitePath); err != nil {
			return fmt.Errorf("data set %s: its data file is gone (%w); make it again with vmbench campaign prepare-data", d.Key.ID(), err)
		}
		return nil
	}
	if server == nil {
		return fmt.Errorf("data set %s is on the server %s: give it with --db-dsn", d.Key.ID(), d.Server)
	}
	tables, err := dialect.Tables(ctx, d.config(server))
	if err != nil && !dialect.IsUnknownDatabase(err) {
		return fmt.Errorf("data set %s: %w", d.Key.ID(), err)
	}
	if len(tables) == 0 {
		return fmt.Errorf("data set %s: its database %s on %s has no tables (dropped?); make it again with vmbench campaign prepare-data", d.Key.ID(), d.Database, describeDB(*server))
	}
	return nil
}

// dataKey is the key of the data cfg loads on the engine at server (nil:
// SQLite, the engine of this process); without withEngine its Engine is
// left empty. cfg must be a workload.DataShaper.
func dataKey(ctx context.Context, tool string, cfg workload.Config, server *dialect.Config, withEngine bool) (rundir.DataKey, error) {
	shaper, ok := cfg.(workload.DataShaper)
	if !ok {
		return rundir.DataKey{}, fmt.Errorf("workload tool %s has no data shape: its data cannot be pre-built (use data: {source: load})", tool)
	}
	key := rundir.DataKey{Tool: tool, Shape: shaper.DataShape()}
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

// findDataSet returns the data set of key in dir. None is an error that
// names the key, lists the data sets of the same tool in dir with how
// they differ, and says how to make one.
func findDataSet(dir string, key rundir.DataKey) (*DataSet, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("data.dir %s is not a directory", dir)
	}
	path := filepath.Join(dir, key.ID()+".json")
	ds, err := readDataSet(path)
	if err == nil {
		if !slices.Equal(key.Differences(ds.Key), nil) {
			return nil, fmt.Errorf("%s: its key does not match its name (%s): the file was edited", path, strings.Join(key.Differences(ds.Key), ", "))
		}
		return ds, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	where := dir
	if abs, err := filepath.Abs(dir); err == nil {
		where = abs
	}
	msg := fmt.Sprintf("no pre-built data set for %s in %s (data.dir, relative to the working directory; data.source: prebuilt)", key, where)
	files, _ := filepath.Glob(filepath.Join(dir, key.Tool+"-*.json"))
	var near []string
	for _, f := range files {
		if other, err := readDataSet(f); err == nil {
			near = append(near, fmt.Sprintf("%s differs in %s", filepath.Base(f), strings.Join(key.Differences(other.Key), ", ")))
		}
	}
	if len(near) > 0 {
		msg += "; a different key is refused, not used: " + strings.Join(near, "; ")
	}
	return nil, errors.New(msg + "; make it with: vmbench campaign prepare-data FILE (with the same flags and database, and --simulate for simulated runs)")
}

// findDataSetAnyEngine returns the one data set in dir of key's tool,
// shape and disk, whatever its engine: outside simulation the engine is
// read from the VMs once they are up, and checked then. None is
// findDataSet's error; several (made on different engines) is an error
// listing them.
func findDataSetAnyEngine(dir string, key rundir.DataKey) (*DataSet, error) {
	files, _ := filepath.Glob(filepath.Join(dir, key.Tool+"-*.json"))
	var found []*DataSet
	for _, f := range files {
		ds, err := readDataSet(f)
		if err != nil {
			continue
		}
		k := ds.Key
		k.Engine = key.Engine
		if len(key.Differences(k)) == 0 {
			found = append(found, ds)
		}
	}
	switch len(found) {
	case 0:
		return findDataSet(dir, key)
	case 1:
		return found[0], nil
	}
	var names []string
	for _, ds := range found {
		names = append(names, ds.Key.ID()+" on "+ds.Key.Engine)
	}
	return nil, fmt.Errorf("data.dir %s holds %d data sets for %s, made on different engines (%s): the VMs' engine is known only once they are up, so keep one (remove the others' key files)",
		dir, len(found), key, strings.Join(names, ", "))
}

// readDataSet reads a key file strictly (decodeDataSet).
func readDataSet(path string) (*DataSet, error) {
	b, err := boundedread.ReadFile(path, spec.MaxFileSize) // a key file is a few hundred bytes
	if err != nil {
		return nil, err
	}
	ds, err := decodeDataSet(path, b)
	if err != nil {
		return nil, err
	}
	ds.dir = filepath.Dir(path)
	return ds, nil
}

// decodeDataSet decodes the key file named name strictly: no unknown
// field, a key with a tool, and file names (sqlite_file, vdisk) that
// stay in their directory.
func decodeDataSet(name string, b []byte) (*DataSet, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ds DataSet
	if err := dec.Decode(&ds); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench data set key file: %w", name, err)
	}
	for field, f := range map[string]string{"sqlite_file": ds.SQLiteFile, "vdisk": ds.VDisk} {
		if f != "" && (filepath.Base(f) != f || strings.ContainsAny(f, `/\`) || f == "." || f == "..") {
			return nil, fmt.Errorf("%s: %s %q is not a file name in the data set's directory: the file was edited", name, field, f)
		}
	}
	if ds.Key.Tool == "" {
		return nil, fmt.Errorf("%s: not a vmbench data set key file: its key names no tool", name)
	}
	return &ds, nil
}

// differences lists how other (a copy of d's key file, on a datastore)
// differs from d: its key's differences, and its vDisk.
func (d *DataSet) differences(other *DataSet) []string {
	out := d.Key.Differences(other.Key)
	if d.VDisk != other.VDisk {
		out = append(out, fmt.Sprintf("vdisk %q (wanted %q)", other.VDisk, d.VDisk))
	}
	return out
}

// writeDataSet writes ds's key file atomically, last.
func writeDataSet(dir string, ds *DataSet) error {
	b, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ds.Key.ID()+".json"), append(b, '\n'))
}
