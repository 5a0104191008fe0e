package dataset

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
	"vmbench/vsphere"
)

// This file is a data set's key file: what it records, finding the one
// of a key in a data directory, reading and writing it.

// Set is a data set's key file, <dir>/<key ID>.json, written last,
// once the data is loaded and checked: a data set without it is not one.
type Set struct {
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

// New is the data set of key that campaign (the campaign file's name)
// makes now, its key file and SQLite file in dir: where its data goes
// (SQLiteFile, or Database and Server) is the caller's to set.
func New(key rundir.DataKey, campaign, dir string) *Set {
	return &Set{Key: key, Created: time.Now().UTC().Truncate(time.Second), Campaign: campaign, dir: dir}
}

// Config is where the data set's data is, on the engine of server (nil
// for SQLite): its SQLite file in its directory, or its database on
// server.
func (d *Set) Config(server *dialect.Config) dialect.Config {
	if d.SQLiteFile != "" {
		return dialect.Config{Driver: dialect.SQLite, SQLitePath: filepath.Join(d.dir, d.SQLiteFile)}
	}
	return server.WithDatabase(d.Database)
}

// Present checks that the data set's data is still there: its SQLite
// file, or its database on server with tables in it; serverName is how
// errors name server (without its password). A data set whose key file
// outlived its data is an error saying so, a database on a server not
// given (nil) one saying to give it; a data set made on vSphere (its data
// on its vDisks: MissingOn) is present.
func (d *Set) Present(ctx context.Context, server *dialect.Config, serverName string) error {
	if d.SQLiteFile == "" && d.Database == "" {
		return nil // made on vSphere: its data is on its vDisks (MissingOn)
	}
	cfg := d.Config(server)
	if d.SQLiteFile != "" {
		if _, err := os.Stat(cfg.SQLitePath); err != nil {
			return fmt.Errorf("data set %s: its data file is gone (%w); make it again with vmbench campaign prepare-data", d.Key.ID(), err)
		}
		return nil
	}
	if server == nil {
		return fmt.Errorf("data set %s is on the server %s: give it with --db-dsn", d.Key.ID(), d.Server)
	}
	tables, err := dialect.Tables(ctx, d.Config(server))
	if err != nil && !dialect.IsUnknownDatabase(err) {
		return fmt.Errorf("data set %s: %w", d.Key.ID(), err)
	}
	if len(tables) == 0 {
		return fmt.Errorf("data set %s: its database %s on %s has no tables (dropped?); make it again with vmbench campaign prepare-data", d.Key.ID(), d.Database, serverName)
	}
	return nil
}

// Find returns the data set of key in dir. None is an error that names
// the key, lists the data sets of the same tool in dir with how they
// differ, and says how to make one; a key file whose key is not the one
// its name says, or that is not a key file, is an error naming it.
func Find(dir string, key rundir.DataKey) (*Set, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("data.dir %s is not a directory", dir)
	}
	path := filepath.Join(dir, key.ID()+".json")
	ds, err := read(path)
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
		if other, err := read(f); err == nil {
			near = append(near, fmt.Sprintf("%s differs in %s", filepath.Base(f), strings.Join(key.Differences(other.Key), ", ")))
		}
	}
	if len(near) > 0 {
		msg += "; a different key is refused, not used: " + strings.Join(near, "; ")
	}
	return nil, errors.New(msg + "; make it with: vmbench campaign prepare-data FILE (with the same flags and database, and --simulate for simulated runs)")
}

// FindAnyEngine returns the one data set in dir of key's tool, shape and
// disk, whatever its engine: where the databases are in the guests the
// engine is read from the VMs once they are up, and checked then. None
// is Find's error; several (made on different engines) is an error
// listing them.
func FindAnyEngine(dir string, key rundir.DataKey) (*Set, error) {
	files, _ := filepath.Glob(filepath.Join(dir, key.Tool+"-*.json"))
	var found []*Set
	for _, f := range files {
		ds, err := read(f)
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
		return Find(dir, key)
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

// read reads a key file strictly (decode).
func read(path string) (*Set, error) {
	b, err := boundedread.ReadFile(path, spec.MaxFileSize) // a key file is a few hundred bytes
	if err != nil {
		return nil, err
	}
	ds, err := decode(path, b)
	if err != nil {
		return nil, err
	}
	ds.dir = filepath.Dir(path)
	return ds, nil
}

// decode decodes the key file named name strictly: no unknown field, a
// key with a tool, and file names (sqlite_file, vdisk) that stay in
// their directory.
func decode(name string, b []byte) (*Set, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ds Set
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
func (d *Set) differences(other *Set) []string {
	out := d.Key.Differences(other.Key)
	if d.VDisk != other.VDisk {
		out = append(out, fmt.Sprintf("vdisk %q (wanted %q)", other.VDisk, d.VDisk))
	}
	return out
}

// Write writes ds's key file into dir, atomically and last. With sim,
// the in-process simulator (nil for none), it first keeps the data set's
// files of sim's datastores in dir (SimDir), for the simulators of later
// processes (SeedSim). Errors are the file system's.
func Write(dir string, ds *Set, sim *vsphere.Simulator) error {
	if sim != nil {
		if err := keepSim(sim, dir, ds); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ds.Key.ID()+".json"), append(b, '\n'))
}
