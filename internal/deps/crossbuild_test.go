package deps

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCrossBuild builds the vmbench binary for Windows (the SQL Server
// VMs' guests; the agent runs there), with cgo off as `make agents` builds
// it. A package that uses a Unix-only call outside a build-tagged file
// fails here. It takes under 10 s on a warm build cache (a minute or two
// on a cold one), so -short skips it. linux/arm64 compiles the very files
// of linux/amd64 (TestNoArchSpecificFiles), so the native build stands for
// it and make test spends no second cold build of every dependency on it;
// `make agents` builds it.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the windows/amd64 build of ./cmd/vmbench (run without -short, or make agents)")
	}
	out := filepath.Join(t.TempDir(), "vmbench.exe")
	cmd := exec.Command("go", "build", "-o", out, "vmbench/cmd/vmbench")
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=windows GOARCH=amd64 go build ./cmd/vmbench: %v\n%s", err, msg)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("go build succeeded but left no binary at %s (%v)", out, err)
	}
	t.Logf("built in %v", time.Since(start).Round(time.Millisecond))
}

// archWords are the GOARCH values a file name suffix or a build
// constraint may name.
var archWords = regexp.MustCompile(`\b(386|amd64|arm|arm64|loong64|mips|mipsle|mips64|mips64le|ppc64|ppc64le|riscv64|s390x|wasm)\b`)

// TestNoArchSpecificFiles: no Go file of vmbench is chosen by GOARCH (a
// _<arch>.go suffix or a build constraint naming an architecture), so
// that every architecture compiles the same files and the amd64 build
// stands for arm64's (TestCrossBuild).
func TestNoArchSpecificFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		base := strings.TrimSuffix(strings.TrimSuffix(d.Name(), ".go"), "_test")
		if parts := strings.Split(base, "_"); len(parts) > 1 && archWords.MatchString(parts[len(parts)-1]) {
			t.Errorf("%s is chosen by its GOARCH suffix", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "package ") {
				break
			}
			if strings.HasPrefix(line, "//go:build ") && archWords.MatchString(line) {
				t.Errorf("%s: %q names an architecture", path, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
