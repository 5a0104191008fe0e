package spec

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Origin remembers where a file was read from, so that errors found
// after decoding (bounds, workload flags, the host's checks) name the
// file and line as decoding errors do. Paths name a key by its keys from
// the top, dot-separated ("vms.parallel", "workload.flags.time"; a
// number indexes a list: "profiles.2"). The zero Origin (a value built
// in code) names nothing.
type Origin struct {
	// File is the file's name as given to the loader; "" for a value
	// built in code.
	File string
	root *yaml.Node // the document's top mapping; nil for a value built in code
}

// Line returns the line of the key at path ("vms.parallel",
// "workload.flags.time"; a number indexes a list: "profiles.2"), or of
// its nearest ancestor present in the file, or 0 when nothing of it is
// there.
func (s Origin) Line(path string) int {
	line, _ := s.walk(path)
	return line
}

// Value returns the value node at path, or nil when path is not all in
// the file.
func (s Origin) Value(path string) *yaml.Node {
	_, n := s.walk(path)
	return n
}

// walk follows path from the root: the line of the deepest key or list
// entry found, and the node at path when all of it is there (else nil).
func (s Origin) walk(path string) (int, *yaml.Node) {
	n, line := s.root, 0
	if n == nil {
		return 0, nil
	}
	for _, k := range strings.Split(path, ".") {
		var next *yaml.Node
		switch i, err := strconv.Atoi(k); {
		case n.Kind == yaml.SequenceNode && err == nil && i >= 0 && i < len(n.Content):
			next = n.Content[i]
			line = next.Line
		case n.Kind != yaml.MappingNode:
			return line, nil
		}
		for i := 0; next == nil && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, next = n.Content[i].Line, n.Content[i+1]
			}
		}
		if next == nil {
			return line, nil
		}
		n = next
	}
	return line, n
}

// At prefixes an error about path with "file:line: ", or "file: " when
// the line is unknown, or nothing for a value built in code.
func (s Origin) At(path string) string {
	switch l := s.Line(path); {
	case s.File == "":
		return ""
	case l > 0:
		return fmt.Sprintf("%s:%d: ", s.File, l)
	default:
		return s.File + ": "
	}
}

// Errorf returns an error about path, prefixed with its file and line.
func (s Origin) Errorf(path, format string, args ...any) error {
	return fmt.Errorf("%s"+format, append([]any{s.At(path)}, args...)...)
}
