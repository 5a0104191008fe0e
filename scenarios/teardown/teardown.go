package teardown

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"vmbench/dialect"
	"vmbench/internal/guestimage"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
	"vmbench/workload"
)

// Options are what Run needs beside the results directory.
type Options struct {
	// VSphere overrides the recorded vSphere URL and supplies credentials
	// (GOVC_* and flags); the record never holds a password.
	VSphere vsphere.Config
	// Getenv reads the database password variables recorded (it is
	// called only for a database recorded with one).
	Getenv func(string) string
	// Log receives a line per object.
	Log io.Writer
}

// Run removes what the campaign of results directory dir created and
// may have left (a kill -9, a failed teardown, --keep-vms), as `vmbench
// campaign teardown` does: exactly the objects its rundir.ManifestFile
// lists as created and not removed, each marked removed once gone. It is idempotent: a second call finds nothing left.
// Databases are dropped only by the names recorded, VMs destroyed only
// when they carry the campaign's tag and a recorded name, and only the
// recorded temporary directory is removed. It returns how many objects it
// removed or found gone. It refuses, with an error wrapping
// rundir.ErrRunning and removing nothing, a directory whose campaign is
// still running (it holds rundir.LockFile), and holds that lock itself
// while it works. An object it could not remove is left listed and named
// in the error (errors.Join of each), with the count of those removed.
func Run(ctx context.Context, dir string, opts Options) (int, error) {
	left, err := rundir.ReadManifest(dir)
	if err != nil {
		return 0, err
	}
	lock, err := rundir.Lock(dir)
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	if len(left) == 0 {
		fmt.Fprintf(opts.Log, "%s: nothing left to remove\n", dir)
		return 0, nil
	}
	m, err := rundir.AppendManifest(dir, left[0].Campaign)
	if err != nil {
		return 0, err
	}
	defer m.Close()
	var errs []error
	done := 0
	gone := func(e rundir.Created, note string) {
		if err := m.Record(rundir.Created{Op: rundir.OpRemoved, Kind: e.Kind, Name: e.Name, Note: note}); err != nil {
			errs = append(errs, err)
			return
		}
		done++
	}
	var vms []rundir.Created
	for _, e := range left {
		switch e.Kind {
		case rundir.KindVM:
			vms = append(vms, e)
		case rundir.KindDatabase:
			if err := DropDatabase(ctx, e, opts.Getenv); err != nil {
				errs = append(errs, err)
				continue
			}
			fmt.Fprintf(opts.Log, "dropped database %s on %s:%d (if it was there)\n", e.Name, e.DB.Host, e.DB.Port)
			gone(e, "campaign teardown")
		case rundir.KindTempDir, rundir.KindSimDir:
			if err := RemoveTempDir(e); err != nil {
				errs = append(errs, err)
				continue
			}
			fmt.Fprintf(opts.Log, "removed %s\n", e.Name)
			gone(e, "campaign teardown")
		case rundir.KindContainer:
			removed, err := guestimage.RemoveCampaignContainers(ctx, e.Name, e.Campaign)
			if err != nil {
				errs = append(errs, fmt.Errorf("the container of VM %s: %w", e.Name, err))
				continue
			}
			fmt.Fprintf(opts.Log, "removed the container of VM %s (%s)\n", e.Name, containerWords(removed))
			gone(e, "campaign teardown")
		default:
			errs = append(errs, fmt.Errorf("%s: unknown kind %q of %s: left alone", rundir.ManifestFile, e.Kind, e.Name))
		}
	}
	if len(vms) > 0 {
		n, err := teardownVMs(ctx, vms, opts)
		if err != nil {
			errs = append(errs, err)
		} else {
			for _, e := range vms {
				gone(e, n)
			}
		}
	}
	if len(errs) > 0 {
		return done, fmt.Errorf("teardown of %s: %d of %d object(s) removed; run it again once this is fixed: %w", dir, done, len(left), errors.Join(errs...))
	}
	return done, nil
}

// containerWords names the containers removed, or says none was left.
func containerWords(names []string) string {
	if len(names) == 0 {
		return "none was left"
	}
	return strings.Join(names, ", ")
}

