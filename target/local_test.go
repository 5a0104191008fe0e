//go:build unix

package target

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func newLocal(t *testing.T) (*Local, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vm1", "work")
	l, err := NewLocal("vm1", dir)
	if err != nil {
		t.Fatal(err)
	}
	return l, dir
}

func TestLocalSuite(t *testing.T) {
	l, dir := newLocal(t)
	runSuite(t, l, dir)
}

func TestNewLocal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewLocal("vm1", file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("NewLocal on a file = %v, want 'not a directory'", err)
	}
	if _, err := NewLocal("vm1", ""); err == nil {
		t.Error("NewLocal with an empty dir: no error")
	}
	t.Chdir(t.TempDir())
	l, err := NewLocal("vm1", "rel/dir")
	if err != nil {
		t.Fatal(err)
	}
	info, err := l.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(info.Dir) || !strings.HasSuffix(info.Dir, filepath.Join("rel", "dir")) {
		t.Errorf("Info.Dir = %q, want an absolute path ending in rel/dir", info.Dir)
	}
	if info.OS != runtime.GOOS || info.Arch != runtime.GOARCH || info.ClockOffset != 0 || info.ClockUncertainty != 0 {
		t.Errorf("Info = %+v", info)
	}
	if l.Name() != "vm1" || l.Close() != nil {
		t.Error("Name or Close")
	}
}

func TestLocalChecksumMismatch(t *testing.T) {
	l, dir := newLocal(t)
	// The hook stands for a disk or transfer that changed the bytes: it
	// flips the file after the rename, before the read-back.
	l.afterWrite = func(path string) error {
		return os.WriteFile(path, []byte("corrupted"), 0o644)
	}
	err := l.WriteFile(context.Background(), "job.json", []byte("original"), 0o644)
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("WriteFile = %v, want ErrChecksum", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "job.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("corrupt file left behind: %v", err)
	}
}

func TestLocalRemoveAllDot(t *testing.T) {
	l, dir := newLocal(t)
	ctx := context.Background()
	if err := l.WriteFile(ctx, "a/b", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.RemoveAll(ctx, "."); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("working dir still there: %v", err)
	}
}

func TestLocalStartErrors(t *testing.T) {
	l, _ := newLocal(t)
	ctx := context.Background()
	if _, err := l.Start(ctx, Command{Path: "bin/missing"}); err == nil {
		t.Error("Start of a missing program: no error")
	}
	_, err := l.Start(ctx, Command{Path: "/bin/true", Env: []string{"NOEQUALSIGN-s3cret"}})
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Start with a bad Env entry = %v, want an error not showing the value", err)
	}
}
