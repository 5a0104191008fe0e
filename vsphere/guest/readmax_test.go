package guest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/boundedread"
)

// TestReadFileMax: a guest file within its bound is downloaded whole; a
// larger one, and one without end (the guest's status.json made a link
// to /dev/zero, which the download reads as a file), are refused after
// the bound and one byte, naming the file and the bound.
func TestReadFileMax(t *testing.T) {
	ctx := context.Background()
	tg, _, dir := openFake(t)
	if err := tg.WriteFile(ctx, "run/status.json", []byte(`{"state": "measure"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tg.WriteFile(ctx, "run/big.json", []byte(strings.Repeat("x", 4097)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "run", "zero.json")); err != nil {
		t.Fatal(err)
	}
	if b, err := tg.ReadFileMax(ctx, "run/status.json", 4096); err != nil || string(b) != `{"state": "measure"}` {
		t.Errorf("ReadFileMax(status.json) = %q, %v", b, err)
	}
	for _, name := range []string{"big.json", "zero.json"} {
		b, err := tg.ReadFileMax(ctx, "run/"+name, 4096)
		if !errors.Is(err, boundedread.ErrTooLarge) || !strings.Contains(err.Error(), "vm1: read run/"+name) || !strings.Contains(err.Error(), "more than 4 KiB, the bound on this file") {
			t.Errorf("ReadFileMax(%s) = %d bytes, %v; want ErrTooLarge naming the file and the bound", name, len(b), err)
		}
	}
}