// DropDatabase drops the database of manifest entry e (a
// rundir.KindDatabase) with the tool recorded with it (its Config on that
// database, a workload.DatabaseOwner), reading its password, when one was
// recorded, from the variable e.DB.PasswordEnv through getenv. A database
// already gone is no error. It refuses, as an error ending in "left
// alone", a name a campaign does not give (vmbench_...), an unknown tool
// or driver; a failure to drop is an error naming the database and server.
func DropDatabase(ctx context.Context, e rundir.Created, getenv func(string) string) error {
	if e.DB == nil || !strings.HasPrefix(e.Name, "vmbench_") {
		return fmt.Errorf("database %q: not one a campaign names (vmbench_<campaign>_<vm>): left alone", e.Name)
	}
	var cfg workload.Config
	if t, err := workload.Lookup(e.Tool); err == nil {
		cfg = t.NewConfig()
	}
	conn, isConn := cfg.(workload.Connector)
	owner, isOwner := cfg.(workload.DatabaseOwner)
	if !isConn || !isOwner {
		return fmt.Errorf("database %s: tool %q is not known: left alone", e.Name, e.Tool)
	}
	drv, err := dialect.ParseDriver(e.DB.Driver)
	if err != nil {
		return fmt.Errorf("database %s: %w: left alone", e.Name, err)
	}
	db := dialect.Config{Driver: drv, Host: e.DB.Host, Port: e.DB.Port, User: e.DB.User, Database: e.Name}
	if e.DB.PasswordEnv != "" {
		db.Password = getenv(e.DB.PasswordEnv)
	}
	conn.SetDatabase(db)
	err = cfg.Validate()
	if err == nil {
		err = owner.DropDatabase(ctx)
	}
	if err != nil {
		hint := ""
		if e.DB.PasswordEnv != "" && db.Password == "" {
			hint = fmt.Sprintf(" (the password is read from $%s, which is empty)", e.DB.PasswordEnv)
		}
		return fmt.Errorf("dropping database %s on %s:%d%s: %w", e.Name, e.DB.Host, e.DB.Port, hint, err)
	}
	return nil
}

// RemoveTempDir removes, with everything in it, the directory of
// manifest entry e (a rundir.KindTempDir or rundir.KindSimDir), only if
// its name is one a campaign gives it: vmbench-<campaign> (the engine's
// temporary directory) or the simulator's govcsim-*; another name is an
// error ending in "left alone". A directory already gone is no error.
func RemoveTempDir(e rundir.Created) error {
	want := "vmbench-" + e.Campaign
	if e.Kind == rundir.KindSimDir {
		want = "govcsim-"
	}
	if !strings.HasPrefix(filepath.Base(e.Name), want) || (e.Kind == rundir.KindTempDir && filepath.Base(e.Name) != want) {
		return fmt.Errorf("directory %s: not one campaign %s makes (%s...): left alone", e.Name, e.Campaign, want)
	}
	return os.RemoveAll(e.Name)
}

// teardownVMs destroys the recorded VMs (one campaign's, on one vSphere)
// and returns the note recorded with them.
func teardownVMs(ctx context.Context, vms []rundir.Created, opts Options) (string, error) {
	where, campaign := vms[0].VSphere, vms[0].Campaign
	if where == nil {
		return "", fmt.Errorf("VMs of campaign %s: no vSphere recorded: left alone", campaign)
	}
	if where.InProcess {
		fmt.Fprintf(opts.Log, "%d VM(s) of campaign %s were in the campaign's in-process simulator and ended with it\n", len(vms), campaign)
		return "ended with the in-process simulator", nil
	}
	cfg := opts.VSphere
	if cfg.URL == "" {
		cfg.URL = where.URL
	}
	if cfg.Datacenter == "" {
		cfg.Datacenter = where.Datacenter
	}
	s, err := vsphere.Connect(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("VMs of campaign %s on %s: %w", campaign, where.URL, err)
	}
	defer s.Close(context.WithoutCancel(ctx))
	names := make([]string, len(vms))
	for i, e := range vms {
		names[i] = e.Name
	}
	n, err := s.DestroyVMs(ctx, campaign, names, func(m string) { fmt.Fprintln(opts.Log, m) })
	if err != nil {
		return "", err
	}
	fmt.Fprintf(opts.Log, "destroyed %d VM(s) of campaign %s (of %d recorded; the others were gone)\n", n, campaign, len(vms))
	return "campaign teardown", nil
}
