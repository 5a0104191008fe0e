package spec

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"vmbench/internal/golden"
)

// FuzzParse feeds arbitrary bytes to Parse, the decoder behind Load: it
// never panics, every error names the file, and a campaign that loads
// marshals to YAML that loads again and marshals to the same bytes (what a
// results directory's campaign.yaml relies on). The seeds are the standard
// campaign files and the corpus in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	golden.AddSeedFiles(f, filepath.Join("..", "*.yaml"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz/c.yaml"
		s, err := Parse(name, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("error does not start with the file name %s: %v", name, err)
			}
			return
		}
		out := marshalSpec(t, s)
		again, err := Parse("again.yaml", out)
		if err != nil {
			t.Fatalf("a loaded campaign marshals to YAML that does not load:\n%s\n%v", out, err)
		}
		if out2 := marshalSpec(t, again); !bytes.Equal(out, out2) {
			t.Fatalf("a loaded campaign changes when marshalled and loaded again:\n%s\nthen\n%s", out, out2)
		}
	})
}

func marshalSpec(t *testing.T, s *Campaign) []byte {
	t.Helper()
	b, err := yaml.Marshal(s)
	if err != nil {
		t.Fatalf("a loaded campaign does not marshal: %v", err)
	}
	return b
}
