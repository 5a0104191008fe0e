package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
)

// editFile replaces old with repl in the file once, or fails.
func editFile(t *testing.T, path, old, repl string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), old, repl, 1)
	if s == string(b) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRenderRefusesWhatIsNotAResultsDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := Render(dir); err == nil || !strings.Contains(err.Error(), dir+" is not a vmbench results directory: it has no run.json, campaign.yaml or suite.yaml") {
		t.Errorf("empty directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yaml"), []byte("kind: block-suite\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(dir); err == nil || !strings.Contains(err.Error(), "has suite.yaml but no run.json") {
		t.Errorf("no run.json: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.RunFile), []byte(`{"version": 7, "kind": "block-suite", "future": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(dir); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("run.json: version 7 is not supported (this vmbench reads versions 1 to %d", rundir.RunInfoVersion)) {
		t.Errorf("newer run.json: %v", err)
	}
	if _, err := Render(filepath.Join(dir, "suite.yaml")); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a file: %v", err)
	}
}
