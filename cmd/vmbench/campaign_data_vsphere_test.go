package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/testdb"
	"vmbench/scenarios"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// TestPrebuiltDataOnVSphere runs prepare-data and a prebuilt run the way
// they run on vSphere (not simulated): against a vcsim started here whose
// VMs report 127.0.0.1 (Options.VcsimGuestIP), so that "the database in
// the VM" is the test MariaDB server. What vcsim cannot show: that the
// restored vDisk holds the data. The database the run checks is the one
// the loader VM filled, as the restored vDisk would hold it; the vDisk
// copies are checked on the simulated datastores.
func TestPrebuiltDataOnVSphere(t *testing.T) {
	t.Parallel()
	sim := startSimulator(t, 2)
	srv := testdb.Shared(t)
	dataDir, res := t.TempDir(), t.TempDir()
	db := fmt.Sprintf("vmbench_onvs_%d", os.Getpid())
	t.Cleanup(func() {
		_ = dialect.DropDatabase(context.Background(), dialect.Config{Driver: dialect.MySQL, Host: srv.Host(), Port: srv.Port(), User: srv.User(), Database: db})
	})
	cf, err := spec.Parse("onvs.yaml", []byte(fmt.Sprintf(`name: onvs
vms: {role: sysbench, count: 2, datastores: [LocalDS_0, LocalDS_1], template: %s, ip-timeout: 10s}
database: {driver: mysql, port: %d, user: root, db: %s}
workload:
  tool: sysbench
  name: oltp_read_only
  flags: {tables: 1, table-size: 300, threads: 1, time: 1s, report-interval: 1s}
data: {source: prebuilt, dir: %s}
`, vsphere.SimTemplate, srv.Port(), db, dataDir)))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	opts := scenarios.Options{VSphere: sim.Config(), VcsimGuestIP: "127.0.0.1", ResultsDir: res, Out: io.Discard,
		Log: &syncBuilder{b: &log}, Getenv: func(string) string { return "" }, StartDelay: time.Millisecond}

	checked, err := scenarios.Check(cf, opts)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := scenarios.PrepareData(t.Context(), checked)
	if err != nil || !strings.Contains(log.String(), "sbtest1: want 300 rows") || !strings.Contains(log.String(), "shutting down sysbench-data-01's guest") {
		t.Fatalf("prepare-data: %v\n%s", err, log.String())
	}
	id := ds.Key.ID()
	if !strings.HasPrefix(ds.Key.Engine, "mysql ") || ds.VDisk != id+".vmdk" || len(ds.Datastores) != 2 {
		t.Fatalf("data set %+v", ds)
	}
	for _, name := range sim.Datastores() {
		if _, err := os.Stat(filepath.Join(sim.DatastoreDir(name), vsphere.DataDir, id+".vmdk")); err != nil {
			t.Errorf("the vDisk on %s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "simulated")); err == nil {
		t.Error("outside simulation prepare-data kept simulated datastore files")
	}

	log.Reset()
	if checked, err = scenarios.Check(cf, opts); err != nil {
		t.Fatal(err)
	}
	out, err := scenarios.Run(t.Context(), checked)
	if err != nil || strings.Count(log.String(), "db-test restored from [LocalDS_") != 2 || strings.Contains(log.String(), "Creating") ||
		strings.Count(log.String(), "sbtest1: want 300 rows, ids 1..300: ok") != 2 {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if out.Merged.Parts != 2 {
		t.Errorf("merged %d parts", out.Merged.Parts)
	}

	// A data set of the same shape made on another engine (its key file
	// here and on the datastores, naming the same vDisk): the run refuses
	// it once it reads the VMs' engine, before measuring.
	s, err := vsphere.Connect(context.Background(), sim.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ds.Key.Engine = "mysql 0.0.1-other"
	other, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dataDir, id+".json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, ds.Key.ID()+".json"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range sim.Datastores() {
		if err := s.PutFile(context.Background(), vsphere.DataFile(name, ds.Key.ID()+".json"), other); err != nil {
			t.Fatal(err)
		}
	}
	log.Reset()
	if checked, err = scenarios.Check(cf, opts); err != nil {
		t.Fatal(err)
	}
	_, err = scenarios.Run(t.Context(), checked)
	if err == nil || !strings.Contains(err.Error(), "was made on mysql 0.0.1-other") || !strings.Contains(err.Error(), "refused, not used") {
		t.Fatalf("run on another engine: %v\n%s", err, log.String())
	}
	if vms, err := s.List(context.Background(), ""); err != nil || len(vms) != 0 {
		t.Errorf("left behind: %v %v", vms, err)
	}
}

// syncBuilder is a strings.Builder safe for the campaign's goroutines.
type syncBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncBuilder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
