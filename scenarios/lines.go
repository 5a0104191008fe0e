package scenarios

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// source remembers where a Spec was read from, so that errors found after
// decoding (bounds, workload flags) name the file and line as decoding
// errors do.
type source struct {
	file string
	root *yaml.Node // the document's top mapping; nil for a Spec built in code
}

// line returns the line of the key at path ("vms.parallel",
// "workload.flags.time"), or of its nearest ancestor present in the
// file, or 0 when nothing of it is there.
func (s source) line(path string) int {
	n, line := s.root, 0
	if n == nil {
		return 0
	}
	for _, k := range strings.Split(path, ".") {
		if n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}

// at prefixes an error about path with "file:line: ", or "file: " when
// the line is unknown, or nothing for a Spec built in code.
func (s source) at(path string) string {
	switch l := s.line(path); {
	case s.file == "":
		return ""
	case l > 0:
		return fmt.Sprintf("%s:%d: ", s.file, l)
	default:
		return s.file + ": "
	}
}

// errorf returns an error about path, prefixed with its file and line.
func (s source) errorf(path, format string, args ...any) error {
	return fmt.Errorf("%s"+format, append([]any{s.at(path)}, args...)...)
}
