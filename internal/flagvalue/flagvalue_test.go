package flagvalue

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"60": time.Minute, "0.5": 500 * time.Millisecond, "1m30s": 90 * time.Second, "0": 0} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestParsePort(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "5432": 5432, " 3306 ": 3306, "65535": 65535, "0": -1, "-1": -1, "65536": -1, "99999": -1, "": -1, "x": -1} {
		got, err := ParsePort(in)
		if want < 0 && err == nil || want >= 0 && (err != nil || got != want) {
			t.Errorf("ParsePort(%q) = %d, %v; want %d (-1: an error)", in, got, err, want)
		}
	}
}

func TestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"table-size", "table-size"},
		{"table_size", "table-size"},
		{"--table_size", "table-size"},
		{"-threads", "threads"},
		{"---x", "x"},
		{"mysql_ssl_ca", "mysql-ssl-ca"},
		{"a_-b", "a--b"},
		{"trailing-", "trailing-"}, // only leading dashes go
		{"_lead", "-lead"},         // an underscore is not a dash until replaced
		{"", ""},
		{"--", ""},
	} {
		if got := Name(tc.in); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Normalize(nil, tc.in); string(got) != tc.want {
			t.Errorf("Normalize(%q) = %q, want Name's %q", tc.in, got, tc.want)
		}
	}
}

// TestNormalizeOnFlagSet: with Normalize installed, the underscore
// spelling of a dashed flag sets it, on the command line and by name.
func TestNormalizeOnFlagSet(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetNormalizeFunc(Normalize)
	size := fs.Int("table-size", 0, "")
	if err := fs.Parse([]string{"--table_size=7"}); err != nil || *size != 7 {
		t.Fatalf("--table_size=7: %v, table-size %d", err, *size)
	}
	if err := fs.Set("table_size", "8"); err != nil || *size != 8 {
		t.Fatalf("Set(table_size, 8): %v, table-size %d", err, *size)
	}
	if fs.Lookup("table_size") == nil {
		t.Error("Lookup(table_size) found nothing")
	}
}
