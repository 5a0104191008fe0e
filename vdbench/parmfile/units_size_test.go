package parmfile

import (
	"strings"
	"testing"
)

// Every size form: vdbench's k/m/g/t and the IEC KiB/MiB/GiB/TiB are
// binary; the SI kB/MB/GB/TB are refused with what to write instead.
func TestParseSizeForms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"512", 512}, {"4k", 4096}, {"4K", 4096}, {"4KiB", 4096}, {"4kib", 4096}, {"4KIB", 4096},
		{"64k", 64 << 10}, {"64KiB", 64 << 10}, {"1m", 1 << 20}, {"1M", 1 << 20}, {"1MiB", 1 << 20},
		{"1.5MiB", 3 << 19}, {"1g", 1 << 30}, {"1G", 1 << 30}, {"1GiB", 1 << 30}, {"2gib", 2 << 30},
		{"1t", 1 << 40}, {"1T", 1 << 40}, {"1TiB", 1 << 40}, {"0.5KiB", 512}, {" 8KiB ", 8192},
	} {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, hint string }{
		{"4kB", "write 4k or 4KiB for 4096 bytes, or 4000 for 4000 bytes"},
		{"4KB", "write 4k or 4KiB"}, {"4kb", "write 4k or 4KiB"},
		{"64MB", "write 64m or 64MiB"}, {"1mb", "write 1m or 1MiB"},
		{"2GB", "write 2g or 2GiB for 2147483648 bytes, or 2000000000 for"}, {"1gb", "1g or 1GiB"},
		{"1TB", "write 1t or 1TiB"}, {"1tb", "write 1t or 1TiB"}, {"1.5GB", "write 1.5g or 1.5GiB"},
	} {
		_, err := ParseSize(c.in)
		if err == nil {
			t.Errorf("ParseSize(%q): accepted an SI unit", c.in)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "SI units") || !strings.Contains(msg, c.hint) || !strings.Contains(msg, c.in) {
			t.Errorf("ParseSize(%q): %q does not name the value, say SI and suggest %q", c.in, msg, c.hint)
		}
	}
	for _, in := range []string{"4Ki", "4KiBB", "4iB", "KiB", "4 KiB", "4b", "4PiB", "4kibi", "-1KiB", "0.1KiB", "9000000TiB"} {
		if n, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d: accepted", in, n)
		}
	}
}

// ParseSize never panics, and what it accepts formats back to itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4k", "4KiB", "4kB", "1.5g", "İb", "\xffkb", "9e9t", "0x1p3k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, formatted %q, read back as %d, %v", s, n, FormatSize(n), back, err)
		}
	})
}
