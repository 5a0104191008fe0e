package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resultsDir returns the one results directory under parent.
func resultsDir(t *testing.T, parent string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(parent, "*"))
	if len(dirs) != 1 {
		t.Fatalf("results dirs %v, want one", dirs)
	}
	return dirs[0]
}

// yamlBody is a campaign.yaml from its first key on: without the
// comment lines that name the run (id, time, host).
func yamlBody(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\nname: ")
	if !ok {
		t.Fatalf("%s has no name: key:\n%s", path, b)
	}
	return body
}

// The campaign.yaml of a results directory runs again as it is, on
// SQLite (it used to say database: {driver: sqlite}, which campaign run
// refused) and on the --db-dsn server, which it names without the
// password, and the rerun records the same campaign.
func TestResultsCampaignYAMLReruns(t *testing.T) {
	t.Parallel()
	eachCampaignDatabase(t, func(t *testing.T, dsn string) {
		if strings.HasPrefix(dsn, "mysql://") {
			t.Skip("a MariaDB server's db-server record reruns in scenarios' TestResolvedCampaignReloadsAndRerunsTheSame; the same code records PostgreSQL's, tested here")
		}
		first, second := t.TempDir(), t.TempDir()
		runSimulatedCampaign(t, writeFile(t, "tiny.yaml", tinyCampaign), first, dsnArgs(dsn)...)
		ran := filepath.Join(resultsDir(t, first), "campaign.yaml")
		runSimulatedCampaign(t, ran, second)
		want, got := yamlBody(t, ran), yamlBody(t, filepath.Join(resultsDir(t, second), "campaign.yaml"))
		if got != want {
			t.Errorf("the rerun ran a different campaign:\nfirst:\n%s\nrerun:\n%s", want, got)
		}
		if strings.Contains(want, "sqlite") {
			t.Errorf("campaign.yaml names sqlite as the database driver:\n%s", want)
		}
		if dsn != "" && !strings.Contains(want, "db-server: "+dsn) {
			t.Errorf("campaign.yaml does not name the database server %s:\n%s", dsn, want)
		}
	})
}
