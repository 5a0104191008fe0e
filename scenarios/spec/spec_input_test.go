package spec

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	_ "vmbench/sysbench" // registers the campaigns' tool
)

// hostileBase is a small VM campaign; its workload flags start at line 10.
var hostileBase = fixture("hostile.yaml")

// TestParseRefusesHostileInput: what yaml.v3 lets through (floats in int
// fields, flag keys with dashes or named twice, flag values that are not
// scalars) is refused at the key's line; a trailing --- is accepted. A
// value that is not a string where the key takes one (of a named type,
// spec.Driver) says so as of any string.
func TestParseRefusesHostileInput(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string // substrings; nil: accepted
	}{
		{"float count", "count: 2", "count: 8.5", []string{"c.yaml:4: vms.count: 8.5 is not a whole number"}},
		{"float sim count", "{count: 1}", "{count: 1.0}", []string{"c.yaml:14: simulate.vms.count: 1.0 is not a whole number"}},
		{"float port", "driver: mysql", "driver: mysql\n  port: 3306.5", []string{"c.yaml:7: database.port: 3306.5 is not a whole number"}},
		{"dashed key", "      time: 5s", "      time: 5s\n      --threads: 2", []string{`c.yaml:18: simulate.workload.flags.--threads: write the flag name without dashes: threads`}},
		{"same flag twice", "    time: 30s", "    time: 30s\n    table_size: 10\n    table-size: 20",
			[]string{"c.yaml:14: workload.flags.table-size: the flag table-size is already given as table_size; give it once"}},
		{"null value", "    time: 30s", "    time: 30s\n    tables:", []string{"c.yaml:13: workload.flags.tables: an empty value is not a flag value; a flag value is one number, word or duration"}},
		{"map value", "    time: 30s", "    time: 30s\n    tables: {a: 1}", []string{"c.yaml:13: workload.flags.tables: a map is not a flag value"}},
		{"list value", "      time: 5s", "      time: 5s\n      tables: [1, 2]", []string{"c.yaml:18: simulate.workload.flags.tables: a list is not a flag value"}},
		{"unknown driver", "driver: mysql", "driver: mysql\ndriver: agent", []string{`c.yaml:7: driver: "agent" is not valid (harness: from this host over the network; guest: the vmbench agent inside each VM)`}},
		{"unknown sim driver", "  vms: {count: 1}", "  vms: {count: 1}\n  driver: vm", []string{`c.yaml:15: simulate.driver: "vm" is not valid (harness or guest, as driver:)`}},
		{"guest driver", "driver: mysql", "driver: mysql\ndriver: guest\nguest: {max-clock-offset: 20ms}", nil},
		{"clock bound too wide", "driver: mysql", "driver: mysql\nguest: {max-clock-offset: 2s}", []string{"c.yaml:7: guest.max-clock-offset: 2s is not valid (0 for the default of 50ms, up to 1s"}},
		{"unknown guest key", "driver: mysql", "driver: mysql\nguest: {via: telnet}", []string{`c.yaml:7: guest.via: "telnet" is not valid (ssh: by SSH`}},
		{"driver not a string", "driver: mysql", "driver: mysql\ndriver: [guest]", []string{"cannot unmarshal !!seq into string"}},
		{"guest.via not a string", "driver: mysql", "driver: mysql\nguest: {via: {a: b}}", []string{"cannot unmarshal !!map into string"}},
		{"trailing separator", "      time: 5s\n", "      time: 5s\n---\n", nil},
		{"second document", "      time: 5s\n", "      time: 5s\n---\nname: y\n", []string{"c.yaml: holds more than one YAML document (the second at line 18)"}},
	} {
		data := strings.Replace(hostileBase, tc.old, tc.new, 1)
		_, err := Parse("c.yaml", []byte(data))
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", tc.name, err, w)
			}
		}
	}
}

// TestParseSuiteHostileInput: floats in int fields and empty curves.
func TestParseSuiteHostileInput(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"float threads", "threads: 0", "threads: 2.5", "suite.yaml:7: threads: 2.5 is not a whole number"},
		{"float sim targets", "  targets: 2", "  targets: 2.0", "suite.yaml:10: simulate.targets: 2.0 is not a whole number"},
		{"empty sim curve", "curve: [50]", "curve: []", "suite.yaml:16: curve: an empty list; list the points"},
		{"empty curve", "force: false", "force: false\ncurve: []", "suite.yaml:9: curve: an empty list"},
	} {
		_, err := ParseSuite("suite.yaml", []byte(strings.Replace(goodSuite, tc.old, tc.new, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
	if _, err := ParseSuite("suite.yaml", []byte(goodSuite+"---\n")); err != nil {
		t.Errorf("trailing ---: %v", err)
	}
}

// TestLoadAnyHostileInput: kind: values that are not a kind, a suite
// without kind:, and files that are not regular or too big.
func TestLoadAnyHostileInput(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noKind := strings.Replace(goodSuite, "kind: block-suite\n", "", 1)
	for _, tc := range []struct{ name, body, want string }{
		{"empty string", "kind: \"\"\n" + noKind, `f.yaml:1: kind: "" is not known (valid: block-suite, or no kind for a VM campaign)`},
		{"empty", "kind:\n" + noKind, "f.yaml:1: kind: an empty value is not known (valid: block-suite"},
		{"null", "kind: null\n" + noKind, "f.yaml:1: kind: an empty value is not known"},
		{"list", "kind: [block-suite]\n" + noKind, "f.yaml:1: kind: a list is not known"},
		{"no kind", noKind, "f.yaml:4: targets: and profiles: are keys of a block suite: add kind: block-suite"},
		{"too big", goodSuite + strings.Repeat("#\n", MaxFileSize), "a campaign file is at most 1 MiB"},
	} {
		_, err := LoadAny(write(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: %v\nwant one error with %q", tc.name, err, tc.want)
		}
	}
	if _, err := LoadAny(write("kind: 'block-suite'\n" + noKind)); err != nil {
		t.Errorf("quoted kind: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, os.DevNull, dir} {
		if _, err := LoadAny(p); err == nil || !strings.Contains(err.Error(), p+": not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// fixture is the text of testdata/name, a campaign or suite file the
// tests edit (the campaign engine's tests read them too).
func fixture(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}
