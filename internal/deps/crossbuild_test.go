package deps

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCrossBuild builds the vmbench binary for the guests the in-guest
// agent runs in besides linux/amd64: Windows (the SQL Server VMs) and
// linux/arm64, with cgo off as `make agents` builds them. A package that
// uses a Unix-only call outside a build-tagged file fails here. It takes
// under 10 s on a warm build cache (minutes on a cold one), so -short
// skips it.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the windows/amd64 and linux/arm64 builds of ./cmd/vmbench (run without -short, or make agents)")
	}
	for _, tc := range []struct{ goos, goarch, out string }{
		{"windows", "amd64", "vmbench.exe"},
		{"linux", "arm64", "vmbench"},
	} {
		t.Run(tc.goos+"/"+tc.goarch, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tc.out)
			cmd := exec.Command("go", "build", "-o", out, "vmbench/cmd/vmbench")
			cmd.Env = append(os.Environ(), "GOOS="+tc.goos, "GOARCH="+tc.goarch, "CGO_ENABLED=0")
			start := time.Now()
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s GOARCH=%s go build ./cmd/vmbench: %v\n%s", tc.goos, tc.goarch, err, msg)
			}
			if st, err := os.Stat(out); err != nil || st.Size() == 0 {
				t.Fatalf("go build succeeded but left no binary at %s (%v)", out, err)
			}
			t.Logf("built in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}
