package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/testdb"
)

func TestReadPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body string
		mode       os.FileMode
		want       string // the password, or a part of the error
		ok         bool
	}{
		{"plain", "s3cret\n", 0o600, "s3cret", true},
		{"crlf", "s3cret\r\n", 0o640, "s3cret", true},
		{"no newline", " spaced pw ", 0o400, " spaced pw ", true},
		{"world", "s3cret\n", 0o644, "readable by every user (mode 0644); make it private first: chmod 600", false},
		{"empty", "\n", 0o600, "is empty", false},
		{"two lines", "a\nb\n", 0o600, "more than one line", false},
		{"huge", strings.Repeat("x", maxPasswordFile+1), 0o600, "more than a password", false},
	} {
		got, err := readPasswordFile(write(tc.name, tc.body, tc.mode))
		switch {
		case tc.ok && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		case !tc.ok && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
	if _, err := readPasswordFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

func TestDSNPasswordSources(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"VMBENCH_DB_PASSWORD": "from-campaign-env", "MYSQL_PWD": "from-mysql-pwd", "SQLCMDPASSWORD": "from-sqlcmd"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name   string
		inline string
		drv    dialect.Driver
		p      dsnPassword
		want   string
	}{
		{"inline wins over the environment", "inline", dialect.MySQL, dsnPassword{env: "VMBENCH_DB_PASSWORD", getenv: getenv}, "inline"},
		{"file", "", dialect.MySQL, dsnPassword{file: file, env: "VMBENCH_DB_PASSWORD", getenv: getenv}, "from-file"},
		{"campaign's password-env", "", dialect.MySQL, dsnPassword{env: "VMBENCH_DB_PASSWORD", getenv: getenv}, "from-campaign-env"},
		{"MYSQL_PWD", "", dialect.MySQL, dsnPassword{getenv: getenv}, "from-mysql-pwd"},
		{"an empty password-env falls back", "", dialect.MySQL, dsnPassword{env: "UNSET", getenv: getenv}, "from-mysql-pwd"},
		{"SQLCMDPASSWORD for SQL Server", "", dialect.SQLServer, dsnPassword{getenv: getenv}, "from-sqlcmd"},
	} {
		cfg := dialect.Config{Driver: tc.drv, Password: tc.inline}
		if err := tc.p.fill(&cfg); err != nil || cfg.Password != tc.want {
			t.Errorf("%s: password %q, %v; want %q", tc.name, cfg.Password, err, tc.want)
		}
	}
	cfg := dialect.Config{Driver: dialect.MySQL, Password: "inline"}
	if err := (dsnPassword{file: file}).fill(&cfg); err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "give it once") {
		t.Errorf("inline and file: %v, want a usage error", err)
	}
}

// flagNames are the --flags an error message names.
var flagNames = regexp.MustCompile(`--[a-z][a-z0-9-]*`)

// TestDBDSNPasswordFromEnvAndFile: campaign run --db-dsn without a password
// in it logs in with $MYSQL_PWD or --db-password-file (the password never
// on the command line), and a refused login names only flags campaign run
// has, never the password.
func TestDBDSNPasswordFromEnvAndFile(t *testing.T) {
	srv := testdb.Shared(t)
	admin, err := dialect.Open(context.Background(), dialect.Config{Driver: dialect.MySQL, Host: srv.Host(), Port: srv.Port(), User: srv.User()})
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the cleanup below drops the user (cleanups run last
	// first; a defer would close it before them).
	t.Cleanup(func() { _ = admin.Close() })
	const user, pw = "h5pw", "Pw-only-in-env"
	for _, q := range []string{"DROP USER IF EXISTS '" + user + "'@'%'", "CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + pw + "'"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'"); err != nil {
			t.Errorf("dropping the test user: %v", err)
		}
	})

	campaign := writeFile(t, "tiny.yaml", tinyCampaign)
	// A results directory that cannot be made stops the command right
	// after the --db-dsn check, which is all this test is about.
	notDir := writeFile(t, "not-a-dir", "")
	dsn := fmt.Sprintf("mysql://%s@%s:%d/", user, srv.Host(), srv.Port())
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"campaign", "run", campaign, "--simulate", "--db-dsn", dsn, "--results-dir", filepath.Join(notDir, "x")}
	for _, tc := range []struct {
		name  string
		env   map[string]string
		extra []string
	}{
		{"MYSQL_PWD", map[string]string{"MYSQL_PWD": pw}, nil},
		{"--db-password-file", nil, []string{"--db-password-file", pwFile}},
	} {
		code, _, stderr := runCLI(t, tc.env, append(args, tc.extra...)...)
		if code != 2 || !strings.Contains(stderr, "--results-dir") || strings.Contains(stderr, "--db-dsn") {
			t.Errorf("%s: exit %d, want the login to pass and --results-dir refused:\n%s", tc.name, code, stderr)
		}
	}

	cmdFlags := newCampaignRunCmd(&app{getenv: func(string) string { return "" }}).Flags()
	code, _, stderr := runCLI(t, map[string]string{"MYSQL_PWD": "wrong-" + pw}, args...)
	if code != 2 || !strings.Contains(stderr, "Access denied") || !strings.Contains(stderr, "--db-password-file") {
		t.Errorf("wrong password: exit %d, want 2 with access denied and where the password comes from:\n%s", code, stderr)
	}
	for _, f := range flagNames.FindAllString(stderr, -1) {
		if cmdFlags.Lookup(strings.TrimPrefix(f, "--")) == nil {
			t.Errorf("the error names %s, which campaign run does not have:\n%s", f, stderr)
		}
	}
	if strings.Contains(stderr, pw) {
		t.Errorf("the error shows the password:\n%s", stderr)
	}
	if code, _, stderr := runCLI(t, nil, "campaign", "run", campaign, "--simulate", "--db-password-file", pwFile); code != 2 ||
		!strings.Contains(stderr, "--db-password-file: only with --db-dsn") {
		t.Errorf("--db-password-file without --db-dsn: exit %d\n%s", code, stderr)
	}
}
